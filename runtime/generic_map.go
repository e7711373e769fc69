package runtime

// map: the mapped computation compiled to a wide program and run over
// tiles of the operands, each op rounded to its type as the evaluator
// rounds it element by element.

import (
	"slices"

	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.OpMap] = buildMap }

type mapStep struct {
	fn   *scalarFunc
	args []loc
	out  loc
	n    int
	regs int
}

func buildMap(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Funcs) != 1 || !denseArray(v.Shape) || len(v.Args) == 0 || len(v.Args) > maxVariadic {
		return nil, nil
	}
	for i, d := range v.Attrs.Dimensions {
		if d != i || len(v.Attrs.Dimensions) != v.Shape.Rank() {
			return nil, nil
		}
	}
	args, ok := operandLocs(c, k)
	if !ok {
		return nil, nil
	}
	fn := compileScalarFunc(v.Funcs[0])
	if fn == nil || len(fn.params) != len(v.Args) || len(fn.results) != 1 || fn.resultT[0] != v.Shape.Elem || v.Funcs[0].Root.Op == ssa.OpTuple {
		return nil, nil
	}
	for i, a := range v.Args {
		if fn.paramT[i] != a.Shape.Elem || !slices.Equal(a.Shape.Dims, v.Shape.Dims) {
			return nil, nil
		}
	}
	s := &mapStep{fn: fn, args: args, out: c.loc(k.Out), n: v.Shape.ElementCount()}
	var sp scratchPlan
	s.regs = sp.take(fn.prog.regs * elementwiseTile * wideBytes)
	sp.reserve(p)
	return s, nil
}

func (s *mapStep) name() string { return "map" }

func (s *mapStep) exec(fr *frame) error {
	regs := fr.scratch[0][s.regs:]
	fn := s.fn
	for _, c := range fn.consts {
		r := regAt(regs, c.reg, elementwiseTile, elementwiseTile)
		loadWide(r, 1, c.data, c.t, 0)
		fillWide(r, wideKindOf(c.t), elementwiseTile)
	}
	out := fr.bytes(s.out)
	for start := 0; start < s.n; start += elementwiseTile {
		n := min(elementwiseTile, s.n-start)
		for i, l := range s.args {
			loadWide(regAt(regs, fn.params[i], elementwiseTile, n), n, fr.bytes(l), fn.paramT[i], start)
		}
		fn.prog.run(regs, elementwiseTile, n)
		storeWide(out, fn.resultT[0], start, regAt(regs, fn.results[0], elementwiseTile, n), n)
	}
	return nil
}
