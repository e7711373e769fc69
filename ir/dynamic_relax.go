package ir

import (
	"fmt"
	"slices"
)

// DynamicDimension names one dimension of an entry parameter that is to
// accept every size up to Bound at run time.
type DynamicDimension struct {
	Param, Dim, Bound int
}

// RelaxDimensions returns a copy of m in which each listed dimension of an
// entry parameter is a bounded dynamic dimension (`f32[<=64,784]`), and
// every shape that follows from it is re-derived, as if the module had been
// exported with that dimension bounded: the dimensions that carry the same
// size (through elementwise ops, broadcasts, transposes, dot batch, free and
// contracting dimensions, reductions, concatenation along other dimensions,
// while/conditional/call boundaries, …) take the bound scaled as they were
// (a reshape merging the dimension with others of total size 128 gets 128
// times the bound), and are dynamic where a run-time size reaches them;
// dimensions built at full size (a broadcast of a bias along the batch, an
// iota) become static at the bound.
//
// A module whose program fixes the size elsewhere cannot be relaxed, and
// the error names the instruction: a constant or a parameter not listed
// that has the dimension, a slice, pad, dynamic-slice or custom call along
// it, a reshape that splits it unevenly, or two listed dimensions that meet
// with different bounds.
func RelaxDimensions(m *Module, dims []DynamicDimension) (*Module, error) {
	if m.Entry == nil {
		return nil, fmt.Errorf("relax: the module has no entry computation")
	}
	out := m.Clone()
	r := &relaxer{m: out, parent: map[dimNode]dimNode{}, sym: map[dimNode]int{}}
	for i, d := range dims {
		if d.Param < 0 || d.Param >= len(out.Entry.Parameters) {
			return nil, fmt.Errorf("relax: parameter %d does not exist; the entry computation has %d parameters", d.Param, len(out.Entry.Parameters))
		}
		p := out.Entry.Parameters[d.Param]
		if !p.Shape.IsArray() || d.Dim < 0 || d.Dim >= p.Shape.Rank() {
			return nil, fmt.Errorf("relax: parameter %d (%s) has shape %s, which has no dimension %d", d.Param, p.Name, human(p.Shape), d.Dim)
		}
		if d.Bound < 1 {
			return nil, fmt.Errorf("relax: dimension %d of parameter %d (%s): bound %d must be at least 1", d.Dim, d.Param, p.Name, d.Bound)
		}
		for _, e := range dims[:i] {
			if e.Param == d.Param && e.Dim == d.Dim {
				return nil, fmt.Errorf("relax: dimension %d of parameter %d (%s) is listed twice", d.Dim, d.Param, p.Name)
			}
		}
		r.syms = append(r.syms, relaxSym{dim: d, size: p.Shape.Dims[d.Dim], param: p})
	}
	for _, c := range out.Computations {
		for _, in := range c.Instructions {
			if err := r.edges(in); err != nil {
				return nil, fmt.Errorf("relax: %s (%v): %w", in.Name, in.Opcode, err)
			}
		}
	}
	for i, s := range r.syms {
		n := r.find(dimNode{s.param, 0, s.dim.Dim})
		if j, ok := r.sym[n]; ok {
			o := r.syms[j]
			if o.dim.Bound != s.dim.Bound || o.size != s.size {
				return nil, fmt.Errorf("relax: dimension %d of parameter %d (%s, bound %d) and dimension %d of parameter %d (%s, bound %d) must have the same size, but differ in bound or exported size",
					s.dim.Dim, s.dim.Param, s.param.Name, s.dim.Bound, o.dim.Dim, o.dim.Param, o.param.Name, o.dim.Bound)
			}
			continue
		}
		r.sym[n] = i
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	if err := r.reshape(); err != nil {
		return nil, err
	}
	if err := out.Verify(); err != nil {
		return nil, fmt.Errorf("relax: the relaxed module does not verify: %w", err)
	}
	return out, nil
}

// relaxSym is one listed dimension: its size as exported and its parameter.
type relaxSym struct {
	dim   DynamicDimension
	size  int
	param *Instruction
}

// dimNode is one dimension of one array leaf of an instruction.
type dimNode struct {
	in        *Instruction
	leaf, dim int
}

// relaxer holds the classes of dimensions that carry the same size (a
// union-find) and which listed dimension, if any, each class carries.
type relaxer struct {
	m      *Module
	syms   []relaxSym
	parent map[dimNode]dimNode
	sym    map[dimNode]int // class root → index in syms
	// consumed marks operand dimensions an instruction's rule accounts
	// for; any other operand dimension carrying a run-time size is an error.
	consumed map[dimNode]map[*Instruction]bool
	flags    map[*Instruction][][]bool // callee parameters: dynamic flags per leaf
	orig     map[*Instruction]Shape    // every instruction's shape as written
}

func (r *relaxer) find(n dimNode) dimNode {
	p, ok := r.parent[n]
	if !ok || p == n {
		return n
	}
	root := r.find(p)
	r.parent[n] = root
	return root
}

func (r *relaxer) union(a, b dimNode) {
	for _, n := range []dimNode{a, b} {
		if _, ok := r.parent[n]; !ok {
			r.parent[n] = n
		}
	}
	ra, rb := r.find(a), r.find(b)
	if ra != rb {
		r.parent[ra] = rb
	}
}

// symOf returns the listed dimension a node carries, or -1.
func (r *relaxer) symOf(n dimNode) int {
	if i, ok := r.sym[r.find(n)]; ok {
		return i
	}
	return -1
}

// leaves flattens a shape into its array leaves, depth first (a token or an
// array is one leaf).
func leaves(s Shape) []Shape {
	if !s.IsTuple() {
		return []Shape{s}
	}
	var out []Shape
	for _, e := range s.Tuple {
		out = append(out, leaves(e)...)
	}
	return out
}

// use records that instruction in accounts for operand dimension n.
func (r *relaxer) use(in *Instruction, n dimNode) {
	if r.consumed == nil {
		r.consumed = map[dimNode]map[*Instruction]bool{}
	}
	if r.consumed[n] == nil {
		r.consumed[n] = map[*Instruction]bool{}
	}
	r.consumed[n][in] = true
}

// same joins dimension ad of leaf al of a with dimension bd of leaf bl of b;
// when a is an operand of in, in accounts for it.
func (r *relaxer) same(in, a *Instruction, al, ad int, b *Instruction, bl, bd int) {
	na, nb := dimNode{a, al, ad}, dimNode{b, bl, bd}
	r.union(na, nb)
	if a != in {
		r.use(in, na)
	}
	if b != in {
		r.use(in, nb)
	}
}

// sameLeaves joins every dimension of every leaf of a with b's (same
// structure), starting at leaf offsets ao and bo.
func (r *relaxer) sameLeaves(in, a *Instruction, ao int, as Shape, b *Instruction, bo int) {
	for i, l := range leaves(as) {
		for d := range l.Dims {
			r.same(in, a, ao+i, d, b, bo+i, d)
		}
	}
}

// sameDims joins all dimensions of array operand o with in's (same rank).
func (r *relaxer) sameDims(in, o *Instruction) {
	if !o.Shape.IsArray() || !in.Shape.IsArray() || o.Shape.Rank() != in.Shape.Rank() {
		return
	}
	for d := range o.Shape.Dims {
		r.same(in, o, 0, d, in, 0, d)
	}
}

// leafOffset is the index of the first leaf of element i of tuple shape s.
func leafOffset(s Shape, i int) int {
	n := 0
	for _, e := range s.Tuple[:i] {
		n += len(leaves(e))
	}
	return n
}

// edges joins the dimensions of in's operands and result that carry the
// same size.
func (r *relaxer) edges(in *Instruction) error {
	ops := in.Operands
	switch op := in.Opcode; {
	case op == OpParameter || op == OpConstant || op == OpIota:
	case op.IsElementwise() || op == OpConvert || op == OpCopy || op == OpReducePrecision || op == OpClamp ||
		op == OpSelect || op == OpMap || op == OpReverse || op == OpBatchNormInference || op == OpStochasticConvert ||
		op == OpAllReduce || op == OpCollectivePermute:
		for _, o := range ops {
			r.sameDims(in, o)
		}
	case op == OpBitcastConvert:
		if len(ops) == 1 && ops[0].Shape.Rank() == in.Shape.Rank() {
			r.sameDims(in, ops[0])
		}
	case op == OpTuple:
		for i, o := range ops {
			r.sameLeaves(in, o, 0, o.Shape, in, leafOffset(in.Shape, i))
		}
	case op == OpGetTupleElement:
		r.sameLeaves(in, ops[0], leafOffset(ops[0].Shape, in.TupleIndex), in.Shape, in, 0)
		for i, l := range leaves(ops[0].Shape) {
			for d := range l.Dims {
				r.use(in, dimNode{ops[0], i, d})
			}
		}
	case op == OpOptimizationBarrier || op == OpDomain:
		r.sameLeaves(in, ops[0], 0, ops[0].Shape, in, 0)
	case op == OpAddDependency:
		r.sameLeaves(in, ops[0], 0, ops[0].Shape, in, 0)
		for i, l := range leaves(ops[1].Shape) {
			for d := range l.Dims {
				r.use(in, dimNode{ops[1], i, d})
			}
		}
	case op == OpBroadcast:
		for k, d := range in.Dimensions {
			if ops[0].Shape.Dims[k] == in.Shape.Dims[d] {
				r.same(in, ops[0], 0, k, in, 0, d)
			}
		}
	case op == OpTranspose:
		for j, d := range in.Dimensions {
			r.same(in, ops[0], 0, d, in, 0, j)
		}
	case op == OpReshape:
		for _, g := range reshapeGroups(ops[0].Shape.Dims, in.Shape.Dims) {
			if len(g.in) > 0 && len(g.out) > 0 {
				r.same(in, ops[0], 0, g.in[0], in, 0, g.out[0])
			}
		}
	case op == OpDot:
		if in.DotDims == nil {
			return nil
		}
		l, rr := ops[0].Shape, ops[1].Shape
		dn := in.DotDims
		for i := range dn.LhsBatch {
			r.same(in, ops[0], 0, dn.LhsBatch[i], in, 0, i)
			r.same(in, ops[1], 0, dn.RhsBatch[i], in, 0, i)
		}
		for i := range dn.LhsContracting {
			r.same(in, ops[0], 0, dn.LhsContracting[i], ops[1], 0, dn.RhsContracting[i])
		}
		o := len(dn.LhsBatch)
		for d := range l.Dims {
			if !slices.Contains(dn.LhsBatch, d) && !slices.Contains(dn.LhsContracting, d) {
				r.same(in, ops[0], 0, d, in, 0, o)
				o++
			}
		}
		for d := range rr.Dims {
			if !slices.Contains(dn.RhsBatch, d) && !slices.Contains(dn.RhsContracting, d) {
				r.same(in, ops[1], 0, d, in, 0, o)
				o++
			}
		}
	case op == OpReduce:
		n := len(ops) / 2
		outLeaves := leaves(in.Shape)
		for i := 0; i < n; i++ {
			x := ops[i]
			if i > 0 {
				for d := range x.Shape.Dims {
					r.same(in, ops[0], 0, d, x, 0, d)
				}
			}
			o := 0
			for d := range x.Shape.Dims {
				if slices.Contains(in.Dimensions, d) {
					r.use(in, dimNode{x, 0, d})
					continue
				}
				if i < len(outLeaves) {
					r.same(in, x, 0, d, in, i, o)
				}
				o++
			}
		}
	case op == OpReduceWindow:
		if in.Window == nil {
			return nil
		}
		n := len(ops) / 2
		for i := 0; i < n; i++ {
			for d, w := range in.Window.Dims {
				if w.Size == 1 && max(w.Stride, 1) == 1 && w.PadLow == 0 && w.PadHigh == 0 && max(w.BaseDilation, 1) == 1 && max(w.WindowDilation, 1) == 1 {
					r.same(in, ops[i], 0, d, in, i, d)
				}
			}
		}
	case op == OpSlice:
		for d, s := range in.Slice {
			if s.Start == 0 && s.Limit == ops[0].Shape.Dims[d] && max(s.Stride, 1) == 1 {
				r.same(in, ops[0], 0, d, in, 0, d)
			}
		}
	case op == OpConcatenate:
		for _, o := range ops {
			for d := range o.Shape.Dims {
				if len(in.Dimensions) == 1 && d != in.Dimensions[0] {
					r.same(in, o, 0, d, in, 0, d)
				}
			}
		}
	case op == OpPad:
		for d, p := range in.Padding {
			if p == (PaddingDim{}) {
				r.same(in, ops[0], 0, d, in, 0, d)
			}
		}
	case op == OpSort:
		for i, o := range ops {
			for d := range o.Shape.Dims {
				r.same(in, o, 0, d, in, i, d)
			}
		}
	case op == OpTopK:
		x := ops[0].Shape
		for d := 0; d < x.Rank()-1; d++ {
			r.same(in, ops[0], 0, d, in, 0, d)
			r.same(in, ops[0], 0, d, in, 1, d)
		}
	case op == OpFft:
		x := ops[0].Shape
		for d := 0; d < x.Rank()-len(in.FFTLength); d++ {
			r.same(in, ops[0], 0, d, in, 0, d)
		}
	case op == OpCholesky:
		for d := 0; d < in.Shape.Rank()-2; d++ {
			r.same(in, ops[0], 0, d, in, 0, d)
		}
	case op == OpTriangularSolve:
		for d := 0; d < in.Shape.Rank()-2; d++ {
			r.same(in, ops[0], 0, d, in, 0, d)
			r.same(in, ops[1], 0, d, in, 0, d)
		}
	case op == OpGather:
		g := in.GatherDims
		if g == nil {
			return nil
		}
		idx := ops[1].Shape
		var batch []int
		for d := range idx.Dims {
			if d != g.IndexVectorDim {
				batch = append(batch, d)
			}
		}
		b := 0
		for d := range in.Shape.Dims {
			if slices.Contains(g.OffsetDims, d) {
				continue
			}
			if b < len(batch) {
				r.same(in, ops[1], 0, batch[b], in, 0, d)
			}
			b++
		}
	case op == OpConvolution:
		if cd := in.ConvDims; cd != nil {
			r.same(in, ops[0], 0, cd.InputBatch, in, 0, cd.OutputBatch)
		}
	case op == OpGetDimensionSize:
		for d := range ops[0].Shape.Dims {
			r.use(in, dimNode{ops[0], 0, d})
		}
	case op == OpWhile:
		init := ops[0]
		for _, c := range []*Computation{in.Condition, in.Body} {
			if c != nil && len(c.Parameters) == 1 {
				r.sameLeaves(in, init, 0, init.Shape, c.Parameters[0], 0)
			}
		}
		if in.Body != nil && in.Body.Root != nil {
			r.sameLeaves(in, in.Body.Root, 0, in.Body.Root.Shape, in, 0)
			r.sameLeaves(in, init, 0, init.Shape, in, 0)
		}
	case op == OpConditional:
		for i, b := range in.Branches {
			if i+1 < len(ops) && len(b.Parameters) == 1 {
				r.sameLeaves(in, ops[i+1], 0, ops[i+1].Shape, b.Parameters[0], 0)
			}
			if b.Root != nil {
				r.sameLeaves(in, b.Root, 0, b.Root.Shape, in, 0)
			}
		}
	case op == OpCall || op == OpFusion:
		c := in.ToApply
		if op == OpFusion {
			c = in.Calls
		}
		if c == nil {
			return nil
		}
		for i, o := range ops {
			if i < len(c.Parameters) {
				r.sameLeaves(in, o, 0, o.Shape, c.Parameters[i], 0)
			}
		}
		if c.Root != nil {
			r.sameLeaves(in, c.Root, 0, c.Root.Shape, in, 0)
		}
	}
	return nil
}

// reshapeGroup is a run of operand dimensions and a run of result
// dimensions of a reshape with the same element count.
type reshapeGroup struct{ in, out []int }

// reshapeGroups splits a reshape into its smallest groups (XLA's
// CommonFactors); a size-1 dimension on one side alone is a group with an
// empty other side, except that 1s at matching positions pair up.
func reshapeGroups(in, out []int) []reshapeGroup {
	var gs []reshapeGroup
	i, j := 0, 0
	for i < len(in) || j < len(out) {
		switch {
		case i < len(in) && j < len(out) && in[i] == 1 && out[j] == 1:
			gs = append(gs, reshapeGroup{[]int{i}, []int{j}})
			i, j = i+1, j+1
			continue
		case i < len(in) && in[i] == 1:
			gs = append(gs, reshapeGroup{in: []int{i}})
			i++
			continue
		case j < len(out) && out[j] == 1:
			gs = append(gs, reshapeGroup{out: []int{j}})
			j++
			continue
		}
		g := reshapeGroup{}
		pa, pb := 1, 1
		if i < len(in) {
			pa *= in[i]
			g.in = append(g.in, i)
			i++
		}
		if j < len(out) {
			pb *= out[j]
			g.out = append(g.out, j)
			j++
		}
		for pa != pb && (i < len(in) || j < len(out)) {
			if (pa < pb || j >= len(out)) && i < len(in) {
				pa *= in[i]
				g.in = append(g.in, i)
				i++
			} else {
				pb *= out[j]
				g.out = append(g.out, j)
				j++
			}
		}
		gs = append(gs, g)
	}
	// A relaxed size-1 dimension alone on its side merges into the next
	// group (a batch of 1 reshaped away is the batch merged with the next
	// dimension).
	var merged []reshapeGroup
	for k := 0; k < len(gs); k++ {
		g := gs[k]
		if len(g.out) == 0 && k+1 < len(gs) && len(gs[k+1].in) > 0 && len(gs[k+1].out) > 0 {
			gs[k+1].in = append(g.in, gs[k+1].in...)
			continue
		}
		if len(g.in) == 0 && k+1 < len(gs) && len(gs[k+1].in) > 0 && len(gs[k+1].out) > 0 {
			gs[k+1].out = append(g.out, gs[k+1].out...)
			continue
		}
		merged = append(merged, g)
	}
	return merged
}

// check refuses the dimensions that carry a listed size where the program
// fixes it: constants, parameters not listed, explicit sizes the relaxation
// cannot scale, and operand dimensions an instruction does not account for.
func (r *relaxer) check() error {
	size := func(n dimNode) int { return leaves(n.in.Shape)[n.leaf].Dims[n.dim] }
	for n := range r.parent {
		s := r.symOf(n)
		if s < 0 {
			continue
		}
		sym := r.syms[s]
		in := n.in
		where := func() string {
			return fmt.Sprintf("%s (%v) of shape %s, dimension %d", in.Name, in.Opcode, human(in.Shape), n.dim)
		}
		if size(n)%sym.size != 0 {
			return fmt.Errorf("relax: %s carries dimension %d of parameter %s (size %d) as size %d, not a multiple of it", where(), sym.dim.Dim, sym.param.Name, sym.size, size(n))
		}
		switch in.Opcode {
		case OpConstant:
			return fmt.Errorf("relax: constant %s has the size of dimension %d of parameter %s; a constant cannot follow a run-time size", where(), sym.dim.Dim, sym.param.Name)
		case OpParameter:
			if in.Parent == r.m.Entry && !r.listed(in, n.dim) {
				return fmt.Errorf("relax: parameter %s must have the same size as dimension %d of parameter %s; relax it too", where(), sym.dim.Dim, sym.param.Name)
			}
		case OpCustomCall, OpInfeed, OpRecv, OpRecvDone, OpSend, OpSendDone, OpRngGetAndUpdateState:
			return fmt.Errorf("relax: %s has the size of dimension %d of parameter %s, which Kiln cannot change", where(), sym.dim.Dim, sym.param.Name)
		}
	}
	// Operand dimensions carrying a listed size must be accounted for.
	for _, c := range r.m.Computations {
		for _, in := range c.Instructions {
			for _, o := range in.Operands {
				for li, l := range leaves(o.Shape) {
					for d := range l.Dims {
						n := dimNode{o, li, d}
						s := r.symOf(n)
						if s < 0 || r.consumed[n][in] {
							continue
						}
						sym := r.syms[s]
						return fmt.Errorf("relax: %s (%v) uses dimension %d of %s, which carries the size of dimension %d of parameter %s, in a way that fixes its size (a slice, pad, window or gather along it, or an op Kiln cannot relax)",
							in.Name, in.Opcode, d, o.Name, sym.dim.Dim, sym.param.Name)
					}
				}
			}
			if in.Opcode == OpReshape {
				if err := r.checkReshape(in); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkReshape requires a group of a reshape that carries a listed size to
// carry it in its leading dimension on both sides and nowhere else.
func (r *relaxer) checkReshape(in *Instruction) error {
	x := in.Operands[0]
	for _, g := range reshapeGroups(x.Shape.Dims, in.Shape.Dims) {
		for k, d := range g.in {
			if s := r.symOf(dimNode{x, 0, d}); s >= 0 && (k > 0 || len(g.out) == 0) {
				return fmt.Errorf("relax: reshape %s of %s to %s splits dimension %d, which carries the size of dimension %d of parameter %s, unevenly",
					in.Name, human(x.Shape), human(in.Shape), d, r.syms[s].dim.Dim, r.syms[s].param.Name)
			}
		}
		for k, d := range g.out {
			if s := r.symOf(dimNode{in, 0, d}); s >= 0 && (k > 0 || len(g.in) == 0) {
				return fmt.Errorf("relax: reshape %s of %s to %s makes dimension %d carry the size of dimension %d of parameter %s in a way Kiln cannot follow",
					in.Name, human(x.Shape), human(in.Shape), d, r.syms[s].dim.Dim, r.syms[s].param.Name)
			}
		}
	}
	return nil
}

func (r *relaxer) listed(p *Instruction, dim int) bool {
	for _, s := range r.syms {
		if s.param == p && s.dim.Dim == dim {
			return true
		}
	}
	return false
}

// newDims is the relaxed sizes of leaf l of in.
func (r *relaxer) newDims(in *Instruction, leaf int, l Shape) []int {
	dims := slices.Clone(l.Dims)
	for d := range dims {
		if s := r.symOf(dimNode{in, leaf, d}); s >= 0 {
			sym := r.syms[s]
			dims[d] = dims[d] / sym.size * sym.dim.Bound
		}
	}
	return dims
}

// reshape rewrites every shape (and the attributes holding sizes) with the
// relaxed sizes, then derives which dimensions are dynamic by running shape
// inference forward until nothing changes (callee parameters take the
// dynamic dimensions of their callers' operands).
func (r *relaxer) reshape() error {
	orig := map[*Instruction]Shape{}
	r.orig = orig
	for _, c := range r.m.Computations {
		for _, in := range c.Instructions {
			orig[in] = in.Shape.Clone()
		}
	}
	// Sizes first, flags as originally written.
	for _, c := range r.m.Computations {
		for _, in := range c.Instructions {
			in.Shape = r.scaled(in, orig[in])
			if in.Opcode == OpSlice {
				x := orig[in.Operands[0]]
				sl := slices.Clone(in.Slice)
				for d := range sl {
					if sl[d].Limit == x.Dims[d] {
						sl[d].Limit = in.Operands[0].Shape.Dims[d]
					}
				}
				in.Slice = sl
			}
		}
	}
	r.flags = map[*Instruction][][]bool{}
	for round := 0; ; round++ {
		if round > 16 {
			return fmt.Errorf("relax: the dynamic dimensions of the module do not settle")
		}
		changed := false
		for _, c := range r.m.Computations {
			for _, in := range c.Instructions {
				s, err := r.infer(in, orig[in])
				if err != nil {
					return fmt.Errorf("relax: %s (%v): %w", in.Name, in.Opcode, err)
				}
				if !s.Equal(in.Shape) {
					in.Shape = s
					changed = true
				}
				if r.propagate(in) {
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	if l := r.m.EntryLayout; l != nil {
		for i, p := range r.m.Entry.Parameters {
			if i < len(l.Parameters) {
				l.Parameters[i] = withLayoutsOf(p.Shape, l.Parameters[i])
			}
		}
		l.Result = withLayoutsOf(r.m.Entry.Root.Shape, l.Result)
	}
	return nil
}

// scaled is shape s of in with the relaxed sizes.
func (r *relaxer) scaled(in *Instruction, s Shape) Shape {
	i := 0
	var walk func(s Shape) Shape
	walk = func(s Shape) Shape {
		if s.IsTuple() {
			out := s.Clone()
			for k, e := range s.Tuple {
				out.Tuple[k] = walk(e)
			}
			return out
		}
		out := s.Clone()
		if out.IsArray() {
			out.Dims = r.newDims(in, i, s)
		}
		i++
		return out
	}
	return walk(s)
}

// infer derives in's shape with its dynamic dimensions from its operands'.
func (r *relaxer) infer(in *Instruction, orig Shape) (Shape, error) {
	cur := in.Shape
	setFlags := func(flags []bool) Shape {
		s := cur.Clone()
		for d, f := range flags {
			if f {
				if s.Dynamic == nil {
					s.Dynamic = make([]bool, s.Rank())
				}
				s.Dynamic[d] = true
			}
		}
		return s
	}
	switch in.Opcode {
	case OpParameter:
		if in.Parent == r.m.Entry {
			flags := dynamicFlags(orig)
			for _, s := range r.syms {
				if s.param == in {
					flags[s.dim.Dim] = true
				}
			}
			return setFlags(flags), nil
		}
		fl := r.flags[in]
		if fl == nil {
			return cur, nil
		}
		out := cur.Clone()
		applyLeafFlags(&out, fl)
		return out, nil
	case OpConstant, OpIota, OpRng, OpRngBitGenerator, OpCustomCall:
		return cur, nil
	case OpBroadcast:
		flags := dynamicFlags(orig)
		x := in.Operands[0].Shape
		for k, d := range in.Dimensions {
			flags[d] = flags[d] || x.IsDynamicDim(k)
		}
		return setFlags(flags), nil
	case OpReshape:
		flags := dynamicFlags(orig)
		x := in.Operands[0].Shape
		for _, g := range reshapeGroups(r.orig[in.Operands[0]].Dims, orig.Dims) {
			dyn := false
			for _, d := range g.in {
				dyn = dyn || x.IsDynamicDim(d)
			}
			if dyn && len(g.out) > 0 {
				flags[g.out[0]] = true
			}
		}
		return setFlags(flags), nil
	}
	s, hasRule, err := InferInstructionShape(in)
	if err != nil {
		return Shape{}, err
	}
	if !hasRule {
		return cur, nil
	}
	if !compatible(s, cur) {
		return Shape{}, fmt.Errorf("relaxed shape %s differs from the inferred %s", human(cur), human(s))
	}
	return withLayoutsOf(s, cur), nil
}

// propagate hands in's operands' dynamic dimensions to the parameters of
// the computations it calls, reporting whether any changed.
func (r *relaxer) propagate(in *Instruction) bool {
	changed := false
	give := func(p *Instruction, s Shape) {
		if p == nil {
			return
		}
		cur := r.flags[p]
		ls := leaves(s)
		if cur == nil {
			cur = make([][]bool, len(ls))
		}
		for i, l := range ls {
			if i >= len(cur) {
				break
			}
			if cur[i] == nil {
				cur[i] = make([]bool, l.Rank())
			}
			for d := range l.Dims {
				if d < len(cur[i]) && l.IsDynamicDim(d) && !cur[i][d] {
					cur[i][d] = true
					changed = true
				}
			}
		}
		r.flags[p] = cur
	}
	param := func(c *Computation, i int) *Instruction {
		if c == nil || i >= len(c.Parameters) {
			return nil
		}
		return c.Parameters[i]
	}
	switch in.Opcode {
	case OpWhile:
		for _, c := range []*Computation{in.Condition, in.Body} {
			give(param(c, 0), in.Operands[0].Shape)
			if in.Body != nil && in.Body.Root != nil {
				give(param(c, 0), in.Body.Root.Shape)
			}
		}
	case OpConditional:
		for i, b := range in.Branches {
			if i+1 < len(in.Operands) {
				give(param(b, 0), in.Operands[i+1].Shape)
			}
		}
	case OpCall, OpFusion:
		c := in.ToApply
		if in.Opcode == OpFusion {
			c = in.Calls
		}
		for i, o := range in.Operands {
			give(param(c, i), o.Shape)
		}
	}
	return changed
}

// applyLeafFlags marks the dynamic dimensions of s's leaves.
func applyLeafFlags(s *Shape, flags [][]bool) {
	i := 0
	var walk func(s *Shape)
	walk = func(s *Shape) {
		if s.IsTuple() {
			for k := range s.Tuple {
				walk(&s.Tuple[k])
			}
			return
		}
		if i < len(flags) && s.IsArray() {
			for d, f := range flags[i] {
				if f && d < s.Rank() {
					if s.Dynamic == nil {
						s.Dynamic = make([]bool, s.Rank())
					}
					s.Dynamic[d] = true
				}
			}
		}
		i++
	}
	walk(s)
}

// withLayoutsOf is s with the layouts of t's leaves (same structure).
func withLayoutsOf(s, t Shape) Shape {
	out := s.Clone()
	if out.IsTuple() && t.IsTuple() && len(out.Tuple) == len(t.Tuple) {
		for i := range out.Tuple {
			out.Tuple[i] = withLayoutsOf(out.Tuple[i], t.Tuple[i])
		}
		return out
	}
	if t.Layout != nil && out.IsArray() && t.Rank() == out.Rank() {
		out.Layout = t.Layout
	}
	return out
}
