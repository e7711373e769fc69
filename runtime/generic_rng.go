package runtime

// rng-bit-generator, rng and rng-get-and-update-state, as ir/ops defines
// them (XLA's CPU expansions: Threefry-2x32 and Philox-4x32).
//
// rng draws from the Philox stream keyed by seed 0 at a counter that
// starts at 0 for every run and advances across the rng ops of the run in
// program order, as one evaluation of the module does. The counter of each
// op is fixed at compile time; a module whose rng ops sit in loop bodies or
// branches (so the counter depends on the run) is refused with an error.

import (
	"fmt"
	"strconv"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpRngBitGenerator)] = buildRngBitGenerator
	genericSteps[ssa.Op(ir.OpRng)] = buildRng
	genericSteps[ssa.Op(ir.OpRngGetAndUpdateState)] = buildRngGetAndUpdateState
}

type rngBitGeneratorStep struct {
	state, newState, data loc
	alg                   ir.RandomAlgorithm
	t                     ir.ElementType
	dims                  []int
}

func buildRngBitGenerator(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	st := v.Args[0].Shape
	outs := c.leaves(k.Out)
	if st.Elem != ir.U64 || st.Rank() != 1 || len(outs) != 2 || !v.Shape.IsTuple() || len(v.Shape.Tuple) != 2 {
		return nil, errorf("rng-bit-generator of state %v to %v, expected a u64 vector state and a (state, data) result", st, v.Shape)
	}
	data := v.Shape.Tuple[1]
	alg, err := ops.RngBitGenerator(v.Attrs.RngAlgorithm, st.Dims[0], data.Elem)
	if err != nil {
		return nil, err
	}
	return &rngBitGeneratorStep{state: locs[0], newState: outs[0], data: outs[1], alg: alg, t: data.Elem, dims: data.Dims}, nil
}

func (s *rngBitGeneratorStep) name() string { return "rng-bit-generator" }

func (s *rngBitGeneratorStep) exec(fr *frame) error {
	ops.GenerateBits(s.alg, ops.Elems[uint64](fr.bytes(s.state)), ops.Elems[uint64](fr.bytes(s.newState)), s.t, s.dims, fr.bytes(s.data))
	return nil
}

// rngCounter is the counter rng op v starts at: the words the stateful rng
// ops before it in the entry function consume. It reports an error when
// stateful rng ops sit where the counter depends on the run.
func rngCounter(v *ssa.Value) (uint64, error) {
	f := v.Func
	if f == nil || f.Program == nil || f != f.Program.Entry {
		return 0, fmt.Errorf("%s inside a loop body, branch or called computation is not supported by the compiled path (its generator state depends on the run)", v.Op)
	}
	for _, g := range f.Program.Funcs {
		if g == f {
			continue
		}
		for _, w := range g.Values {
			if isStatefulRng(w.Op) {
				return 0, fmt.Errorf("%s: the module has %s ops inside loop bodies or branches, so the generator state depends on the run; not supported by the compiled path", v.Op, w.Op)
			}
		}
	}
	var ctr uint64
	for _, w := range f.Values {
		if w == v {
			return ctr, nil
		}
		if isStatefulRng(w.Op) {
			n, err := rngWords(w)
			if err != nil {
				return 0, err
			}
			ctr += n
		}
	}
	return 0, fmt.Errorf("%s is not in its function", v.Op)
}

func isStatefulRng(op ssa.Op) bool {
	return op == ssa.Op(ir.OpRng) || op == ssa.Op(ir.OpRngGetAndUpdateState)
}

// rngWords is how far an op advances the generator's counter.
func rngWords(v *ssa.Value) (uint64, error) {
	if v.Op == ssa.Op(ir.OpRngGetAndUpdateState) {
		for _, a := range v.Raw {
			if a.Name == "delta" {
				d, err := strconv.ParseInt(a.Value, 10, 64)
				if err != nil {
					return 0, fmt.Errorf("rng-get-and-update-state: delta=%s is not an integer", a.Value)
				}
				return uint64(d), nil
			}
		}
		return 0, nil
	}
	return ops.RngWords(v.Shape.Elem, v.Shape.ElementCount()), nil
}

type rngGetAndUpdateStateStep struct {
	out loc
	ctr uint64
}

func buildRngGetAndUpdateState(c *compiler, k *sched.Kernel, p *program) (step, error) {
	ctr, err := rngCounter(k.Root)
	if err != nil {
		return nil, err
	}
	if s := k.Root.Shape; !denseArray(s) || s.Elem != ir.U64 || s.ElementCount() != 2 {
		return nil, errorf("rng-get-and-update-state of shape %v, expected u64[2]", s)
	}
	return &rngGetAndUpdateStateStep{out: c.loc(k.Out), ctr: ctr}, nil
}

func (s *rngGetAndUpdateStateStep) name() string { return "rng-get-and-update-state" }

func (s *rngGetAndUpdateStateStep) exec(fr *frame) error {
	out := ops.Elems[uint64](fr.bytes(s.out))
	out[0], out[1] = s.ctr, 0
	return nil
}

type rngStep struct {
	a, b, out loc
	dist      ir.RandomDistribution
	t         ir.ElementType
	dims      []int
	ctr       uint64
}

func buildRng(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	t := v.Shape.Elem
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(v.Args) != 2 || !v.Args[0].Shape.IsScalar() || !v.Args[1].Shape.IsScalar() || v.Args[0].Shape.Elem != t || v.Args[1].Shape.Elem != t {
		return nil, errorf("rng operands %v, expected two %v scalars", argShapes(v), t)
	}
	if err := ops.CheckRng(v.Attrs.Distribution, t); err != nil {
		return nil, err
	}
	ctr, err := rngCounter(v)
	if err != nil {
		return nil, err
	}
	return &rngStep{a: locs[0], b: locs[1], out: c.loc(k.Out), dist: v.Attrs.Distribution, t: t, dims: v.Shape.Dims, ctr: ctr}, nil
}

func (s *rngStep) name() string { return "rng" }

func (s *rngStep) exec(fr *frame) error {
	ops.Rng(s.dist, s.t, s.dims, 0, s.ctr, 0, fr.bytes(s.a), fr.bytes(s.b), fr.bytes(s.out))
	return nil
}
