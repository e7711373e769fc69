package ssa

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// pass is one named transformation of a program.
type pass struct {
	name string
	fn   func(p *Program) error
}

// passes is the optimisation pipeline, in order. Each pass lives in its own
// file; any can be disabled (KILN_DISABLE_PASS=name) or dumped after
// (KILN_DUMP=after:name) for debugging.
var passes = [...]pass{
	{name: "inline", fn: inline},
	{name: "dce", fn: deadcode},
	{name: "cse", fn: cse},
	{name: "fold", fn: constantFold},
	{name: "simplify", fn: simplify},
	{name: "hoist", fn: hoist},
	{name: "simplify-hoisted", fn: simplify},
	{name: "cse-hoisted", fn: cse},
	{name: "canon-dot", fn: canonDot},
	{name: "canon-conv", fn: canonConv},
	{name: "conv-phases", fn: convPhases},
	{name: "decompose", fn: decompose},
	{name: "patterns", fn: recognisePatterns},
	{name: "layout", fn: assignLayouts},
	{name: "fold-late", fn: constantFold},
	{name: "fold-weights", fn: foldWeights},
	{name: "simplify-late", fn: simplify},
	{name: "cse-late", fn: cse},
	{name: "dce-late", fn: deadcode},
}

// PassNames lists the passes in pipeline order.
func PassNames() []string {
	names := make([]string, len(passes))
	for i, p := range passes {
		names[i] = p.name
	}
	return names
}

// laterStages are the names of the stages that run after the passes (the
// scheduler's, which registers them): Disable and DumpAfter may name them
// too, so that KILN_DISABLE_PASS and KILN_DUMP serve the whole compiler, and
// Optimize leaves them to their stage.
var laterStages []string

// RegisterLaterStages adds the names of a later compiler stage's steps to
// the names Optimize accepts (and ignores) in Disable and DumpAfter.
func RegisterLaterStages(names ...string) { laterStages = append(laterStages, names...) }

// Options configure Optimize.
type Options struct {
	// Disable names passes to skip.
	Disable []string
	// DumpAfter names passes after which the program is printed to DumpTo
	// ("all" dumps after every pass; "lower" dumps the lowered program
	// before the first pass).
	DumpAfter []string
	DumpTo    io.Writer
	// Verify runs the verifier after every pass (tests turn it on).
	Verify bool
}

// OptionsFromEnv reads KILN_DISABLE_PASS (comma-separated pass names) and
// KILN_DUMP (comma-separated `after:NAME` items) and dumps to stderr.
func OptionsFromEnv() Options {
	var o Options
	if s := os.Getenv("KILN_DISABLE_PASS"); s != "" {
		o.Disable = strings.Split(s, ",")
	}
	if s := os.Getenv("KILN_DUMP"); s != "" {
		for _, item := range strings.Split(s, ",") {
			if name, ok := strings.CutPrefix(strings.TrimSpace(item), "after:"); ok {
				o.DumpAfter = append(o.DumpAfter, name)
			}
		}
		o.DumpTo = os.Stderr
	}
	return o
}

// Optimize runs the pass pipeline over p.
func Optimize(p *Program, o Options) error {
	for _, name := range append(slices.Clone(o.Disable), o.DumpAfter...) {
		if name != "all" && name != "lower" && !slices.Contains(PassNames(), name) && !slices.Contains(laterStages, name) {
			return fmt.Errorf("ssa: unknown pass %q (passes: %s)", name, strings.Join(append(PassNames(), laterStages...), ", "))
		}
	}
	dump := func(after string) {
		if o.DumpTo != nil && (slices.Contains(o.DumpAfter, after) || (after != "lower" && slices.Contains(o.DumpAfter, "all"))) {
			fmt.Fprintf(o.DumpTo, "// after %s\n%s\n", after, p)
		}
	}
	dump("lower")
	if o.Verify {
		if err := Verify(p); err != nil {
			return fmt.Errorf("ssa: lowered program: %w", err)
		}
	}
	for _, ps := range passes {
		if slices.Contains(o.Disable, ps.name) {
			continue
		}
		if err := ps.fn(p); err != nil {
			return fmt.Errorf("ssa: pass %s: %w", ps.name, err)
		}
		if o.Verify {
			if err := Verify(p); err != nil {
				return fmt.Errorf("ssa: after pass %s: %w", ps.name, err)
			}
		}
		dump(ps.name)
	}
	return nil
}
