package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
)

func TestInfeedOutfeedSendRecv(t *testing.T) {
	m := parseHLO(t, `HloModule m
ENTRY e {
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  x = f32[2] get-tuple-element(in), index=0
  t1 = token[] get-tuple-element(in), index=1
  y = f32[2] add(x, x)
  t2 = token[] outfeed(y, t1), outfeed_shape=f32[2]
  s = (f32[2], u32[], token[]) send(y, t2), channel_id=7
  sd = token[] send-done(s), channel_id=7
  r = (f32[2], u32[], token[]) recv(sd), channel_id=7
  rd = (f32[2], token[]) recv-done(r), channel_id=7
  v = f32[2] get-tuple-element(rd), index=0
  d = f32[2] add-dependency(v, sd)
  ROOT o = f32[2] multiply(d, x)
}
`)
	infeed := make(chan *ir.Literal, 1)
	outfeed := make(chan *ir.Literal, 1)
	ch := map[int64]chan *ir.Literal{7: make(chan *ir.Literal, 1)}
	infeed <- vec[float32](1, 3)
	out, err := RunWithOptions(m, Options{Infeed: infeed, Outfeed: outfeed, Channels: ch})
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, out[0], "f32[2]", reals(2, 18), 0)
	expectClose(t, <-outfeed, "f32[2]", reals(2, 6), 0)
}

func TestIOErrors(t *testing.T) {
	m := parseHLO(t, `HloModule m
ENTRY e {
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  ROOT x = f32[2] get-tuple-element(in), index=0
}
`)
	_, err := RunWithOptions(m, Options{})
	wantErr(t, err, "infeed", "no channel")
	feed := make(chan *ir.Literal, 1)
	feed <- vec[float32](1, 2, 3)
	_, err = RunWithOptions(m, Options{Infeed: feed})
	wantErr(t, err, "f32[3]", "f32[2]")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = RunWithOptions(m, Options{Infeed: make(chan *ir.Literal), Context: ctx})
	wantErr(t, err, "deadline")
}

func TestReplicaAndPartitionIDSingleReplica(t *testing.T) {
	out := runHLO(t, `HloModule m
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(r, p)
}
`)
	expectClose(t, out[0], "u32[]", reals(0), 0)
	expectClose(t, out[1], "u32[]", reals(0), 0)
}

