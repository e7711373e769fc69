package ir

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// scalarComputation builds (x, y) -> f(x, y) over scalars of type t in a
// sub-builder of parent.
func scalarComputation(t *testing.T, parent *Builder, name string, et ElementType, f func(b *Builder, x, y Op) Op) *Computation {
	t.Helper()
	sb := parent.CreateSubBuilder(name)
	x := sb.Parameter(0, Scalar(et), "x")
	y := sb.Parameter(1, Scalar(et), "y")
	f(sb, x, y)
	c, err := sb.Build()
	if err != nil {
		t.Fatalf("building %s: %v", name, err)
	}
	return c
}

func builderAddComputation(t *testing.T, b *Builder, et ElementType) *Computation {
	return scalarComputation(t, b, "add", et, func(b *Builder, x, y Op) Op { return b.Add(x, y) })
}

func builderMaxComputation(t *testing.T, b *Builder, et ElementType) *Computation {
	return scalarComputation(t, b, "max", et, func(b *Builder, x, y Op) Op { return b.Max(x, y) })
}

func opsOf(c *Computation, op Opcode) []*Instruction {
	var out []*Instruction
	for _, in := range c.Instructions {
		if in.Opcode == op {
			out = append(out, in)
		}
	}
	return out
}

func wantShape(t *testing.T, what string, o Op, want string) {
	t.Helper()
	if !o.Valid() {
		t.Fatalf("%s: invalid op (builder error: %v)", what, o.Builder().Err())
	}
	if got := human(ShapeOf(o)); got != want {
		t.Fatalf("%s: shape %s, want %s", what, got, want)
	}
}

func buildModule(t *testing.T, b *Builder) *Module {
	t.Helper()
	m, err := b.BuildModule()
	if err != nil {
		t.Fatalf("BuildModule: %v", err)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return m
}

// buildMLP builds a two-layer perceptron with a softmax head.
func buildMLP(t *testing.T) *Module {
	b := NewBuilder("mlp")
	x := b.Parameter(0, sh(F32, 8, 784), "x")
	w1 := b.Parameter(1, sh(F32, 784, 128), "w1")
	b1 := b.Parameter(2, sh(F32, 128), "b1")
	w2 := b.Parameter(3, sh(F32, 128, 10), "w2")
	b2 := b.Parameter(4, sh(F32, 10), "b2")
	h := b.Max(b.Add(b.Dot(x, w1), b1, 1), ConstantR0(b, float32(0)))
	wantShape(t, "hidden", h, "f32[8,128]")
	logits := b.Add(b.Dot(h, w2), b2, 1)
	maxc, sum := builderMaxComputation(t, b, F32), builderAddComputation(t, b, F32)
	m := b.Reduce(logits, ConstantR0(b, float32(math.Inf(-1))), maxc, []int{1})
	wantShape(t, "row max", m, "f32[8]")
	e := b.Exp(b.Sub(logits, m, 0))
	s := b.Reduce(e, ConstantR0(b, float32(0)), sum, []int{1})
	wantShape(t, "softmax", b.Div(e, s, 0), "f32[8,10]")
	return buildModule(t, b)
}

func TestBuilderMLP(t *testing.T) {
	m := buildMLP(t)
	if len(m.Computations) != 3 || m.Computations[2] != m.Entry {
		t.Fatalf("module has %d computations with the entry at the end expected 3", len(m.Computations))
	}
	for _, c := range m.Computations[:2] {
		if c.IsEntry || c.Root.Shape.String() != "f32[]" {
			t.Errorf("reducer %s: IsEntry %v, root %v", c.Name, c.IsEntry, c.Root.Shape)
		}
	}
	entry := m.Entry
	if got := human(entry.Root.Shape); got != "f32[8,10]" {
		t.Errorf("root shape %s, want f32[8,10]", got)
	}
	// The bias additions broadcast the bias along dimension 1, the softmax
	// subtraction and division broadcast the row values along dimension 0,
	// and the relu broadcasts its scalar: XlaBuilder's explicit broadcasts.
	var dims []string
	for _, in := range opsOf(entry, OpBroadcast) {
		dims = append(dims, intList(in.Dimensions)+human(in.Operands[0].Shape)+"->"+human(in.Shape))
	}
	want := []string{"{1}f32[128]->f32[8,128]", "{}f32[]->f32[8,128]", "{1}f32[10]->f32[8,10]", "{0}f32[8]->f32[8,10]", "{0}f32[8]->f32[8,10]"}
	if !slices.Equal(dims, want) {
		t.Errorf("broadcasts %v, want %v", dims, want)
	}
	// Names are XLA-style, opcode.N, and unique across the module.
	seen := map[string]bool{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if seen[in.Name] {
				t.Errorf("instruction name %q is used twice", in.Name)
			}
			seen[in.Name] = true
			if in.Opcode != OpParameter && !strings.HasPrefix(in.Name, in.Opcode.String()+".") {
				t.Errorf("instruction %q is not named after its opcode %v", in.Name, in.Opcode)
			}
		}
	}
	if p := entry.Parameters[2]; p.Name != "b1" || human(p.Shape) != "f32[128]" {
		t.Errorf("parameter 2 is %q %v", p.Name, p.Shape)
	}
}

