package ir

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func firstOf(t *testing.T, c *Computation, op Opcode) *Instruction {
	t.Helper()
	ins := opsOf(c, op)
	if len(ins) == 0 {
		t.Fatalf("computation %s has no %v", c.Name, op)
	}
	return ins[0]
}

func TestVerifyCatchesCorruptedShape(t *testing.T) {
	m := buildMLP(t)
	dot := firstOf(t, m.Entry, OpDot)
	good := dot.Shape
	dot.Shape = sh(F32, 8, 129)
	err := m.Verify()
	want := `module mlp: computation "mlp", instruction "` + dot.Name + `": dot: declared shape f32[8,129] differs from the inferred shape f32[8,128]`
	if err == nil || err.Error() != want {
		t.Fatalf("Verify = %v\nwant %s", err, want)
	}
	var se *ShapeError
	if !errors.As(err, &se) || se.Op != "dot" {
		t.Errorf("the error does not wrap a ShapeError of dot: %#v", err)
	}
	if err := m.Entry.Verify(); err == nil || !strings.Contains(err.Error(), "declared shape f32[8,129]") {
		t.Errorf("Computation.Verify = %v", err)
	}

	// A dot may declare a wider result type (XLA's preferred element type);
	// the add that follows then sees operands of different types.
	dot.Shape = sh(F64, 8, 128)
	if err := m.Verify(); err == nil || !strings.Contains(err.Error(), "add: operands must have the same element type, found lhs f64[8,128] and rhs f32[8,128]") {
		t.Errorf("wider dot result: %v", err)
	}
	// A wrong element type, and a dimension wrongly marked dynamic.
	dot.Shape = good
	mx := firstOf(t, m.Entry, OpMaximum)
	mx.Shape = sh(S32, 8, 128)
	if err := m.Verify(); err == nil || !strings.Contains(err.Error(), "maximum: declared shape s32[8,128] differs from the inferred shape f32[8,128]") {
		t.Errorf("wrong element type: %v", err)
	}
	mx.Shape = sh(F32, 8, 128)
	dot.Shape = dyn(sh(F32, 8, 128), 0)
	if err := m.Verify(); err == nil || !strings.Contains(err.Error(), "declared shape f32[<=8,128] differs") {
		t.Errorf("wrong dynamic flag: %v", err)
	}
	// Layouts are not part of the comparison.
	dot.Shape = good.WithLayout(MakeLayout(0, 1))
	if err := m.Verify(); err != nil {
		t.Errorf("a column-major layout is refused: %v", err)
	}
	dot.Shape = good

	// A corrupted attribute is caught through the shape it implies.
	r := firstOf(t, m.Entry, OpReduce)
	r.Dimensions = []int{0}
	if err := m.Verify(); err == nil || !strings.Contains(err.Error(), "reduce: declared shape f32[8] differs from the inferred shape f32[10]") {
		t.Errorf("reduce over the wrong dimension: %v", err)
	}
	r.Dimensions = []int{2}
	if err := m.Verify(); err == nil || !strings.Contains(err.Error(), "reduce: reduced dimension 2 is out of range for f32[8,10]") {
		t.Errorf("reduce over a missing dimension: %v", err)
	}
	r.Dimensions = []int{1}
	bc := firstOf(t, m.Entry, OpBroadcast)
	bc.Dimensions = []int{0}
	if err := m.Verify(); err == nil || !strings.Contains(err.Error(), "broadcast: operand dimension 0 has size 128, result dimension 0 has size 8") {
		t.Errorf("broadcast along the wrong dimension: %v", err)
	}
	bc.Dimensions = []int{1}
	if err := m.Verify(); err != nil {
		t.Fatalf("restored module: %v", err)
	}
}

