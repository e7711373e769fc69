package sched

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// LoopProgram is the body of a Loop kernel: a list of operations evaluated
// element by element over the kernel's output index space. Index-mapping
// ops (broadcast, transpose, slice, reverse, reshape) never appear in it:
// they are folded into the strided Access of the loads that read through
// them, so every op works on elements at the same output index.
type LoopProgram struct {
	Dims []int    // the output's dimensions
	Ops  []LoopOp // in evaluation order; the last is the result
}

// LoopOp is one operation of a LoopProgram.
type LoopOp struct {
	// Op is an elementwise op, or one of the leaf ops: OpParameter (a load
	// through Access), OpConstant (the scalar Scalar), OpIota (the index
	// Access computes, as a value of Type).
	Op    ssa.Op
	Type  ir.ElementType // the element type of the result
	Args  []int          // indices of earlier ops
	Value *ssa.Value     // the SSA value computed (for its attributes); nil for leaves
	// Access is where a load reads (OpParameter) or what index an iota
	// produces (OpIota).
	Access *Access
	Scalar *ir.Literal // OpConstant
}

// Access maps an output index to a position: Offset + Σ_d Strides[d]·i_d,
// over the output's dimensions. For a load it is the element position in
// the row-major storage of input Input; for an iota it is the iota value.
type Access struct {
	Input   int
	Strides []int
	Offset  int
}

// String prints the access for dumps: in2[s=(0,1) +0].
func (a *Access) String() string { return fmt.Sprintf("in%d[s=%v +%d]", a.Input, a.Strides, a.Offset) }

// IsLinear reports whether the access reads element Offset + (row-major
// linear index of the output): the input is traversed in the output's
// order, so a tile of the output is a contiguous run of the input.
func (a *Access) IsLinear(dims []int) bool {
	stride := 1
	for d := len(dims) - 1; d >= 0; d-- {
		if dims[d] != 1 && a.Strides[d] != stride {
			return false
		}
		stride *= dims[d]
	}
	return true
}

// IsScalar reports whether the access reads the same element everywhere.
func (a *Access) IsScalar() bool {
	for _, s := range a.Strides {
		if s != 0 {
			return false
		}
	}
	return true
}

// indexMap is how one value's elements are reached from a loop's output
// index: value index j = Σ_d A[j][d]·out[d] + C[j]. Broadcast, transpose,
// slice and reverse compose into such maps; elementwise ops keep them.
type indexMap struct {
	A [][]int
	C []int
}

// identityMap is the map of the loop's output onto itself.
func identityMap(rank int) indexMap {
	m := indexMap{A: make([][]int, rank), C: make([]int, rank)}
	for j := range m.A {
		m.A[j] = make([]int, rank)
		m.A[j][j] = 1
	}
	return m
}

// operandMap composes m (out → index of v) with v's own map to operand
// `arg`, returning out → index of the operand, or false when v's operand map
// is not of this strided form.
func operandMap(v *ssa.Value, arg int, m indexMap) (indexMap, bool) {
	a := v.Args[arg].Shape
	outRank := 0
	if len(m.A) > 0 {
		outRank = len(m.A[0])
	}
	zeroRow := func() []int { return make([]int, outRank) }
	switch {
	case v.Op.IsElementwise() && v.Op != ssa.OpMap:
		if a.IsScalar() && !v.Shape.IsScalar() { // scalar operand of clamp/select
			return indexMap{}, true
		}
		return m, true
	case v.Op == ssa.OpBroadcast:
		out := indexMap{A: make([][]int, a.Rank()), C: make([]int, a.Rank())}
		for i, d := range v.Attrs.Dimensions {
			if a.Dims[i] == 1 && v.Shape.Dims[d] != 1 {
				out.A[i] = zeroRow() // a degenerate dimension repeats its one element
				continue
			}
			out.A[i], out.C[i] = m.A[d], m.C[d]
		}
		return out, true
	case v.Op == ssa.OpTranspose:
		out := indexMap{A: make([][]int, a.Rank()), C: make([]int, a.Rank())}
		for i, p := range v.Attrs.Dimensions {
			out.A[p], out.C[p] = m.A[i], m.C[i]
		}
		return out, true
	case v.Op == ssa.OpSlice:
		out := indexMap{A: make([][]int, a.Rank()), C: make([]int, a.Rank())}
		for j, sd := range v.Attrs.Slice {
			row := zeroRow()
			for d := range row {
				row[d] = m.A[j][d] * sd.Stride
			}
			out.A[j], out.C[j] = row, sd.Start+m.C[j]*sd.Stride
		}
		return out, true
	case v.Op == ssa.Op(ir.OpReverse):
		out := indexMap{A: make([][]int, a.Rank()), C: make([]int, a.Rank())}
		copy(out.A, m.A)
		copy(out.C, m.C)
		for _, j := range v.Attrs.Dimensions {
			row := zeroRow()
			for d := range row {
				row[d] = -m.A[j][d]
			}
			out.A[j], out.C[j] = row, a.Dims[j]-1-m.C[j]
		}
		return out, true
	}
	return indexMap{}, false
}