func TestDynamicDimensionSizes(t *testing.T) {
	// The seed's example: set-dimension-size of f32[10] {1…10} to 5, then
	// reduce: the dynamic elements beyond 5 are ignored (sum 15); and
	// get-dimension-size reads the sizes back.
	x := vec[float32](1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	out := runHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  v = f32[10] parameter(0)
  five = s32[] constant(5)
  d = f32[<=10] set-dimension-size(v, five), dimensions={0}
  g = s32[] get-dimension-size(d), dimensions={0}
  g2 = s32[] get-dimension-size(v), dimensions={0}
  z = f32[] constant(0)
  s = f32[] reduce(d, z), dimensions={0}, to_apply=add
  ROOT t = (s32[], s32[], f32[], f32[<=10]) tuple(g, g2, s, d)
}
`, scalarComputation("add", "add", ir.F32)), x)
	expectClose(t, out[0], "s32[]", reals(5), 0)
	expectClose(t, out[1], "s32[]", reals(10), 0)
	expectClose(t, out[2], "f32[]", reals(15), 0)
	if s := out[3].Shape(); s.Dims[0] != 5 || !s.IsDynamicDim(0) {
		t.Fatalf("dynamic result shape %v, want actual size 5, dynamic", s)
	}
	err := runErr(t, `HloModule m
ENTRY e {
  v = f32[4] parameter(0)
  n = s32[] constant(9)
  ROOT d = f32[<=4] set-dimension-size(v, n), dimensions={0}
}
`, vec[float32](1, 2, 3, 4))
	wantErr(t, err, "size 9", "[0, 4]")
}

func TestBatchNormTrainingNormalises(t *testing.T) {
	// Feature dimension 0: each feature's output has mean = offset and
	// (population) variance = scale² · var/(var+ε).
	x := lit([]int{2, 4}, float32(1), 2, 3, 4, 10, 10, 20, 20)
	out := runHLO(t, `HloModule m
ENTRY e {
  x = f32[2,4] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT b = (f32[2,4], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=0
}
`, x, vec[float32](2, 1), vec[float32](0, 5))
	expectClose(t, out[1], "f32[2]", reals(2.5, 15), 0)
	expectClose(t, out[2], "f32[2]", reals(1.25, 25), 0)
	a := 2 / math.Sqrt(1.25)
	expectClose(t, out[0], "f32[2,4]", reals(-1.5*a, -0.5*a, 0.5*a, 1.5*a, 4, 4, 6, 6), 1e-6)
	err := runErr(t, `HloModule m
ENTRY e {
  x = f32[2,4] parameter(0)
  s = f32[3] parameter(1)
  o = f32[2] parameter(2)
  ROOT b = (f32[2,4], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=0
}
`, x, vec[float32](2, 1, 0), vec[float32](0, 5))
	wantErr(t, err, "f32[3]", "f32[2]")
}

func TestCustomCallRegistry(t *testing.T) {
	reg := NewCustomCallRegistry()
	reg.Register("twice_plus", func(in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
		// The seed's myfunc shape: out[i][j] = x[1] + y[1][0] pattern,
		// here out = 2·x + y[0] elementwise.
		x, y := ops[0].Float32s(), ops[1].Float32s()
		out := ir.MustNewLiteral(in.Shape)
		for i := range out.Float32s() {
			out.Float32s()[i] = 2*x[i] + y[i]
		}
		return out, nil
	})
	text := `HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT c = f32[2] custom-call(x, y), custom_call_target="twice_plus"
}
`
	out, err := RunWithOptions(parseHLO(t, text), Options{CustomCalls: reg}, vec[float32](1, 2), vec[float32](10, 20))
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, out[0], "f32[2]", reals(12, 24), 0)
	if got := reg.Targets(); len(got) != 1 || got[0] != "twice_plus" {
		t.Fatalf("Targets() = %v", got)
	}
	// An unknown target is an UnsupportedError naming it.
	_, err = RunWithOptions(parseHLO(t, strings.Replace(text, "twice_plus", "no_such_fn", 1)),
		Options{CustomCalls: reg}, vec[float32](1, 2), vec[float32](10, 20))
	wantErr(t, err, `"no_such_fn"`, "not registered", "twice_plus")
	var ue *UnsupportedError
	if !asUnsupported(err, &ue) {
		t.Fatalf("error %v is not an UnsupportedError", err)
	}
}

func asUnsupported(err error, target **UnsupportedError) bool { return errors.As(err, target) }

// TestNumericOpsOnDynamicShapes runs ops whose results keep a dynamic
// dimension: their literals hold the actual sizes within the bounds.
func TestNumericOpsOnDynamicShapes(t *testing.T) {
	x := lit([]int{4, 3}, float32(1), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
	out := runHLO(t, fmt.Sprintf(`HloModule m
%s
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  v = f32[4,3] parameter(0)
  two = s32[] constant(2)
  d = f32[<=4,3] set-dimension-size(v, two), dimensions={0}
  z = f32[] constant(0)
  s = f32[<=4] reduce(d, z), dimensions={1}, to_apply=add
  o = f32[<=4,3] sort(d), dimensions={1}, to_apply=cmp
  w = f32[3,3] parameter(1)
  p = f32[<=4,3] dot(d, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[<=4], f32[<=4,3], f32[<=4,3]) tuple(s, o, p)
}
`, scalarComputation("add", "add", ir.F32)), x, lit([]int{3, 3}, float32(1), 0, 0, 0, 1, 0, 0, 0, 1))
	for i, want := range [][]float64{{6, 15}, {3, 2, 1, 6, 5, 4}, {1, 2, 3, 4, 5, 6}} {
		if d := out[i].Shape().Dims; d[0] != 2 {
			t.Fatalf("result %d has dimensions %v, want actual size 2 in dimension 0", i, d)
		}
		expectClose(t, out[i], out[i].Shape().StringWithoutLayout(), reals(want...), 0)
	}
}