func TestBuilderConvNet(t *testing.T) {
	b := NewBuilder("cnn")
	nhwc := ConvDimensionNumbers{
		InputBatch: 0, InputFeature: 3, InputSpatial: []int{1, 2},
		KernelInputFeature: 2, KernelOutputFeature: 3, KernelSpatial: []int{0, 1},
		OutputBatch: 0, OutputFeature: 3, OutputSpatial: []int{1, 2},
	}
	img := b.Parameter(0, sh(F32, 2, 28, 28, 3), "image")
	k1 := b.Parameter(1, sh(F32, 5, 5, 3, 32), "k1")
	bias := b.Parameter(2, sh(F32, 32), "bias")
	dw := b.Parameter(3, sh(F32, 3, 3, 1, 64), "depthwise")
	wfc := b.Parameter(4, sh(F32, 7*7*64, 10), "fc")
	zero := ConstantR0(b, float32(0))
	ninf := ConstantR0(b, float32(math.Inf(-1)))
	maxc := builderMaxComputation(t, b, F32)

	conv := b.ConvWithGeneralDimensions(img, k1, []int{1, 1}, PaddingSame, nhwc)
	wantShape(t, "conv SAME", conv, "f32[2,28,28,32]")
	relu := b.Max(b.Add(conv, bias, 3), zero)
	pool := b.ReduceWindow(relu, ninf, maxc, []int{1, 2, 2, 1}, []int{1, 2, 2, 1}, PaddingValid)
	wantShape(t, "max pool", pool, "f32[2,14,14,32]")
	// Depthwise 3x3, stride 2, feature_group_count = 32, channel multiplier 2.
	d := b.ConvGeneralDilated(pool, dw, []int{2, 2}, [][2]int{{1, 1}, {1, 1}}, nil, nil, nhwc, ConvOptions{FeatureGroupCount: 32})
	wantShape(t, "depthwise", d, "f32[2,7,7,64]")
	flat := b.Reshape(d, []int{2, 7 * 7 * 64})
	wantShape(t, "logits", b.Dot(flat, wfc), "f32[2,10]")
	m := buildModule(t, b)
	convs := opsOf(m.Entry, OpConvolution)
	if len(convs) != 2 {
		t.Fatalf("%d convolutions, want 2", len(convs))
	}
	if w := convs[0].Window.Dims; w[0].PadLow != 2 || w[0].PadHigh != 2 || w[1].Size != 5 {
		t.Errorf("SAME window %+v, want size 5 pad 2_2", w)
	}
	if convs[1].FeatureGroupCount != 32 || convs[1].Window.Dims[0].Stride != 2 {
		t.Errorf("depthwise: feature_group_count %d, window %+v", convs[1].FeatureGroupCount, convs[1].Window)
	}
	if rw := opsOf(m.Entry, OpReduceWindow); len(rw) != 1 || rw[0].ToApply != maxc {
		t.Errorf("reduce-window missing or not applying max")
	}
}