// access turns a map onto a row-major array of shape s into element
// strides over the output, which has rank outRank (a scalar's map has no
// rows to read the rank from).
func (m indexMap) access(input int, s ir.Shape, outRank int) *Access {
	acc := &Access{Input: input, Strides: make([]int, outRank)}
	stride := 1
	for j := s.Rank() - 1; j >= 0; j-- {
		for d := range acc.Strides {
			acc.Strides[d] += m.A[j][d] * stride
		}
		acc.Offset += m.C[j] * stride
		stride *= s.Dims[j]
	}
	return acc
}

// iotaAccess is the access whose value is the iota of v along its iota
// dimension, reached from the output through m.
func iotaAccess(v *ssa.Value, m indexMap) *Access {
	d := v.Attrs.IotaDimension
	return &Access{Input: -1, Strides: append([]int(nil), m.A[d]...), Offset: m.C[d]}
}

// isIndexOp reports whether op only moves elements, with a strided map
// from its output index to its operand index.
func isIndexOp(op ssa.Op) bool {
	switch op {
	case ssa.OpBroadcast, ssa.OpTranspose, ssa.OpSlice, ssa.Op(ir.OpReverse):
		return true
	}
	return false
}

// buildLoop derives the LoopProgram of a Loop kernel by walking from its
// root towards its inputs, carrying the map from the output index to each
// value's index. A value reached through different maps is computed once
// per map (it is elementwise, so recomputing it is cheap); a value reached
// twice through the same map is computed once.
//
// For a Loop kernel the program computes the root; for a Reduce kernel it
// computes the reduce's operand, over the operand's index space.
func buildLoop(k *Kernel) (*LoopProgram, error) {
	b := &loopBuilder{k: k, inGroup: map[*ssa.Value]bool{}, memo: map[string]int{}}
	for _, v := range k.Values {
		b.inGroup[v] = true
	}
	root := loopRoot(k.Root)
	if !b.inGroup[root] && root != k.Root {
		return nil, fmt.Errorf("reduce operand %v is not fused", root)
	}
	b.prog.Dims = append([]int(nil), root.Shape.Dims...)
	if _, err := b.node(root, identityMap(root.Shape.Rank())); err != nil {
		return nil, err
	}
	return &b.prog, nil
}

// loopRoot is the value a kernel's loop program computes: the root of a
// loop, or the operand of a reduction.
func loopRoot(root *ssa.Value) *ssa.Value {
	if root.Op == ssa.OpReduce {
		return root.Args[0]
	}
	return root
}

type loopBuilder struct {
	k       *Kernel
	inGroup map[*ssa.Value]bool
	memo    map[string]int
	prog    LoopProgram
}

func (b *loopBuilder) emit(op LoopOp) int {
	b.prog.Ops = append(b.prog.Ops, op)
	return len(b.prog.Ops) - 1
}

func (b *loopBuilder) node(v *ssa.Value, m indexMap) (int, error) {
	key := fmt.Sprint(v.ID, m.A, m.C)
	if i, ok := b.memo[key]; ok {
		return i, nil
	}
	i, err := b.build(v, m)
	if err != nil {
		return 0, err
	}
	b.memo[key] = i
	return i, nil
}

func (b *loopBuilder) build(v *ssa.Value, m indexMap) (int, error) {
	if !b.inGroup[v] {
		in := indexOfValue(b.k.Inputs, v)
		if v.Shape.IsScalar() && v.IsConstant() {
			return b.emit(LoopOp{Op: ssa.OpConstant, Type: v.Shape.Elem, Scalar: v.Attrs.Literal}), nil
		}
		if in < 0 || !v.Shape.IsArray() {
			return 0, fmt.Errorf("loop reads %v (%s), which is not one of its inputs", v, v.Op)
		}
		return b.emit(LoopOp{Op: ssa.OpParameter, Type: v.Shape.Elem, Access: m.access(in, v.Shape, len(b.prog.Dims))}), nil
	}
	switch {
	case v.Op == ssa.OpConstant && v.Shape.IsScalar() && v.Attrs.Literal != nil:
		return b.emit(LoopOp{Op: ssa.OpConstant, Type: v.Shape.Elem, Scalar: v.Attrs.Literal, Value: v}), nil
	case v.Op == ssa.OpIota:
		return b.emit(LoopOp{Op: ssa.OpIota, Type: v.Shape.Elem, Access: iotaAccess(v, m), Value: v}), nil
	case isIndexOp(v.Op):
		am, ok := operandMap(v, 0, m)
		if !ok {
			return 0, fmt.Errorf("%s has no strided map", v.Op)
		}
		return b.node(v.Args[0], am)
	case v.Op.IsElementwise() && v.Op != ssa.OpMap:
		op := LoopOp{Op: v.Op, Type: v.Shape.Elem, Value: v}
		for i, a := range v.Args {
			am, _ := operandMap(v, i, m)
			if a.Shape.IsScalar() {
				am = indexMap{}
			}
			j, err := b.node(a, am)
			if err != nil {
				return 0, err
			}
			op.Args = append(op.Args, j)
		}
		return b.emit(op), nil
	}
	return 0, fmt.Errorf("%s cannot be computed inside a loop", v.Op)
}

func indexOfValue(vs []*ssa.Value, v *ssa.Value) int {
	for i, w := range vs {
		if w == v {
			return i
		}
	}
	return -1
}
