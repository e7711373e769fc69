package runtime

import (
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// reducerOp recognises the standard scalar reducers: a function of two
// scalar parameters whose root is add, multiply, maximum or minimum of them.
func reducerOp(f *ssa.Func) (ssa.Op, bool) {
	if len(f.Params) != 2 || f.Root == nil || len(f.Root.Args) != 2 {
		return 0, false
	}
	r := f.Root
	switch r.Op {
	case ssa.OpAdd, ssa.OpMultiply, ssa.OpMaximum, ssa.OpMinimum:
	default:
		return 0, false
	}
	p0, p1 := f.Params[0], f.Params[1]
	if (r.Args[0] == p0 && r.Args[1] == p1) || (r.Args[0] == p1 && r.Args[1] == p0) {
		return r.Op, true
	}
	return 0, false
}

// reduceStep is a float32 reduce with a standard reducer: the output is
// laid out over the kept dimensions; each output element folds the reduced
// elements, in row-major order of the reduced dimensions, onto the initial
// value — the order the reference evaluator uses, so the two agree exactly.
type reduceStep struct {
	op      ssa.Op
	in, out loc
	init    loc
	// The input is walked as [outer, reduced, inner] after the dimensions
	// are sorted: kept dims (outer), reduced dims, then kept dims faster
	// than every reduced dim (inner).
	keptDims, keptStrides []int // over output elements, input strides
	redDims, redStrides   []int
	count                 int // output elements
}

func (c *compiler) reduceStep(k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(k.Values) != 1 || len(v.Args) != 2 || v.Shape.Elem != ir.F32 || !v.Args[0].Shape.HasDefaultLayout() {
		return nil, nil
	}
	op, ok := reducerOp(v.Funcs[0])
	if !ok {
		return nil, nil
	}
	x := v.Args[0].Shape
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &reduceStep{op: op, in: c.loc(bufOf(v.Args[0])), init: c.loc(bufOf(v.Args[1])), out: c.loc(k.Out), count: v.Shape.ElementCount()}
	strides := rowMajorStrides(x.Dims)
	for d := range x.Dims {
		if slices.Contains(v.Attrs.Dimensions, d) {
			s.redDims = append(s.redDims, x.Dims[d])
			s.redStrides = append(s.redStrides, strides[d])
		} else {
			s.keptDims = append(s.keptDims, x.Dims[d])
			s.keptStrides = append(s.keptStrides, strides[d])
		}
	}
	return s, nil
}

func rowMajorStrides(dims []int) []int {
	s := make([]int, len(dims))
	st := 1
	for d := len(dims) - 1; d >= 0; d-- {
		s[d] = st
		st *= dims[d]
	}
	return s
}

func (s *reduceStep) name() string { return "reduce-" + s.op.String() }

func (s *reduceStep) exec(fr *frame) error {
	x, out := f32s(fr.bytes(s.in)), f32s(fr.bytes(s.out))
	init := f32s(fr.bytes(s.init))[0]
	var kidx, ridx [16]int
	kept := kidx[:len(s.keptDims)]
	red := ridx[:len(s.redDims)]
	redCount := prod(s.redDims)
	contiguous := len(s.redDims) > 0 && s.redStrides[len(s.redStrides)-1] == 1 && isRowMajorTail(s.redDims, s.redStrides)
	for o := 0; o < s.count; o++ {
		base := 0
		for d, i := range kept {
			base += i * s.keptStrides[d]
		}
		acc := init
		if contiguous {
			acc = foldF32(s.op, acc, x[base:base+redCount])
		} else {
			clear(red)
			for r := 0; r < redCount; r++ {
				off := base
				for d, i := range red {
					off += i * s.redStrides[d]
				}
				acc = applyF32(s.op, acc, x[off])
				ir.NextIndex(s.redDims, red)
			}
		}
		out[o] = acc
		ir.NextIndex(s.keptDims, kept)
	}
	return nil
}

// isRowMajorTail reports whether the reduced dimensions are the innermost
// ones of the input, so each output element's inputs are one contiguous run.
func isRowMajorTail(dims, strides []int) bool {
	st := 1
	for d := len(dims) - 1; d >= 0; d-- {
		if strides[d] != st {
			return false
		}
		st *= dims[d]
	}
	return true
}

func applyF32(op ssa.Op, acc, x float32) float32 {
	switch op {
	case ssa.OpAdd:
		return acc + x
	case ssa.OpMultiply:
		return acc * x
	case ssa.OpMaximum:
		return maxF32(acc, x)
	}
	return minF32(acc, x)
}

// foldF32 folds xs onto acc in order.
func foldF32(op ssa.Op, acc float32, xs []float32) float32 {
	switch op {
	case ssa.OpAdd:
		for _, x := range xs {
			acc += x
		}
	case ssa.OpMultiply:
		for _, x := range xs {
			acc *= x
		}
	case ssa.OpMaximum:
		for _, x := range xs {
			acc = maxF32(acc, x)
		}
	default:
		for _, x := range xs {
			acc = minF32(acc, x)
		}
	}
	return acc
}
