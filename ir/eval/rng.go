package eval

// rng-bit-generator, rng (rng_uniform, rng_normal) and
// rng-get-and-update-state, as ir/ops defines them (rng.go). The stateful
// rng draws from the Philox stream keyed by Options.Seed at the
// evaluator's 128-bit counter, which starts at 0 and advances by the words
// each op consumes, as rng-get-and-update-state advances it.

import (
	"fmt"
	"math/bits"
	"strconv"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalRngBitGenerator, ir.OpRngBitGenerator)
	register(evalRng, ir.OpRng)
	register(evalRngGetAndUpdateState, ir.OpRngGetAndUpdateState)
}

// rngState is the state of the generator behind the stateful `rng` op: the
// Philox key (Options.Seed) and a 128-bit counter.
type rngState struct {
	seed   uint64
	lo, hi uint64
}

func newRNGState(seed uint64) *rngState { return &rngState{seed: seed} }

// advance returns the current counter and moves it forward by delta.
func (s *rngState) advance(delta uint64) (lo, hi uint64) {
	lo, hi = s.lo, s.hi
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, delta, 0)
	s.hi += carry
	return lo, hi
}

func evalRngBitGenerator(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("expected 1 operand (the state), found %d", len(args))
	}
	st := args[0]
	if st.Shape().Elem != ir.U64 || st.Shape().Rank() != 1 {
		return nil, fmt.Errorf("state has shape %v, expected u64[2] or u64[3]", st.Shape())
	}
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 || !in.Shape.Tuple[0].EqualIgnoringLayout(st.Shape()) || !in.Shape.Tuple[1].IsArray() {
		return nil, fmt.Errorf("result shape %v, expected (%v, data array)", in.Shape, st.Shape())
	}
	data := in.Shape.Tuple[1]
	alg, err := ops.RngBitGenerator(in.RngAlgorithm, st.ElementCount(), data.Elem)
	if err != nil {
		return nil, unsupported(in, err)
	}
	out, err := newArray(data.Elem, data.Dims)
	if err != nil {
		return nil, err
	}
	ns := st.Clone()
	ops.GenerateBits(alg, ir.Values[uint64](st), ir.Values[uint64](ns), data.Elem, data.Dims, out.Bytes())
	return ir.NewTupleLiteral(ns, out), nil
}

func evalRngGetAndUpdateState(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	var delta uint64
	if v, ok := in.RawAttr("delta"); ok {
		d, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("delta=%s is not an integer", v)
		}
		delta = uint64(d)
	}
	lo, hi := e.rng.advance(delta)
	return ir.MustLiteralFromSlice([]uint64{lo, hi}), nil
}

func evalRng(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("expected 2 operands, found %d", len(args))
	}
	a, b := args[0], args[1]
	t := in.Shape.Elem
	if !in.Shape.IsArray() || !a.Shape().IsScalar() || !b.Shape().IsScalar() || a.Shape().Elem != t || b.Shape().Elem != t {
		return nil, fmt.Errorf("operands %v and %v, expected %v scalars", a.Shape(), b.Shape(), t)
	}
	if err := ops.CheckRng(in.Distribution, t); err != nil {
		return nil, unsupported(in, err)
	}
	out, err := newArray(t, in.Shape.Dims)
	if err != nil {
		return nil, err
	}
	lo, hi := e.rng.advance(ops.RngWords(t, out.ElementCount()))
	ops.Rng(in.Distribution, t, in.Shape.Dims, e.opts.Seed, lo, hi, a.Bytes(), b.Bytes(), out.Bytes())
	return out, nil
}
