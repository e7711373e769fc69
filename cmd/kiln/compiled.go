package main

import (
	"time"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// runCompiled runs m on args through the compiled path, timing `runs` runs
// after a warm-up, and says which path it used.
func runCompiled(m *ir.Module, args []*ir.Literal, runs int) (out []*ir.Literal, times []time.Duration, how string, err error) {
	out, err = eval.Run(m, args...)
	return out, nil, "reference evaluator (the compiler is not built yet)", err
}
