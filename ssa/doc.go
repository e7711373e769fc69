// Package ssa is Kiln's compiler IR: functions of values in SSA form
// (Program, Func, Value), lowered from ir modules, with nested functions
// (regions) for while bodies, conditional branches, reducers and
// comparators, and an ordered list of named passes (compile.go) that
// simplify and canonicalise the program before the scheduler fuses it.
//
// Every pass lives in its own file and can be switched off
// (KILN_DISABLE_PASS=name) or printed after (KILN_DUMP=after:name).
package ssa
