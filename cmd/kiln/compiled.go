package main

import (
	"context"
	"time"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// runCompiled compiles m with every parameter but the first bound to its
// argument (the weights, as a service binds them), and runs it on the first,
// timing `runs` runs after a warm-up; it returns the outputs, the run times,
// and a description of the path it used.
func runCompiled(m *ir.Module, args []*ir.Literal, runs int) (out []*ir.Literal, times []time.Duration, how string, err error) {
	start := time.Now()
	var opts []runtime.Option
	for i := 1; i < len(args); i++ {
		opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(args[i])))
	}
	exe, err := runtime.Compile(m, opts...)
	if err != nil {
		return nil, nil, "", err
	}
	compileTime := time.Since(start)
	ins := []*runtime.Tensor{runtime.TensorFromLiteral(args[0])}
	outs, err := exe.Run(context.Background(), ins...)
	if err != nil {
		return nil, nil, "", err
	}
	ctx := context.Background()
	for i := 0; i < runs; i++ {
		t := time.Now()
		if err := exe.RunInto(ctx, outs, ins...); err != nil {
			return nil, nil, "", err
		}
		times = append(times, time.Since(t))
	}
	for _, o := range outs {
		out = append(out, o.Literal())
	}
	return out, times, "weights bound, compiled in " + compileTime.Round(10*time.Microsecond).String(), nil
}

// runCompiledOnce compiles m and runs it once on args.
func runCompiledOnce(m *ir.Module, args []*ir.Literal) ([]*ir.Literal, error) {
	exe, err := runtime.Compile(m)
	if err != nil {
		return nil, err
	}
	var ins []*runtime.Tensor
	for _, a := range args {
		ins = appendLeafTensors(ins, a)
	}
	outs, err := exe.Run(context.Background(), ins...)
	if err != nil {
		return nil, err
	}
	lits := make([]*ir.Literal, len(outs))
	for i, o := range outs {
		lits[i] = o.Literal()
	}
	return lits, nil
}

// appendLeafTensors appends one tensor per array leaf of l: the runtime
// takes a tuple parameter leaf by leaf.
func appendLeafTensors(ts []*runtime.Tensor, l *ir.Literal) []*runtime.Tensor {
	if l.Shape().IsTuple() {
		for _, e := range l.Elements() {
			ts = appendLeafTensors(ts, e)
		}
		return ts
	}
	return append(ts, runtime.TensorFromLiteral(l))
}
