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
	ins := make([]*runtime.Tensor, len(args))
	for i, a := range args {
		ins[i] = runtime.TensorFromLiteral(a)
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