// TestVerifyStructure corrupts a small module in one way at a time.
func TestVerifyStructure(t *testing.T) {
	build := func() *Module {
		b := NewBuilder("main")
		x := b.Parameter(0, sh(F32, 2, 3), "x")
		y := b.Parameter(1, sh(F32, 2, 3), "y")
		s := b.Add(x, y)
		b.Tuple(b.Reduce(s, ConstantR0(b, float32(0)), builderAddComputation(t, b, F32), []int{1}), s)
		return buildModule(t, b)
	}
	find := func(m *Module, op Opcode) *Instruction { return firstOf(t, m.Entry, op) }
	other := func() *Computation {
		b := NewBuilder("other")
		b.Neg(b.Parameter(0, sh(F32, 2, 3), "z"))
		c, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		name    string
		corrupt func(m *Module)
		err     string
	}{
		{"no entry", func(m *Module) { m.Entry = nil }, "no entry computation"},
		{"entry outside", func(m *Module) { m.Entry = other() }, `entry computation "other" is not among the module's computations`},
		{"no root", func(m *Module) { m.Entry.Root = nil }, `computation "main": no root instruction`},
		{"foreign root", func(m *Module) { m.Entry.Root = other().Root }, "is not one of the computation's instructions"},
		{"operand of another computation", func(m *Module) { find(m, OpAdd).Operands[1] = other().Parameters[0] }, `operand 1 "z" is not an instruction of this computation`},
		{"use before definition", func(m *Module) {
			ins := m.Entry.Instructions
			i := 0
			for ins[i].Opcode != OpAdd {
				i++
			}
			ins[0], ins[i] = ins[i], ins[0]
		}, "is used before it is defined"},
		{"missing parameter", func(m *Module) { m.Entry.Parameters[0] = nil }, "parameter 0 is missing (parameter numbers must be dense from 0)"},
		{"parameter renumbered", func(m *Module) { m.Entry.Parameters[1].ParameterNumber = 0 }, "Parameters[1] is \"y\", not parameter 1"},
		{"nil operand", func(m *Module) { find(m, OpAdd).Operands[0] = nil }, "operand 0 is nil"},
		{"arity", func(m *Module) { a := find(m, OpAdd); a.Operands = a.Operands[:1] }, "add takes 2 operands, found 1"},
		{"parent", func(m *Module) { find(m, OpAdd).Parent = nil }, "its Parent is not computation"},
		{"invalid opcode", func(m *Module) { find(m, OpAdd).Opcode = OpInvalid }, "invalid opcode"},
		{"invalid shape", func(m *Module) { find(m, OpAdd).Shape = Shape{Elem: F32, Dims: []int{2, -3}} }, "invalid shape"},
		{"role", func(m *Module) { find(m, OpAdd).ToApply = m.Computations[0] }, "add does not take a to_apply computation"},
		{"missing reducer", func(m *Module) { find(m, OpReduce).ToApply = nil }, "reduce: to_apply computation is missing"},
		{"called computation outside the module", func(m *Module) { find(m, OpReduce).ToApply = other() }, `called computation "other" is not in the module`},
		{"callee after caller", func(m *Module) {
			m.Computations[0], m.Computations[1] = m.Computations[1], m.Computations[0]
		}, `called computation "add" must come before its caller`},
		{"computation names", func(m *Module) { m.Computations[0].Name = "main" }, `two computations are named "main"`},
		{"names in a computation", func(m *Module) { find(m, OpAdd).Name = "y" }, `two instructions are named "y"`},
		{"control predecessor", func(m *Module) {
			a := find(m, OpAdd)
			a.ControlPredecessors = []*Instruction{other().Root}
		}, "control predecessor \"negate.1\" is not an instruction of this computation"},
		{"implicit broadcast", func(m *Module) {
			one := &Instruction{Name: "one", Opcode: OpConstant, Shape: Scalar(F32), Parent: m.Entry}
			one.Literal = ScalarLiteral(float32(1))
			m.Entry.Instructions = append([]*Instruction{one}, m.Entry.Instructions...)
			find(m, OpAdd).Operands[1] = one
		}, "add: operand 1 has shape f32[] but the result has shape f32[2,3]: HLO does not broadcast implicitly"},
		{"constant literal", func(m *Module) { find(m, OpConstant).Shape = sh(F32, 1) }, "constant declares shape f32[1] but its literal has shape f32[]"},
		{"constant without literal", func(m *Module) { find(m, OpConstant).Literal = nil }, "constant has no literal"},
		{"entry layout", func(m *Module) {
			ps := m.Entry.ProgramShape()
			ps.Parameters = ps.Parameters[:1]
			m.EntryLayout = &ps
		}, `entry_computation_layout has 1 parameters, entry computation "main" has 2`},
		{"tuple element", func(m *Module) { find(m, OpTuple).Shape = MakeTuple(sh(F32, 2), sh(F32, 3, 2)) }, "tuple: declared shape (f32[2], f32[3,2]) differs from the inferred shape (f32[2], f32[2,3])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := build()
			c.corrupt(m)
			err := m.Verify()
			if err == nil {
				t.Fatalf("Verify succeeded, want an error containing %q", c.err)
			}
			if !strings.Contains(err.Error(), c.err) {
				t.Fatalf("Verify = %v\nwant an error containing %q", err, c.err)
			}
		})
	}
}