// buildWhileLoop builds the seed's loop: a counter and an accumulator
// vector, adding a constant vector 1000 times.
func buildWhileLoop(t *testing.T) (*Builder, Op) {
	b := NewBuilder("loop")
	state := MakeTuple(Scalar(S32), sh(F32, 10))

	cb := b.CreateSubBuilder("condition")
	p := cb.Parameter(0, state, "state")
	cb.Lt(cb.GetTupleElement(p, 0), ConstantR0(cb, int32(1000)))
	cond, err := cb.Build()
	if err != nil {
		t.Fatal(err)
	}

	bb := b.CreateSubBuilder("body")
	p = bb.Parameter(0, state, "state")
	iteration := bb.Add(bb.GetTupleElement(p, 0), ConstantR0(bb, int32(1)))
	vec := bb.Add(bb.GetTupleElement(p, 1), ConstantR1(bb, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}))
	bb.Tuple(iteration, vec)
	body, err := bb.Build()
	if err != nil {
		t.Fatal(err)
	}

	init := b.Tuple(ConstantR0(b, int32(0)), b.Broadcast(ConstantR0(b, float32(0)), []int{10}))
	return b, b.While(cond, body, init)
}

func TestBuilderWhileLoop(t *testing.T) {
	b, w := buildWhileLoop(t)
	wantShape(t, "while", w, "(s32[], f32[10])")
	wantShape(t, "result", b.GetTupleElement(w, 1), "f32[10]")
	m := buildModule(t, b)
	var names []string
	for _, c := range m.Computations {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"condition", "body", "loop"}) {
		t.Errorf("computations %v, want [condition body loop] (callees first)", names)
	}
	wh := opsOf(m.Entry, OpWhile)[0]
	if wh.Condition != m.Computations[0] || wh.Body != m.Computations[1] {
		t.Error("while does not refer to the module's condition and body")
	}

	// A body that changes the state's shape is refused.
	b2 := NewBuilder("bad loop")
	bb := b2.CreateSubBuilder("body")
	bb.GetTupleElement(bb.Parameter(0, MakeTuple(Scalar(S32), sh(F32, 10)), "s"), 1)
	body, _ := bb.Build()
	b2.While(wh.Condition, body, b2.Tuple(ConstantR0(b2, int32(0)), b2.Broadcast(ConstantR0(b2, float32(0)), []int{10})))
	if _, err := b2.Build(); err == nil || !strings.Contains(err.Error(), "while: body returns f32[10], the init value has shape (s32[], f32[10])") {
		t.Errorf("loop with a bad body: %v", err)
	}
}

func TestBuilderSortWithComparator(t *testing.T) {
	b := NewBuilder("sort")
	keys := b.Parameter(0, sh(F32, 5, 8), "keys")
	values := b.Parameter(1, sh(S32, 5, 8), "values")
	cb := b.CreateSubBuilder("compare")
	k0 := cb.Parameter(0, Scalar(F32), "k0")
	k1 := cb.Parameter(1, Scalar(F32), "k1")
	cb.Parameter(2, Scalar(S32), "v0")
	cb.Parameter(3, Scalar(S32), "v1")
	cb.LtTotalOrder(k0, k1)
	cmp, err := cb.Build()
	if err != nil {
		t.Fatal(err)
	}
	if c := cmp.Root; c.Opcode != OpCompare || c.Direction != CmpLT || c.CompareType != CmpTypeTotalOrder {
		t.Errorf("comparator root %v %v %v", c.Opcode, c.Direction, c.CompareType)
	}
	sorted := b.Sort([]Op{keys, values}, cmp, -1, true)
	wantShape(t, "sorted", sorted, "(f32[5,8], s32[5,8])")
	if in := sorted.Instruction(); !slices.Equal(in.Dimensions, []int{1}) || !in.IsStable {
		t.Errorf("sort dimensions %v stable %v, want {1} true", in.Dimensions, in.IsStable)
	}
	wantShape(t, "topk", b.TopK(keys, 3, true), "(f32[5,3], s32[5,3])")
	buildModule(t, b)

	// A comparator of the wrong signature is refused with the sort's error.
	b2 := NewBuilder("bad sort")
	k := b2.Parameter(0, sh(F32, 5), "k")
	v := b2.Parameter(1, sh(S32, 5), "v")
	b2.Sort([]Op{k, v}, scalarComputation(t, b2, "lt", F32, func(b *Builder, x, y Op) Op { return b.Lt(x, y) }), 0, false)
	if _, err := b2.Build(); err == nil || !strings.Contains(err.Error(), "sort: comparator (f32[], f32[]) -> pred[] must take 4 parameters for 2 operands, found 2") {
		t.Errorf("sort with a 2-parameter comparator: %v", err)
	}
}

