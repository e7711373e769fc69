// Package xlaconformance runs XLA's own test vectors — the HLO modules,
// literals, indexing maps and expected texts that XLA's C++ tests embed,
// exported as JSON — through Kiln's code paths, the same ones the `kiln`
// command line takes (`kiln fmt`, `kiln run`, `kiln run --reference`,
// `kiln indexing`, `kiln simplify`), and through Go code for what the
// command line cannot express (IndexingMap programs, symbolic tiles).
//
// Each suite reads one file of the data directory, checks every case it
// selects, and reports `suite: passed/total`. The data directory is
// $KILN_XLA_TESTS, or else shared/xla-tests/data beside the checkout (the
// directory above the module's root); without it the test skips, saying so.
//
// The package's test compares every suite with its floor in floors.txt
// (lines `suite passed`) and fails when a suite passes fewer cases than its
// floor, so that fidelity never regresses; floors are raised as Kiln
// improves. Cases are compared as XLA's tests compare them: indexing maps and
// printed texts equal after deleting all white space, literals exactly or
// within the error bound the test gave.
//
// Suites register themselves with Register in an init function, one file per
// suite (suite_*.go).
package xlaconformance
