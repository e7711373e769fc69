package sched

import (
	"fmt"

	"github.com/kilnml/kiln/affine"
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
	// Rows: the program folds rows (it has OpReduce ops, see rows.go): its
	// last dimension is a row, which the runtime computes whole, each
	// reduction's value then being one scalar per row.
	Rows bool
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
	// Reducer (OpReduce) is the standard reducer folding a row: Args[0] is
	// the row's elements (over the program's last dimension), Args[1] the
	// initial value; the result is the same for the whole row.
	Reducer ssa.Op
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

// Maps from a loop's output index to the index of each value it reads are
// XLA indexing maps (package affine/indexing): the map of a value is the
// composition, from the loop's root down to the value, of each op's
// output-to-input map, simplified. A value can be read inside a loop only
// when that map is strided — every result a linear combination of the
// output's dimension variables, without floordiv, mod, range or runtime
// variables — which is what the op classes (OpClass) and the fusion
// decisions test.

// access turns a strided map onto a row-major array of shape s into
// element strides over the output, or false if m is not strided.
func access(m affine.IndexingMap, input int, s ir.Shape) (*Access, bool) {
	rows, consts, ok := stridedRows(m)
	if !ok {
		return nil, false
	}
	acc := &Access{Input: input, Strides: make([]int, m.NumDims())}
	stride := 1
	for j := s.Rank() - 1; j >= 0; j-- {
		for d := range acc.Strides {
			acc.Strides[d] += rows[j][d] * stride
		}
		acc.Offset += consts[j] * stride
		stride *= s.Dims[j]
	}
	// A dimension of size 1 has index 0: its stride moves nothing, and is
	// 0 whatever form the simplifier gave its coefficient.
	for d := range acc.Strides {
		if b := m.DimBound(d); b.Lo == b.Hi {
			acc.Strides[d] = 0
		}
	}
	return acc, true
}

// iotaAccess is the access whose value is the iota of v along its iota
// dimension, reached from the output through m.
func iotaAccess(v *ssa.Value, m affine.IndexingMap) (*Access, bool) {
	rows, consts, ok := stridedRows(m)
	if !ok {
		return nil, false
	}
	d := v.Attrs.IotaDimension
	return &Access{Input: -1, Strides: rows[d], Offset: consts[d]}, true
}

// buildLoop derives the LoopProgram of a Loop kernel by walking from its
// root towards its inputs, carrying the map from the output index to each
// value's index. A value reached through different maps is computed once
// per map (it is elementwise, so recomputing it is cheap); a value reached
// twice through the same map is computed once.
//
// For a Loop kernel the program computes the root; for a Reduce kernel it
// computes the reduce's operand, over the operand's index space. It also
// returns, per input of k, the distinct maps the program reads it through.
func buildLoop(k *Kernel, cls classes) (*LoopProgram, [][]affine.IndexingMap, error) {
	b := &loopBuilder{k: k, cls: cls, inGroup: map[*ssa.Value]bool{}, memo: map[string]int{}, maps: make([][]affine.IndexingMap, len(k.Inputs)), mapSeen: map[string]bool{}}
	for _, v := range k.Values {
		b.inGroup[v] = true
	}
	root := loopRoot(k.Root)
	if !b.inGroup[root] && root != k.Root {
		return nil, nil, fmt.Errorf("reduce operand %v is not fused", root)
	}
	b.prog.Dims = append([]int(nil), root.Shape.Dims...)
	if _, err := b.node(root, identityMap(root.Shape.Dims)); err != nil {
		return nil, nil, err
	}
	return &b.prog, b.maps, nil
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
	cls     classes
	inGroup map[*ssa.Value]bool
	memo    map[string]int
	prog    LoopProgram
	maps    [][]affine.IndexingMap // per input, the maps it is read through
	mapSeen map[string]bool
}

func (b *loopBuilder) emit(op LoopOp) int {
	b.prog.Ops = append(b.prog.Ops, op)
	return len(b.prog.Ops) - 1
}

func (b *loopBuilder) node(v *ssa.Value, m affine.IndexingMap) (int, error) {
	key := fmt.Sprint(v.ID, " ", m.String())
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

func (b *loopBuilder) build(v *ssa.Value, m affine.IndexingMap) (int, error) {
	if !b.inGroup[v] {
		in := indexOfValue(b.k.Inputs, v)
		if v.Shape.IsScalar() && v.IsConstant() {
			return b.emit(LoopOp{Op: ssa.OpConstant, Type: v.Shape.Elem, Scalar: v.Attrs.Literal}), nil
		}
		if in < 0 || !v.Shape.IsArray() {
			return 0, fmt.Errorf("loop reads %v (%s), which is not one of its inputs", v, v.Op)
		}
		acc, ok := access(m, in, v.Shape)
		if !ok {
			return 0, fmt.Errorf("loop reads %v (%s) through the map %v, which is not strided", v, v.Op, m)
		}
		if key := fmt.Sprint(in, " ", m.String()); !b.mapSeen[key] {
			b.mapSeen[key] = true
			b.maps[in] = append(b.maps[in], m)
		}
		return b.emit(LoopOp{Op: ssa.OpParameter, Type: v.Shape.Elem, Access: acc}), nil
	}
	switch {
	case v.Op == ssa.OpConstant && v.Shape.IsScalar() && v.Attrs.Literal != nil:
		return b.emit(LoopOp{Op: ssa.OpConstant, Type: v.Shape.Elem, Scalar: v.Attrs.Literal, Value: v}), nil
	case v.Op == ssa.OpIota:
		acc, ok := iotaAccess(v, m)
		if !ok {
			return 0, fmt.Errorf("iota reached through the map %v, which is not strided", m)
		}
		return b.emit(LoopOp{Op: ssa.OpIota, Type: v.Shape.Elem, Access: acc, Value: v}), nil
	case v.Op == ssa.OpReduce:
		return b.rowReduce(v, m)
	case b.cls.of(v) == Movement:
		am, ok := operandMap(v, 0, m)
		if !ok {
			return 0, fmt.Errorf("%s has no indexing map", v.Op)
		}
		return b.node(v.Args[0], am)
	case b.cls.of(v) == Elementwise:
		op := LoopOp{Op: v.Op, Type: v.Shape.Elem, Value: v}
		for i, a := range v.Args {
			am, ok := operandMap(v, i, m)
			if !ok {
				return 0, fmt.Errorf("%s operand %d has no indexing map", v.Op, i)
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
