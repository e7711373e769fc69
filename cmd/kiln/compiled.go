package main

import (
	"context"
	"fmt"
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

// runCompiledOnce compiles m under the memory limit (0: none) and runs it
// once on args, one literal per entry parameter: a tuple parameter's value
// is passed as its array leaves, in order, as Run takes them.
func runCompiledOnce(ctx context.Context, m *ir.Module, args []*ir.Literal, memoryLimit int64) ([]*ir.Literal, error) {
	exe, err := runtime.Compile(m, runtime.WithMemoryLimit(memoryLimit))
	if err != nil {
		return nil, err
	}
	var ins []*runtime.Tensor
	for i, a := range args {
		leaves, err := arrayLeaves(m.Entry.Parameters[i], a)
		if err != nil {
			return nil, err
		}
		for _, l := range leaves {
			ins = append(ins, runtime.TensorFromLiteral(l))
		}
	}
	outs, err := exe.Run(ctx, ins...)
	if err != nil {
		return nil, err
	}
	lits := make([]*ir.Literal, len(outs))
	for i, o := range outs {
		lits[i] = o.Literal()
	}
	return lits, nil
}

// arrayLeaves lists the array leaves of parameter p's value l, depth
// first; a token leaf cannot be passed and is refused by name.
func arrayLeaves(p *ir.Instruction, l *ir.Literal) ([]*ir.Literal, error) {
	var out []*ir.Literal
	var walk func(l *ir.Literal, path string) error
	walk = func(l *ir.Literal, path string) error {
		s := l.Shape()
		switch {
		case s.IsTuple():
			for i, e := range l.Elements() {
				if err := walk(e, fmt.Sprintf("%s.%d", path, i)); err != nil {
					return err
				}
			}
		case s.IsArray():
			out = append(out, l)
		default:
			return fmt.Errorf("parameter %s: leaf %s is a %v, which kiln run cannot pass", p.Name, path, s)
		}
		return nil
	}
	return out, walk(l, p.Name)
}
