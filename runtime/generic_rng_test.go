package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

func TestGenericRngBitGeneratorAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(121, 122))
	for _, alg := range []string{"rng_default", "rng_three_fry", "rng_philox"} {
		for _, n := range []int{2, 3} {
			if n == 3 && alg == "rng_three_fry" {
				continue
			}
			for _, typ := range []ir.ElementType{ir.U32, ir.U64, ir.U8, ir.U4, ir.U16} {
				for _, dims := range [][]int{{}, {7}, {3, 5}, {4, 3}, {2, 0}, {9, 2, 3}} {
					st := ir.MakeShape(ir.U64, n)
					hlo := fmt.Sprintf("HloModule m\nENTRY e {\n  s = %s parameter(0)\n  ROOT r = (%s, %s) rng-bit-generator(s), algorithm=%s\n}\n",
						st.StringWithoutLayout(), st.StringWithoutLayout(), shapeText(typ, dims...), alg)
					if !validModule(hlo) {
						t.Fatalf("invalid module\n%s", hlo)
					}
					state := ir.MustNewLiteral(st)
					for i := 0; i < n; i++ {
						v := r.Uint64()
						if i > 0 && r.IntN(2) == 0 {
							v = ^uint64(r.IntN(3)) // counters about to wrap
						}
						state.SetUint64At(i, v)
					}
					checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{state}})
				}
			}
		}
	}
}

func TestGenericRngAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(123, 124))
	for _, typ := range []ir.ElementType{ir.F32, ir.F64, ir.BF16, ir.F16, ir.S32, ir.U8, ir.S64, ir.U64} {
		ts := typeName(typ)
		for _, dist := range []string{"rng_uniform", "rng_normal"} {
			if dist == "rng_normal" && !typ.IsFloat() {
				continue
			}
			// Three rng ops and a state query: each draws from where the
			// previous one left the counter.
			hlo := fmt.Sprintf(`HloModule m
ENTRY e {
  a = T[] parameter(0)
  b = T[] parameter(1)
  x = T[3,5] rng(a, b), distribution=%s
  y = T[7] rng(a, b), distribution=%s
  s = u64[2] rng-get-and-update-state(), delta=5
  z = T[] rng(a, b), distribution=%s
  ROOT r = (T[3,5], T[7], u64[2], T[]) tuple(x, y, s, z)
}
`, dist, dist, dist)
			hlo = strings.ReplaceAll(hlo, "T[", ts+"[")
			if !validModule(hlo) {
				t.Fatalf("invalid module\n%s", hlo)
			}
			a, b := ir.MustNewLiteral(ir.Scalar(typ)), ir.MustNewLiteral(ir.Scalar(typ))
			if typ.IsFloat() {
				a.SetFloat64At(0, r.NormFloat64())
				b.SetFloat64At(0, a.Float64At(0)+1+r.Float64()*10)
			} else {
				a.SetInt64At(0, int64(r.IntN(50)))
				b.SetInt64At(0, a.Int64At(0)+int64(r.IntN(100)))
			}
			checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{a, b}})
		}
	}
}

func TestRngInsideLoopIsRefused(t *testing.T) {
	hlo := `HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  x = f32[4] rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[], f32[4]) tuple(j, x)
}
ENTRY e {
  z = s32[] constant(0)
  x = f32[4] parameter(0)
  t = (s32[], f32[4]) tuple(z, x)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}`
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(m)
	if err == nil || !strings.Contains(err.Error(), "rng") {
		t.Errorf("compiling rng inside a loop body gave %v, want an error naming rng", err)
	}
}