// TestVerifyParsedModules verifies HLO text: the errors name the op and say
// what was expected and found.
func TestVerifyParsedModules(t *testing.T) {
	for _, c := range []struct {
		name, text, err string
	}{
		{"valid", `HloModule ok
ENTRY main {
  x = f32[8,784] parameter(0)
  w = f32[784,10] parameter(1)
  d = f32[8,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[] constant(0)
  b = f32[8,10] broadcast(c), dimensions={}
  ROOT m = f32[8,10] maximum(d, b)
}`, ""},
		{"dot sizes", `HloModule bad
ENTRY main {
  x = f32[8,784] parameter(0)
  w = f32[512,10] parameter(1)
  ROOT d = f32[8,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, "dot: lhs contracting dimension 1 has size 784, rhs contracting dimension 0 has size 512"},
		{"dot result", `HloModule bad
ENTRY main {
  x = bf16[8,784] parameter(0)
  w = bf16[784,10] parameter(1)
  ROOT d = f32[8,11] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, "dot: declared shape f32[8,11] differs from the inferred shape f32[8,10]"},
		{"convolution", `HloModule bad
ENTRY main {
  x = f32[1,28,28,3] parameter(0)
  k = f32[5,5,4,32] parameter(1)
  ROOT c = f32[1,28,28,32] convolution(x, k), window={size=5x5 pad=2_2x2_2}, dim_labels=b01f_01io->b01f
}`, "convolution: lhs feature dimension size 3 must equal feature_group_count 1 times the rhs input feature dimension size 4"},
		{"convolution window", `HloModule ok
ENTRY main {
  x = f32[1,28,28,3] parameter(0)
  k = f32[5,5,3,32] parameter(1)
  ROOT c = f32[1,14,14,32] convolution(x, k), window={size=5x5 stride=2x2 pad=2_2x2_2}, dim_labels=b01f_01io->b01f
}`, ""},
		{"reduce-window", `HloModule bad
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,3] reduce-window(x, z), window={size=2x3 stride=2x3}, to_apply=add
}`, "reduce-window: declared shape f32[2,3] differs from the inferred shape f32[2,2]"},
		{"gather", `HloModule bad
ENTRY main {
  x = f32[16,11] parameter(0)
  i = s64[5,2] parameter(1)
  ROOT g = f32[5,8,6] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={8,12}
}`, "gather: slice size 1 is 12, out of range [0, 11] for operand f32[16,11]"},
		{"sort comparator", `HloModule bad
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  k = f32[8] parameter(0)
  v = s32[8] parameter(1)
  ROOT s = (f32[8], s32[8]) sort(k, v), dimensions={0}, to_apply=lt
}`, "sort: comparator (f32[], f32[]) -> pred[] must take 4 parameters for 2 operands, found 2"},
		{"while body", `HloModule bad
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  ROOT v = f32[4] get-tuple-element(p), index=1
}
ENTRY main {
  z = s32[] constant(0)
  v = f32[4] parameter(0)
  t = (s32[], f32[4]) tuple(z, v)
  ROOT w = (s32[], f32[4]) while(t), condition=cond, body=body
}`, "while: body returns f32[4], the init value has shape (s32[], f32[4])"},
		{"implicit broadcast", `HloModule bad
ENTRY main {
  x = f32[4] parameter(0)
  c = f32[] constant(1)
  ROOT a = f32[4] add(x, c)
}`, "add: operand 1 has shape f32[] but the result has shape f32[4]: HLO does not broadcast implicitly"},
		{"bounded dynamic", `HloModule ok
ENTRY main {
  x = f32[10] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=10] set-dimension-size(x, n), dimensions={0}
  ROOT e = f32[<=10] exponential(d)
}`, ""},
		{"dynamic lost", `HloModule bad
ENTRY main {
  x = f32[10] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=10] set-dimension-size(x, n), dimensions={0}
  ROOT e = f32[10] exponential(d)
}`, "exponential: declared shape f32[10] differs from the inferred shape f32[<=10]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseModule(c.text)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = m.Verify()
			if c.err == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("Verify = %v\nwant an error containing %q", err, c.err)
			}
		})
	}
}

