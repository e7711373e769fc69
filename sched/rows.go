package sched

// The rows stage fuses a chain of kernels over the same rows into one loop
// that computes each row whole: reductions over the innermost dimension
// whose results are broadcast back along the row (a layer-norm's mean and
// variance, a softmax's maximum and sum), the small loops that turn those
// row statistics into scalars (divide by the count, add ε, square root) and
// the elementwise loops over the rows that read them. Run separately, each
// kernel streams the whole tensor through memory and the intermediates
// (x − mean, …) are written out in full; fused, the program computes a row
// while it is in the first-level cache: one read of the input, one write of
// the result, every statistic a scalar of its row.
//
// The fused kernel is a Loop kernel whose LoopProgram has Rows set and an
// OpReduce op per reduction (its operand read over the row, its value the
// same for every element of the row). The runtime's narrow loop runs these
// programs, and the float32 paths have their own row kernels (softmax,
// layer-norm), so the stage fuses only chains that hold a bfloat16 or
// binary16 value, of the loop's element types.
//
// A row program pays off where the runtime runs its row's arithmetic as
// fused passes rather than op by op: the bfloat16 sum of squared
// deviations of a layer-norm (bf16(x − s)², widened and summed) and the
// deviations divided or scaled by a row scalar. Elsewhere (a softmax's
// exponentials, binary16 rows) the per-op row program computes no faster
// than the separate kernels streaming through memory, so the stage forms
// only programs holding such a sum (sumsSquaredDeviations).

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// MaxRowLen bounds the rows a row program computes whole (the runtime holds
// each value of a row in a register of that many elements).
const MaxRowLen = 1 << 14

// fuseRows is the rows stage.
func fuseRows(s *scheduler) error {
	if slices.Contains(s.opts.Disable, "fusion") {
		return nil // one value per kernel without fusion
	}
	f := s.plan.Func
	users := f.Users()
	byRoot := make(map[*ssa.Value]*Kernel, len(s.plan.Kernels))
	computedIn := map[*ssa.Value][]*Kernel{}
	for _, k := range s.plan.Kernels {
		byRoot[k.Root] = k
		for _, v := range k.Values {
			computedIn[v] = append(computedIn[v], k)
		}
	}
	gone := map[*Kernel]bool{}
	// From the last kernel to the first: the last loop of a chain takes the
	// whole chain.
	for i := len(s.plan.Kernels) - 1; i >= 0; i-- {
		k := s.plan.Kernels[i]
		if gone[k] || k.Kind != Loop || k.Dequant != nil {
			continue
		}
		values, chain := s.rowChain(k, byRoot, computedIn, users, gone)
		if chain == nil {
			continue
		}
		for _, p := range chain {
			gone[p] = true
		}
		k.Values = values
	}
	kept := s.plan.Kernels[:0]
	for _, k := range s.plan.Kernels {
		if !gone[k] {
			kept = append(kept, k)
		}
	}
	s.plan.Kernels = kept
	return nil
}

// rowChain finds the kernels loop kernel k can compute row by row: the
// reductions and loops whose results only k's chain reads. It returns the
// fused kernel's values (in f's order) and the kernels it replaces, or nil
// when no chain with a row reduction forms.
func (s *scheduler) rowChain(k *Kernel, byRoot map[*ssa.Value]*Kernel, computedIn map[*ssa.Value][]*Kernel, users map[*ssa.Value][]*ssa.Value, gone map[*Kernel]bool) ([]*ssa.Value, []*Kernel) {
	refused := map[*Kernel]bool{}
	for {
		members := map[*ssa.Value]bool{}
		for _, v := range k.Values {
			members[v] = true
		}
		var chain []*Kernel
		through := map[*Kernel][]*ssa.Value{}
		for grew := true; grew; {
			grew = false
			for v := range members {
				for _, a := range v.Args {
					if members[a] {
						continue
					}
					p, via := producer(a, byRoot)
					if p == nil || p == k || gone[p] || refused[p] || !rowStage(p) {
						continue
					}
					chain = append(chain, p)
					through[p] = via
					for _, w := range p.Values {
						members[w] = true
					}
					for _, w := range via {
						members[w] = true
					}
					grew = true
				}
			}
		}
		if len(chain) == 0 {
			return nil, nil
		}
		// A kernel whose result is read outside the chain stays: every
		// user is computed by the chain's kernels only.
		inChain := map[*Kernel]bool{k: true}
		for _, p := range chain {
			inChain[p] = true
		}
		readOutside := func(w *ssa.Value) bool {
			if w == s.plan.Func.Root {
				return true
			}
			for _, u := range users[w] {
				if !members[u] {
					return true
				}
				for _, q := range computedIn[u] {
					if !inChain[q] {
						return true
					}
				}
			}
			return false
		}
		bad := false
		for _, p := range chain {
			for _, w := range append([]*ssa.Value{p.Root}, through[p]...) {
				if readOutside(w) {
					refused[p], bad = true, true
				}
			}
		}
		if bad {
			continue
		}
		values := make([]*ssa.Value, 0, len(members))
		for _, v := range s.plan.Func.Values {
			if members[v] && v != k.Root {
				values = append(values, v)
			}
		}
		values = append(values, k.Root)
		if !s.rowProgram(k.Root, values) {
			return nil, nil
		}
		return values, chain
	}
}

// producer returns the kernel computing a, following reshapes that keep
// the bytes (which need no kernel), and those reshapes.
func producer(a *ssa.Value, byRoot map[*ssa.Value]*Kernel) (*Kernel, []*ssa.Value) {
	var via []*ssa.Value
	for isByteReinterpretation(a) {
		via = append(via, a)
		a = a.Args[0]
	}
	return byRoot[a], via
}