func TestBuilderScatterAndGather(t *testing.T) {
	b := NewBuilder("embedding")
	table := b.Parameter(0, sh(F32, 100, 16), "table")
	ids := b.Parameter(1, sh(S32, 4, 7), "ids")
	grads := b.Parameter(2, sh(F32, 4, 7, 16), "grads")
	rows := GatherDimensionNumbers{OffsetDims: []int{2}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}, IndexVectorDim: 2}
	wantShape(t, "gather", b.Gather(table, ids, rows, []int{1, 16}, false), "f32[4,7,16]")
	upd := ScatterDimensionNumbers{UpdateWindowDims: []int{2}, InsertedWindowDims: []int{0}, ScatterDimsToOperandDims: []int{0}, IndexVectorDim: 2}
	s := b.Scatter(table, ids, grads, builderAddComputation(t, b, F32), upd, false, false)
	wantShape(t, "scatter-add", s, "f32[100,16]")
	m := buildModule(t, b)
	sc := opsOf(m.Entry, OpScatter)[0]
	if !slices.Equal(sc.ScatterDims.UpdateWindowDims, []int{2}) || sc.ToApply.Root.Opcode != OpAdd {
		t.Errorf("scatter attributes %+v", sc.ScatterDims)
	}

	b2 := NewBuilder("bad scatter")
	tb := b2.Parameter(0, sh(F32, 100, 16), "table")
	b2.Scatter(tb, b2.Parameter(1, sh(S32, 4, 7), "ids"), b2.Parameter(2, sh(F32, 4, 7, 17), "grads"), builderAddComputation(t, b2, F32), upd, false, false)
	if _, err := b2.Build(); err == nil || !strings.Contains(err.Error(), "scatter: updates window dimension 2 has size 17, larger than the corresponding operand size 16") {
		t.Errorf("scatter with too-wide updates: %v", err)
	}
}