// TestVerifyCorpus verifies every module of the HLO text corpus and the
// bundled examples.
func TestVerifyCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/hlo/*.hlo")
	examples, _ := filepath.Glob("../examples/*/*.hlo")
	files = append(files, examples...)
	if len(files) == 0 {
		t.Skip("no HLO corpus")
	}
	// Modules of the parser's corpus that are not valid programs: they test
	// the text format only.
	knownInvalid := map[string]string{
		"misc_ops.hlo": "rng-bit-generator: state must be a u64 vector, found u32[2]",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseModule(string(data))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		err = m.Verify()
		if want, ok := knownInvalid[filepath.Base(f)]; ok && err != nil {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want an error containing %q", f, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// randomShape draws a small, mostly valid shape; ranks up to 4, sizes up to
// 5, some dimensions dynamic, some tuples and tokens.
func randomShape(r *rand.Rand, depth int) Shape {
	switch k := r.IntN(20); {
	case k == 0 && depth < 2:
		n := r.IntN(4)
		elems := make([]Shape, n)
		for i := range elems {
			elems[i] = randomShape(r, depth+1)
		}
		return MakeTuple(elems...)
	case k == 1:
		return TokenShape()
	}
	types := []ElementType{F32, F32, S32, PRED, U32, U64, BF16, C64, S8, F64}
	rank := r.IntN(5)
	dims := make([]int, rank)
	var dyn []bool
	for i := range dims {
		dims[i] = r.IntN(6)
		if r.IntN(8) == 0 {
			if dyn == nil {
				dyn = make([]bool, rank)
			}
			dyn[i] = true
		}
	}
	return MakeDynamicShape(types[r.IntN(len(types))], dims, dyn)
}

func randomInts(r *rand.Rand) []int {
	if r.IntN(6) == 0 {
		return nil
	}
	v := make([]int, r.IntN(5))
	for i := range v {
		v[i] = r.IntN(8) - 2
	}
	return v
}

func randomComputation(r *rand.Rand, name string) *Computation {
	c := &Computation{Name: name}
	n := r.IntN(5)
	for i := 0; i < n; i++ {
		p := &Instruction{Name: name + ".p" + itoa(i), Opcode: OpParameter, Shape: randomShape(r, 1)}
		p.ParameterNumber = i
		c.Add(p)
	}
	if n > 0 && r.IntN(10) == 0 {
		c.Parameters[r.IntN(n)] = nil
	}
	if r.IntN(12) != 0 {
		root := &Instruction{Name: name + ".root", Opcode: OpCustomCall, Shape: randomShape(r, 0)}
		root.CustomCallTarget = "f"
		c.Add(root)
		c.Root = root
	}
	return c
}

// FuzzInferInstructionShape feeds every opcode random operands, attributes
// and called computations: inference and verification return errors, never
// panic.
func FuzzInferInstructionShape(f *testing.F) {
	for i := uint64(0); i < 40; i++ {
		f.Add(i)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		for _, op := range Opcodes() {
			c := &Computation{Name: "c"}
			var operands []*Instruction
			for i := 0; i < r.IntN(6); i++ {
				p := &Instruction{Name: "p" + itoa(i), Opcode: OpParameter, Shape: randomShape(r, 0)}
				p.ParameterNumber = i
				c.Add(p)
				operands = append(operands, p)
			}
			in := &Instruction{Name: "x", Opcode: op, Shape: randomShape(r, 0), Operands: operands}
			in.Dimensions = randomInts(r)
			in.TupleIndex = r.IntN(4) - 1
			in.IotaDimension = r.IntN(4) - 1
			in.K = r.IntN(6) - 1
			in.ExponentBits, in.MantissaBits = r.IntN(4)-1, r.IntN(4)-1
			in.FeatureIndex = r.IntN(4) - 1
			in.FFTType = FFTType(r.IntN(4))
			in.FFTLength = randomInts(r)
			in.DynamicSliceSizes = randomInts(r)
			in.GatherSliceSizes = randomInts(r)
			in.FeatureGroupCount, in.BatchGroupCount = r.IntN(4)-1, r.IntN(4)-1
			in.Direction = ComparisonDirection(r.IntN(7))
			in.CompareType = ComparisonType(r.IntN(6))
			in.Distribution = RandomDistribution(r.IntN(3))
			in.RngAlgorithm = RandomAlgorithm(r.IntN(3))
			in.ChannelID = int64(r.IntN(3))
			in.UseGlobalDeviceIDs = r.IntN(2) == 0
			for _, d := range randomInts(r) {
				in.Slice = append(in.Slice, SliceDim{d, d + r.IntN(4) - 1, r.IntN(3) - 1})
				in.Padding = append(in.Padding, PaddingDim{d, r.IntN(5) - 2, r.IntN(3) - 1})
			}
			if r.IntN(3) != 0 {
				w := &Window{}
				for range r.IntN(4) {
					w.Dims = append(w.Dims, WindowDim{Size: r.IntN(4) - 1, Stride: r.IntN(3) - 1, PadLow: r.IntN(5) - 2, PadHigh: r.IntN(5) - 2, WindowDilation: r.IntN(3), BaseDilation: r.IntN(3)})
				}
				in.Window = w
			}
			if r.IntN(3) != 0 {
				in.ConvDims = &ConvDimensionNumbers{InputBatch: r.IntN(5) - 1, InputFeature: r.IntN(5) - 1, InputSpatial: randomInts(r),
					KernelInputFeature: r.IntN(5) - 1, KernelOutputFeature: r.IntN(5) - 1, KernelSpatial: randomInts(r),
					OutputBatch: r.IntN(5) - 1, OutputFeature: r.IntN(5) - 1, OutputSpatial: randomInts(r)}
			}
			if r.IntN(3) != 0 {
				in.DotDims = &DotDimensionNumbers{LhsBatch: randomInts(r), RhsBatch: randomInts(r), LhsContracting: randomInts(r), RhsContracting: randomInts(r)}
			}
			if r.IntN(3) != 0 {
				in.GatherDims = &GatherDimensionNumbers{OffsetDims: randomInts(r), CollapsedSliceDims: randomInts(r), StartIndexMap: randomInts(r),
					IndexVectorDim: r.IntN(5) - 1, OperandBatchingDims: randomInts(r), StartIndicesBatchingDims: randomInts(r)}
			}
			if r.IntN(3) != 0 {
				in.ScatterDims = &ScatterDimensionNumbers{UpdateWindowDims: randomInts(r), InsertedWindowDims: randomInts(r), ScatterDimsToOperandDims: randomInts(r),
					IndexVectorDim: r.IntN(5) - 1, InputBatchingDims: randomInts(r), ScatterIndicesBatchingDims: randomInts(r)}
			}
			if r.IntN(2) == 0 {
				in.ReplicaGroups = &ReplicaGroups{}
				for range r.IntN(3) {
					in.ReplicaGroups.Groups = append(in.ReplicaGroups.Groups, randomInts(r))
				}
			}
			for range r.IntN(3) {
				in.SourceTargetPairs = append(in.SourceTargetPairs, [2]int{r.IntN(5) - 1, r.IntN(5) - 1})
			}
			if r.IntN(2) == 0 {
				in.TriangularSolve = &TriangularSolveOptions{LeftSide: r.IntN(2) == 0, TransposeA: TransposeKind(r.IntN(4))}
			}
			if r.IntN(2) == 0 {
				o := randomShape(r, 0)
				in.OutfeedShape = &o
			}
			comp := func(name string) *Computation {
				if r.IntN(5) == 0 {
					return nil
				}
				return randomComputation(r, name)
			}
			in.ToApply, in.Condition, in.Body, in.Select, in.Scatter, in.Calls = comp("a"), comp("b"), comp("c"), comp("d"), comp("e"), comp("f")
			for range r.IntN(4) {
				in.Branches = append(in.Branches, randomComputation(r, "br"))
			}
			in.CustomCallTarget = []string{"", "f", "$x"}[r.IntN(3)]
			if r.IntN(2) == 0 {
				lit, err := NewLiteral(in.Shape)
				if err == nil {
					in.Literal = lit
				}
			}
			InferInstructionShape(in)
			c.Add(in)
			c.Root = in
			c.Verify()
			m := &Module{Name: "m", Computations: []*Computation{c}, Entry: c}
			m.Verify()
		}
	})
}

// FuzzVerifyMutatedModule changes one thing at a time in the module that
// exercises every Builder method — a dimension, an attribute, an operand, a
// called computation — so that verification runs deep into each rule: it
// must return an error or nil, never panic.
func FuzzVerifyMutatedModule(f *testing.F) {
	for i := uint64(0); i < 30; i++ {
		f.Add(i)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
		m := buildEveryOp(t)
		for round := 0; round < 40; round++ {
			c := m.Computations[r.IntN(len(m.Computations))]
			in := c.Instructions[r.IntN(len(c.Instructions))]
			pick := func(v []int) []int {
				if len(v) > 0 && r.IntN(2) == 0 {
					v = append([]int(nil), v...)
					v[r.IntN(len(v))] = r.IntN(8) - 2
					return v
				}
				return randomInts(r)
			}
			switch r.IntN(12) {
			case 0:
				if in.Shape.IsArray() && in.Shape.Rank() > 0 {
					in.Shape = in.Shape.Clone()
					in.Shape.Dims[r.IntN(in.Shape.Rank())] = r.IntN(10) - 1
				}
			case 1:
				in.Shape = in.Shape.WithElem([]ElementType{F32, S32, PRED, C64, U32, F64, TOKEN}[r.IntN(7)])
			case 2:
				in.Dimensions = pick(in.Dimensions)
			case 3:
				if i := slicesIndex(c.Instructions, in); i > 0 && len(in.Operands) > 0 {
					in.Operands[r.IntN(len(in.Operands))] = c.Instructions[r.IntN(i)]
				}
			case 4:
				if in.Window != nil && len(in.Window.Dims) > 0 {
					d := &in.Window.Dims[r.IntN(len(in.Window.Dims))]
					*d = WindowDim{Size: r.IntN(5) - 1, Stride: r.IntN(3), PadLow: r.IntN(5) - 2, PadHigh: r.IntN(5) - 2, BaseDilation: r.IntN(3), WindowDilation: r.IntN(3)}
				}
			case 5:
				for i := range in.Slice {
					in.Slice[i].Limit += r.IntN(3) - 1
				}
				for i := range in.Padding {
					in.Padding[i].Interior += r.IntN(3) - 1
				}
				in.DynamicSliceSizes = pick(in.DynamicSliceSizes)
				in.GatherSliceSizes = pick(in.GatherSliceSizes)
			case 6:
				if g := in.GatherDims; g != nil {
					g.OffsetDims, g.CollapsedSliceDims, g.StartIndexMap = pick(g.OffsetDims), pick(g.CollapsedSliceDims), pick(g.StartIndexMap)
					g.IndexVectorDim += r.IntN(3) - 1
				}
				if s := in.ScatterDims; s != nil {
					s.UpdateWindowDims, s.InsertedWindowDims, s.ScatterDimsToOperandDims = pick(s.UpdateWindowDims), pick(s.InsertedWindowDims), pick(s.ScatterDimsToOperandDims)
					s.IndexVectorDim += r.IntN(3) - 1
				}
			case 7:
				in.TupleIndex += r.IntN(3) - 1
				in.K += r.IntN(3) - 1
				in.FeatureIndex += r.IntN(3) - 1
				in.IotaDimension += r.IntN(3) - 1
			case 8:
				if d := in.DotDims; d != nil {
					d.LhsContracting, d.RhsBatch = pick(d.LhsContracting), pick(d.RhsBatch)
				}
				if d := in.ConvDims; d != nil {
					d.InputSpatial, d.KernelSpatial = pick(d.InputSpatial), pick(d.KernelSpatial)
					d.OutputFeature += r.IntN(3) - 1
				}
				in.FeatureGroupCount += r.IntN(3) - 1
			case 9:
				other := m.Computations[r.IntN(len(m.Computations))]
				switch {
				case in.ToApply != nil:
					in.ToApply = other
				case in.Body != nil:
					in.Body = other
				case len(in.Branches) > 0:
					in.Branches[r.IntN(len(in.Branches))] = other
				case in.Select != nil:
					in.Select = other
				}
			case 10:
				if lit, err := NewLiteral(randomShape(r, 0)); err == nil && in.Opcode == OpConstant {
					in.Literal = lit
				}
			case 11:
				if in.ReplicaGroups != nil {
					in.ReplicaGroups.Groups = append(in.ReplicaGroups.Groups, randomInts(r))
				}
				in.SourceTargetPairs = append(in.SourceTargetPairs, [2]int{r.IntN(6) - 1, r.IntN(6) - 1})
			}
			m.Verify()
			for _, c := range m.Computations {
				c.Verify()
			}
		}
	})
}

func slicesIndex(list []*Instruction, in *Instruction) int {
	for i, x := range list {
		if x == in {
			return i
		}
	}
	return -1
}