// rowStage reports whether a kernel can join a row program: a loop, or a
// reduction of one operand by a standard reducer.
func rowStage(p *Kernel) bool {
	switch p.Kind {
	case Loop:
		return p.Dequant == nil
	case Reduce:
		v := p.Root
		if len(v.Args) != 2 || len(v.Funcs) != 1 {
			return false
		}
		_, ok := standardReducer(v.Funcs[0])
		return ok
	}
	return false
}

// rowProgram reports whether values, root last, form a row program the
// runtime runs: static arrays of float32, bfloat16, binary16 or PRED, one
// of them narrow, rows of at most MaxRowLen elements, a program that
// derives with at least one row reduction and at most maxFusedOps ops,
// one of them a bfloat16 sum of squared deviations.
func (s *scheduler) rowProgram(root *ssa.Value, values []*ssa.Value) bool {
	narrow := false
	for _, v := range values {
		if !v.Shape.IsArray() || !v.Shape.IsStatic() || !v.Shape.HasDefaultLayout() {
			return false
		}
		switch v.Shape.Elem {
		case ir.BF16, ir.F16:
			narrow = true
		case ir.F32, ir.PRED:
		default:
			return false
		}
	}
	if n := lastDim(root.Shape.Dims); !narrow || root.Shape.Rank() == 0 || n > MaxRowLen {
		return false
	}
	k := &Kernel{Kind: Loop, Root: root, Values: values}
	in := map[*ssa.Value]bool{}
	for _, v := range values {
		in[v] = true
	}
	seen := map[*ssa.Value]bool{}
	for _, v := range values {
		for _, a := range v.Args {
			if !in[a] && !seen[a] {
				seen[a] = true
				k.Inputs = append(k.Inputs, a)
			}
		}
	}
	lp, _, err := buildLoop(k, s.cls)
	return err == nil && lp.Rows && len(lp.Ops) <= maxFusedOps && sumsSquaredDeviations(lp)
}

// sumsSquaredDeviations reports whether a row program sums bfloat16
// squared deviations along its rows: a reduction by addition of the
// float32 widening of d·d, d a bfloat16 difference (layer-norm's
// variance), the chain the runtime runs as one fused pass.
func sumsSquaredDeviations(lp *LoopProgram) bool {
	for _, op := range lp.Ops {
		if op.Op != ssa.OpReduce || op.Reducer != ssa.OpAdd || len(op.Args) != 2 {
			continue
		}
		w := lp.Ops[op.Args[0]]
		if w.Op != ssa.OpConvert || w.Type != ir.F32 || len(w.Args) != 1 {
			continue
		}
		sq := lp.Ops[w.Args[0]]
		if sq.Op != ssa.OpMultiply || sq.Type != ir.BF16 || len(sq.Args) != 2 || sq.Args[0] != sq.Args[1] {
			continue
		}
		if d := lp.Ops[sq.Args[0]]; d.Op == ssa.OpSubtract && d.Type == ir.BF16 {
			return true
		}
	}
	return false
}

// rowReduce emits a reduction inside a row program: v reduces its
// operand's innermost dimension, which is the program's last dimension
// (the row), and m, the map from the program's index to v's, does not
// depend on the position in the row. The operand is then read at the
// row's index with the row position appended.
func (b *loopBuilder) rowReduce(v *ssa.Value, m affine.IndexingMap) (int, error) {
	r := len(b.prog.Dims)
	if len(v.Args) != 2 || len(v.Funcs) != 1 || r == 0 {
		return 0, errNotRowReduce(v)
	}
	red, ok := standardReducer(v.Funcs[0])
	x := v.Args[0].Shape
	if !ok || !x.IsArray() || x.Rank() == 0 || len(v.Attrs.Dimensions) != 1 || v.Attrs.Dimensions[0] != x.Rank()-1 ||
		x.Dims[x.Rank()-1] != b.prog.Dims[r-1] {
		return 0, errNotRowReduce(v)
	}
	// A narrow sum or product rounds at every step: only float32
	// accumulation, and the exact maximum and minimum, fold a row at once.
	switch t := v.Shape.Elem; {
	case t == ir.F32:
	case (t == ir.BF16 || t == ir.F16) && (red == ssa.OpMaximum || red == ssa.OpMinimum):
	default:
		return 0, errNotRowReduce(v)
	}
	rows, _, ok := stridedRows(m)
	if !ok {
		return 0, errNotRowReduce(v)
	}
	for _, row := range rows {
		if row[r-1] != 0 {
			return 0, errNotRowReduce(v)
		}
	}
	sizes := make([]int64, r)
	for i, d := range b.prog.Dims {
		sizes[i] = int64(d)
	}
	results := make([]affine.Expr, 0, m.NumResults()+1)
	for j := 0; j < m.NumResults(); j++ {
		results = append(results, m.Result(j))
	}
	xi, err := b.node(v.Args[0], affine.FromTensorSizes(append(results, affine.Dim(r-1)), sizes, nil))
	if err != nil {
		return 0, err
	}
	ii, err := b.node(v.Args[1], affine.FromTensorSizes(nil, sizes, nil))
	if err != nil {
		return 0, err
	}
	b.prog.Rows = true
	return b.emit(LoopOp{Op: ssa.OpReduce, Type: v.Shape.Elem, Args: []int{xi, ii}, Value: v, Reducer: red}), nil
}

func errNotRowReduce(v *ssa.Value) error {
	return fmt.Errorf("%v (%s) is not a reduction of the program's rows", v, v.Op)
}