func TestBuilderBroadcastSequences(t *testing.T) {
	type step struct{ op, shape, dims string }
	trace := func(c *Computation) []step {
		var out []step
		for _, in := range c.Instructions {
			if in.Opcode == OpParameter {
				continue
			}
			out = append(out, step{in.Opcode.String(), human(in.Shape), intList(in.Dimensions)})
		}
		return out
	}
	for _, c := range []struct {
		name   string
		lhs    Shape
		rhs    Shape
		dims   []int
		want   []step
		result string
	}{
		// (2,1) + (2,3): the size-1 dimension is reshaped away and broadcast.
		{"degenerate", sh(F32, 2, 1), sh(F32, 2, 3), nil, []step{
			{"reshape", "f32[2]", "{}"}, {"broadcast", "f32[2,3]", "{0}"}, {"add", "f32[2,3]", "{}"}}, "f32[2,3]"},
		// Outer operation: (2,1) + (1,3) broadcasts both sides.
		{"outer", sh(F32, 2, 1), sh(F32, 1, 3), nil, []step{
			{"reshape", "f32[2]", "{}"}, {"broadcast", "f32[2,3]", "{0}"},
			{"reshape", "f32[3]", "{}"}, {"broadcast", "f32[2,3]", "{1}"}, {"add", "f32[2,3]", "{}"}}, "f32[2,3]"},
		// A vector of 4 plus a 1x2 matrix with broadcast dimension 0.
		{"rank and degenerate", sh(F32, 4), sh(F32, 1, 2), []int{0}, []step{
			{"broadcast", "f32[4,2]", "{0}"}, {"reshape", "f32[2]", "{}"}, {"broadcast", "f32[4,2]", "{1}"}, {"add", "f32[4,2]", "{}"}}, "f32[4,2]"},
		// A 1x2 matrix plus a 4x3x1 array with dimensions (1, 2).
		{"1x2 into 4x3x1", sh(F32, 1, 2), sh(F32, 4, 3, 1), []int{1, 2}, []step{
			{"broadcast", "f32[4,1,2]", "{1,2}"}, {"reshape", "f32[4,2]", "{}"}, {"broadcast", "f32[4,3,2]", "{0,2}"},
			{"reshape", "f32[4,3]", "{}"}, {"broadcast", "f32[4,3,2]", "{0,1}"}, {"add", "f32[4,3,2]", "{}"}}, "f32[4,3,2]"},
		{"scalar", Scalar(F32), sh(F32, 2, 3), nil, []step{{"broadcast", "f32[2,3]", "{}"}, {"add", "f32[2,3]", "{}"}}, "f32[2,3]"},
		{"equal", sh(F32, 2, 3), sh(F32, 2, 3), nil, []step{{"add", "f32[2,3]", "{}"}}, "f32[2,3]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder(c.name)
			r := b.Add(b.Parameter(0, c.lhs, "l"), b.Parameter(1, c.rhs, "r"), c.dims...)
			wantShape(t, "add", r, c.result)
			m := buildModule(t, b)
			if got := trace(m.Entry); !slices.Equal(got, c.want) {
				t.Errorf("instructions %v, want %v", got, c.want)
			}
		})
	}

	// BroadcastInDim with a degenerate dimension, and Select/Clamp with scalars.
	b := NewBuilder("in-dim")
	v := b.Parameter(0, sh(F32, 1, 3), "v")
	wantShape(t, "broadcast-in-dim", b.BroadcastInDim(v, []int{4, 2, 3}, []int{1, 2}), "f32[4,2,3]")
	x := b.Parameter(1, sh(F32, 5), "x")
	wantShape(t, "clamp", b.Clamp(ConstantR0(b, float32(-1)), x, ConstantR0(b, float32(1))), "f32[5]")
	wantShape(t, "select", b.Select(ConstantR0(b, true), x, ConstantR0(b, float32(0))), "f32[5]")
	wantShape(t, "compare", b.Gt(x, ConstantR0(b, float32(0))), "pred[5]")
	m := buildModule(t, b)
	for _, in := range opsOf(m.Entry, OpSelect) {
		for _, o := range in.Operands {
			if human(o.Shape) != "pred[5]" && human(o.Shape) != "f32[5]" {
				t.Errorf("select operand %s was not broadcast", human(o.Shape))
			}
		}
	}
}

func TestBuilderFirstError(t *testing.T) {
	b := NewBuilder("errors")
	x := b.Parameter(0, sh(F32, 2, 3), "x")
	y := b.Parameter(1, sh(F32, 4), "y")
	if r := b.Add(x, y); r.Valid() {
		t.Fatal("adding f32[2,3] and f32[4] without broadcast dimensions succeeded")
	}
	first := b.Err()
	if first == nil || !strings.Contains(first.Error(), "add: operands of different ranks f32[4] and f32[2,3] need broadcast_dimensions") {
		t.Fatalf("first error %v", first)
	}
	n := len(b.comp.Instructions)
	// Later operations do nothing, even valid ones, and keep the first error.
	if r := b.Mul(x, x); r.Valid() {
		t.Error("an operation after an error returned a valid Op")
	}
	b.Dot(x, y)
	b.Parameter(2, sh(F32, 1), "z")
	if len(b.comp.Instructions) != n {
		t.Errorf("%d instructions after the error, want %d", len(b.comp.Instructions), n)
	}
	if b.Err() != first {
		t.Errorf("error changed to %v", b.Err())
	}
	if _, err := b.Build(); err != first {
		t.Errorf("Build returned %v, want the first error %v", err, first)
	}
	if _, err := b.BuildModule(); err != first {
		t.Errorf("BuildModule returned %v, want the first error", err)
	}
	if _, err := b.GetShape(x); err != first {
		t.Errorf("GetShape returned %v, want the first error", err)
	}
	if s := ShapeOf(Op{}); s.Elem != InvalidType {
		t.Errorf("ShapeOf(zero Op) = %v", s)
	}
}

