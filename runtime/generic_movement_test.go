package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// movementTypes cover every element size (1, 2, 4, 8, 16 bytes) and the
// types stored unusually (PRED, S4).
var movementTypes = []ir.ElementType{ir.PRED, ir.S4, ir.U8, ir.BF16, ir.F32, ir.S32, ir.F64, ir.C64, ir.C128}

// unaryModule is a module applying one instruction (attrs appended) to a
// parameter of shape in, with result shape out.
func unaryModule(in, out, op, attrs string) string {
	return fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s %s(p)%s\n}\n", in, out, op, attrs)
}

func dimsText(d []int) string {
	s := make([]string, len(d))
	for i, x := range d {
		s[i] = fmt.Sprint(x)
	}
	return "{" + strings.Join(s, ",") + "}"
}

func TestGenericTransposeBroadcastReverseAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, typ := range movementTypes {
		for _, c := range []struct {
			in   []int
			perm []int
		}{{[]int{}, []int{}}, {[]int{3, 4}, []int{1, 0}}, {[]int{2, 0, 3}, []int{2, 0, 1}}, {[]int{2, 3, 4, 5}, []int{3, 1, 0, 2}},
			{[]int{1, 7, 1}, []int{2, 1, 0}}, {[]int{33, 65}, []int{1, 0}}} {
			out := make([]int, len(c.perm))
			for i, p := range c.perm {
				out[i] = c.in[p]
			}
			in := ir.MakeShape(typ, c.in...)
			checkGeneric(t, genericCase{hlo: unaryModule(in.StringWithoutLayout(), shapeText(typ, out...), "transpose", ", dimensions="+dimsText(c.perm)),
				args: randomArgs(r, in)})
			checkGeneric(t, genericCase{hlo: unaryModule(in.StringWithoutLayout(), in.StringWithoutLayout(), "reverse", ", dimensions="+dimsText(c.perm)),
				args: randomArgs(r, in)})
		}
		for _, c := range []struct {
			in, out, dims []int
		}{{[]int{}, []int{3, 2}, []int{}}, {[]int{3}, []int{3, 4}, []int{0}}, {[]int{4}, []int{3, 4}, []int{1}},
			{[]int{2, 3}, []int{2, 5, 3}, []int{0, 2}}, {[]int{1, 3}, []int{4, 3}, []int{0, 1}}, {[]int{3}, []int{0, 3}, []int{1}}} {
			in := ir.MakeShape(typ, c.in...)
			checkGeneric(t, genericCase{hlo: unaryModule(in.StringWithoutLayout(), shapeText(typ, c.out...), "broadcast", ", dimensions="+dimsText(c.dims)),
				args: randomArgs(r, in)})
		}
	}
}

func TestGenericSlicePadConcatenateAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, typ := range movementTypes {
		in := ir.MakeShape(typ, 5, 7)
		for _, sl := range []string{"[0:5], [0:7]", "[1:4], [2:7:2]", "[0:5:3], [6:7]", "[2:2], [0:7]"} {
			out := sliceDims([]int{5, 7}, sl)
			checkGeneric(t, genericCase{hlo: unaryModule(in.StringWithoutLayout(), shapeText(typ, out...), "slice", ", slice={"+sl+"}"),
				args: randomArgs(r, in)})
		}
		for _, pad := range []string{"0_0x0_0", "1_2x3_0", "-1_2x0_-3", "1_1_2x-2_3_1", "-3_-2_1x0_0_3", "2_-9_1x0_0"} {
			out, ok := padDims([]int{5, 7}, pad)
			if !ok {
				continue
			}
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  v = %s parameter(1)\n  ROOT r = %s pad(p, v), padding=%s\n}\n",
				in.StringWithoutLayout(), ir.Scalar(typ).StringWithoutLayout(), shapeText(typ, out...), pad)
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, in, ir.Scalar(typ))})
		}
		a, b, c := ir.MakeShape(typ, 2, 3), ir.MakeShape(typ, 2, 0), ir.MakeShape(typ, 2, 4)
		hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  c = %s parameter(2)\n  ROOT r = %s concatenate(a, b, c, a), dimensions={1}\n}\n",
			a.StringWithoutLayout(), b.StringWithoutLayout(), c.StringWithoutLayout(), shapeText(typ, 2, 10))
		checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, a, b, c)})
		hlo = fmt.Sprintf("HloModule m\nENTRY e {\n  a = %s parameter(0)\n  c = %s parameter(1)\n  ROOT r = %s concatenate(a, c), dimensions={0}\n}\n",
			a.StringWithoutLayout(), a.StringWithoutLayout(), shapeText(typ, 4, 3))
		checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, a, a)})
	}
}