func TestBuilderMixingBuilders(t *testing.T) {
	a := NewBuilder("a")
	xa := a.Parameter(0, sh(F32, 2), "x")
	b := NewBuilder("b")
	xb := b.Parameter(0, sh(F32, 2), "x")
	b.Add(xb, xa)
	if err := b.Err(); err == nil || err.Error() != `add: operand 1 was built by builder "a", not by "b"` {
		t.Errorf("mixing builders: %v", err)
	}
	if a.Err() != nil {
		t.Errorf("the other builder got an error: %v", a.Err())
	}

	parent := NewBuilder("parent")
	px := parent.Parameter(0, Scalar(F32), "x")
	sub := parent.CreateSubBuilder("sub")
	sub.Neg(px)
	if err := sub.Err(); err == nil || !strings.Contains(err.Error(), `negate: operand 0 was built by builder "parent", not by "sub"`) {
		t.Errorf("parent op in sub-builder: %v", err)
	}

	c := NewBuilder("c")
	c.Abs(Op{})
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "abs: operand 0 is the zero Op") {
		t.Errorf("zero Op: %v", err)
	}
	d := NewBuilder("d")
	if _, err := d.BuildWithRoot(xa); err == nil {
		t.Error("building with another builder's root succeeded")
	}
}

func TestBuilderParametersAndBuild(t *testing.T) {
	b := NewBuilder("params")
	b.Parameter(0, sh(F32, 2), "x")
	b.Parameter(0, sh(F32, 2), "y")
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "parameter 0 is already defined") {
		t.Errorf("duplicate parameter: %v", err)
	}
	b = NewBuilder("gap")
	b.Parameter(0, sh(F32, 2), "x")
	b.Parameter(2, sh(F32, 2), "z")
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "parameter numbers must be dense") {
		t.Errorf("non-dense parameters: %v", err)
	}
	b = NewBuilder("invalid shape")
	b.Parameter(0, Shape{Elem: F32, Dims: []int{-1}}, "x")
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "negative size") {
		t.Errorf("invalid parameter shape: %v", err)
	}
	if _, err := NewBuilder("empty").Build(); err == nil {
		t.Error("building an empty computation succeeded")
	}
	// Build with an explicit root, then once more: the same computation.
	b = NewBuilder("root")
	x := b.Parameter(0, sh(F32, 2), "x")
	neg := b.Neg(x)
	b.Exp(x)
	c, err := b.BuildWithRoot(neg)
	if err != nil || c.Root != neg.Instruction() {
		t.Fatalf("BuildWithRoot: %v", err)
	}
	if c2, err := b.BuildWithRoot(neg); err != nil || c2 != c {
		t.Errorf("second BuildWithRoot: %v", err)
	}
	b.Abs(x)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "has already been built") {
		t.Errorf("op after Build: %v", err)
	}
}