// sliceDims is the result of slice={[a:b:s], …} over dims.
func sliceDims(dims []int, text string) []int {
	var out []int
	for _, part := range strings.Split(text, ", ") {
		part = strings.Trim(part, "[]")
		f := strings.Split(part, ":")
		var a, b, s int
		fmt.Sscan(f[0], &a)
		fmt.Sscan(f[1], &b)
		s = 1
		if len(f) > 2 {
			fmt.Sscan(f[2], &s)
		}
		out = append(out, (b-a+s-1)/s)
	}
	return out
}

// padDims is the result of padding=lo_hi[_int]x… over dims.
func padDims(dims []int, text string) ([]int, bool) {
	p, err := ir.ParsePadding(text)
	if err != nil {
		panic(err)
	}
	out := make([]int, len(dims))
	for i, d := range p {
		n := dims[i]
		if n > 0 {
			n += (n - 1) * d.Interior
		}
		out[i] = d.Low + n + d.High
		if out[i] < 0 {
			return nil, false
		}
	}
	return out, true
}

func TestGenericIotaAgreesWithEvaluator(t *testing.T) {
	for _, typ := range ir.ElementTypes {
		for d, dims := range [][]int{{5}, {3, 70}, {2, 0, 3}, {2, 300, 1}} {
			dim := d % len(dims)
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  ROOT r = %s iota(), iota_dimension=%d\n}\n", shapeText(typ, dims...), dim)
			if !validModule(hlo) {
				continue
			}
			checkGeneric(t, genericCase{hlo: hlo})
		}
	}
}

func TestGenericDynamicSlicesAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, typ := range movementTypes {
		for _, it := range []ir.ElementType{ir.S32, ir.S64, ir.U32, ir.U8, ir.S8, ir.U64} {
			x := ir.MakeShape(typ, 5, 6)
			u := ir.MakeShape(typ, 2, 4)
			idx := ir.Scalar(it)
			for trial := 0; trial < 4; trial++ {
				i0, i1 := randomIndex(r, it), randomIndex(r, it)
				hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  i = %s parameter(1)\n  j = %s parameter(2)\n  ROOT r = %s dynamic-slice(p, i, j), dynamic_slice_sizes={2,4}\n}\n",
					x.StringWithoutLayout(), idx.StringWithoutLayout(), idx.StringWithoutLayout(), u.StringWithoutLayout())
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{randomLiteral(r, x), i0, i1}})
				hlo = fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s parameter(0)\n  u = %s parameter(1)\n  i = %s parameter(2)\n  j = %s parameter(3)\n  ROOT r = %s dynamic-update-slice(p, u, i, j)\n}\n",
					x.StringWithoutLayout(), u.StringWithoutLayout(), idx.StringWithoutLayout(), idx.StringWithoutLayout(), x.StringWithoutLayout())
				checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{randomLiteral(r, x), randomLiteral(r, u), i0, i1}})
			}
		}
	}
}

// randomIndex is a start index of type t: mostly in range, sometimes
// negative or far beyond it (clamped).
func randomIndex(r *rand.Rand, t ir.ElementType) *ir.Literal {
	l := ir.MustNewLiteral(ir.Scalar(t))
	switch r.IntN(4) {
	case 0:
		l.SetInt64At(0, int64(r.Uint64()))
	case 1:
		l.SetInt64At(0, -int64(r.IntN(5)))
	default:
		l.SetInt64At(0, int64(r.IntN(7)))
	}
	return l
}

func TestGenericLayoutCopiesAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, typ := range []ir.ElementType{ir.U8, ir.F32, ir.C128} {
		s := shapeText(typ, 3, 4, 5)
		for _, c := range []struct{ in, out string }{{"{2,1,0}", "{0,1,2}"}, {"{1,2,0}", "{2,1,0}"}, {"{0,2,1}", "{1,0,2}"}} {
			hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  p = %s%s parameter(0)\n  ROOT r = %s%s copy(p)\n}\n", s, c.in, s, c.out)
			m, err := ir.ParseModule(hlo)
			if err != nil {
				t.Fatal(err)
			}
			arg := randomLiteral(r, ir.MakeShape(typ, 3, 4, 5))
			checkLayoutModule(t, m, arg)
		}
	}
}

func TestGenericMovementWithLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, hlo := range []string{
		"HloModule m\nENTRY e {\n  p = s16[4,6]{0,1} parameter(0)\n  ROOT r = s16[6,4]{1,0} bitcast(p)\n}\n",
		"HloModule m\nENTRY e {\n  p = s16[4,6]{0,1} parameter(0)\n  ROOT r = s16[24]{0} reshape(p)\n}\n",
		"HloModule m\nENTRY e {\n  p = s16[4,6]{1,0} parameter(0)\n  ROOT r = s16[2,3,4]{0,2,1} reshape(p)\n}\n",
		"HloModule m\nENTRY e {\n  p = s16[4,6]{0,1} parameter(0)\n  ROOT r = s16[6,4]{0,1} transpose(p), dimensions={1,0}\n}\n",
		"HloModule m\nENTRY e {\n  p = s16[4,6]{0,1} parameter(0)\n  ROOT r = s16[2,3] slice(p), slice={[1:3], [0:6:2]}\n}\n",
		"HloModule m\nENTRY e {\n  p = s16[4,6]{0,1} parameter(0)\n  ROOT r = s16[4,2,6]{1,0,2} broadcast(p), dimensions={0,2}\n}\n",
		"HloModule m\nENTRY e {\n  p = s16[4,6]{0,1} parameter(0)\n  ROOT r = s16[8,6]{0,1} concatenate(p, p), dimensions={0}\n}\n",
	} {
		m, err := ir.ParseModule(hlo)
		if err != nil {
			t.Fatal(err)
		}
		checkLayoutModule(t, m, randomLiteral(r, ir.MakeShape(ir.S16, 4, 6)))
	}
}

// checkLayoutModule runs a one-parameter module whose parameter and result
// may have non-default layouts: the argument is handed over as the
// physical storage of the declared parameter layout, and the result's bytes
// must be the physical storage, under the declared result layout, of the
// evaluator's result.
func checkLayoutModule(t *testing.T, m *ir.Module, arg *ir.Literal) {
	t.Helper()
	want, err := eval.Run(m, arg)
	if err != nil {
		t.Fatalf("eval: %v", err)
	}
	exe, err := Compile(m)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	for _, k := range exe.Stats().Kernels {
		if k.Impl == "reference" {
			t.Errorf("kernel %v runs on the reference fallback", k)
		}
	}
	in, err := TensorFromBytes(exe.ParameterShapes()[0], alignedCopyOf(physical(arg, m.Entry.Parameters[0].Shape)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := exe.Run(context.Background(), in)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	rs := m.Entry.Root.Shape
	wantPhys := physical(want[0], rs)
	gotLit, err := ir.LiteralFromBytes(ir.MakeShape(rs.Elem, rs.ElementCount()), got[0].Bytes())
	if err != nil {
		t.Fatal(err)
	}
	wantLit, _ := ir.LiteralFromBytes(ir.MakeShape(rs.Elem, rs.ElementCount()), wantPhys)
	if msg := compareLiterals(gotLit, wantLit, 0); msg != "" {
		t.Errorf("physical storage under %v: %s\n%s", rs, msg, m)
	}
}

// physical returns the storage of row-major literal l laid out under shape
// s's layout.
func physical(l *ir.Literal, s ir.Shape) []byte {
	out := make([]byte, len(l.Bytes()))
	es := s.Elem.ByteSize()
	idx := make([]int, s.Rank())
	for i := 0; i < s.ElementCount(); i++ {
		p := s.LinearIndex(idx)
		copy(out[p*es:(p+1)*es], l.Bytes()[i*es:(i+1)*es])
		ir.NextIndex(s.Dims, idx)
	}
	return out
}

func alignedCopyOf(b []byte) []byte {
	out := alignedBytes(len(b))
	copy(out, b)
	return out
}