// TestModuleFromUnrelatedBuilders puts computations of independent builders,
// with clashing computation and instruction names, into one module.
func TestModuleFromUnrelatedBuilders(t *testing.T) {
	reducer := func() *Computation {
		b := NewBuilder("add")
		b.Add(b.Parameter(0, Scalar(F32), "x"), b.Parameter(1, Scalar(F32), "y"))
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	r1, r2 := reducer(), reducer()
	b := NewBuilder("add")
	x := b.Parameter(0, sh(F32, 4, 5), "x")
	zero := ConstantR0(b, float32(0))
	b.Tuple(b.Reduce(x, zero, r1, []int{0}), b.Reduce(x, zero, r2, []int{1}))
	entry, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModuleFromComputation(entry)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	insts := map[string]bool{}
	for _, c := range m.Computations {
		if names[c.Name] {
			t.Errorf("computation name %q repeated", c.Name)
		}
		names[c.Name] = true
		for _, in := range c.Instructions {
			if insts[in.Name] {
				t.Errorf("instruction name %q repeated", in.Name)
			}
			insts[in.Name] = true
		}
	}
	if len(m.Computations) != 3 || m.Entry != m.Computations[2] {
		t.Fatalf("%d computations", len(m.Computations))
	}
	// The callers of a renamed copy point at the copy; the originals are untouched.
	for _, in := range opsOf(m.Entry, OpReduce) {
		if !slices.Contains(m.Computations, in.ToApply) {
			t.Errorf("reduce %s calls a computation outside the module", in.Name)
		}
	}
	if r1.Name != "add" || r2.Name != "add" || r2.Root.Name != "add.1" {
		t.Errorf("the builders' computations were renamed: %s %s %s", r1.Name, r2.Name, r2.Root.Name)
	}
	if _, err := NewModuleFromComputation(nil); err == nil {
		t.Error("a module from a nil computation succeeded")
	}
}

func TestBuilderCollectivesAndAllToAll(t *testing.T) {
	b := NewBuilder("collectives")
	x := b.Parameter(0, sh(F32, 4, 16), "x")
	sum := builderAddComputation(t, b, F32)
	// The seed: AllToAll(f32[4,16], split 1, concat 0, split_count 4) is f32[16,4].
	a2a := b.AllToAll(x, 1, 0, 4, nil)
	wantShape(t, "all-to-all", a2a, "f32[16,4]")
	wantShape(t, "all-gather", b.AllGather(x, 0, 2, [][]int{{0, 2}, {1, 3}}), "f32[8,16]")
	wantShape(t, "reduce-scatter", b.ReduceScatter(x, sum, 1, 4, nil), "f32[4,4]")
	wantShape(t, "all-reduce tuple", b.AllReduce(b.Tuple(x, x), sum, nil), "(f32[4,16], f32[4,16])")
	wantShape(t, "permute", b.CollectivePermute(x, [][2]int{{0, 1}, {1, 0}}, CollectiveOptions{ChannelID: 1}), "f32[4,16]")
	wantShape(t, "broadcast", b.CollectiveBroadcast(x, [][]int{{0, 1}}), "f32[4,16]")
	m := buildModule(t, b)
	var ops []string
	for _, in := range m.Entry.Instructions {
		ops = append(ops, in.Opcode.String())
	}
	// HLO's all-to-all splits and concatenates one dimension; the client's
	// split 1 / concat 0 becomes all-to-all, reshape, transpose, reshape.
	if !slices.Equal(ops[1:5], []string{"all-to-all", "reshape", "transpose", "reshape"}) {
		t.Errorf("all-to-all sequence %v", ops[1:5])
	}
	if g := opsOf(m.Entry, OpAllToAll)[0].ReplicaGroups.Groups; !slices.Equal(g[0], []int{0, 1, 2, 3}) {
		t.Errorf("all-to-all groups %v, want one group of 4", g)
	}

	bad := NewBuilder("bad")
	y := bad.Parameter(0, sh(F32, 4), "y")
	bad.AllGather(y, 0, 3, [][]int{{0, 1}, {2, 3}})
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "all-gather: shard count 3 differs from the replica group size 2") {
		t.Errorf("all-gather shard count: %v", err)
	}
	bad = NewBuilder("bad groups")
	bad.AllReduce(bad.Parameter(0, sh(F32, 4), "y"), builderAddComputation(t, bad, F32), [][]int{{0, 1}, {1, 2}})
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "replica 1 appears in more than one place") {
		t.Errorf("repeated replica: %v", err)
	}
}
