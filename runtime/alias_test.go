package runtime

import (
	"context"
	"math"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// A module's input_output_alias is honoured: a caller that passes the same
// tensor as the aliased argument and result (donating it) gets the right
// result whether the plan writes it in place (an elementwise loop, a
// dynamic-update-slice, a parameter passed through) or not (a reverse
// reads elements after they would have been overwritten: the run first
// moves the argument aside), and the donated runs allocate nothing.
func TestInputOutputAliasDonated(t *testing.T) {
	cases := []struct {
		name, hlo string
		inPlace   bool
	}{
		{"add-one", `HloModule add_one, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  x = f32[3000] parameter(0)
  one = f32[] constant(1)
  ob = f32[3000] broadcast(one), dimensions={}
  a = f32[3000] add(x, ob)
  ROOT t = (f32[3000]) tuple(a)
}`, true},
		{"update-slice", `HloModule dus, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY main {
  x = f32[64,32] parameter(0)
  u = f32[2,32] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = f32[64,32] dynamic-update-slice(x, u, i, z)
}`, true},
		{"pass-through", `HloModule pass, input_output_alias={ {1}: (0, {}, may-alias) }
ENTRY main {
  x = f32[40] parameter(0)
  e = f32[40] exponential(x)
  ROOT t = (f32[40], f32[40]) tuple(e, x)
}`, true},
		{"reverse", `HloModule rev, input_output_alias={ {}: (0, {}) }
ENTRY main {
  x = f32[50] parameter(0)
  ROOT r = f32[50] reverse(x), dimensions={0}
}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, e := compileText(t, c.hlo)
			aliases := e.entry.plan.Aliases
			if len(aliases) != 1 || aliases[0].InPlace != c.inPlace {
				t.Fatalf("plan aliases %+v, want one with InPlace %v\n%s", aliases, c.inPlace, e.entry.plan)
			}
			var lits []*ir.Literal
			var args []*Tensor
			for i, p := range m.Entry.Parameters {
				l := detrand.Literal(p.Shape, detrand.Seed(t.Name(), i))
				if p.Shape.Elem == ir.S32 {
					l = ir.MustNewLiteral(p.Shape)
					l.SetFloat64At(0, 7)
				}
				lits = append(lits, l)
				args = append(args, TensorFromLiteral(l))
			}
			want, err := eval.Run(m, lits...)
			if err != nil {
				t.Fatal(err)
			}
			var flat []*ir.Literal
			for _, w := range want {
				flat = flattenForTest(w, flat)
			}
			a := aliases[0]
			outs := make([]*Tensor, len(e.ResultShapes()))
			for i, s := range e.ResultShapes() {
				if outs[i], err = NewTensor(s); err != nil {
					t.Fatal(err)
				}
			}
			outs[a.Result] = args[a.Param] // donated
			if err := e.RunInto(context.Background(), outs, args...); err != nil {
				t.Fatal(err)
			}
			for i, w := range flat {
				g := outs[i].Literal()
				for j := 0; j < w.ElementCount(); j++ {
					if math.Abs(g.Float64At(j)-w.Float64At(j)) > 1e-6*(1+math.Abs(w.Float64At(j))) {
						t.Fatalf("result %d element %d: %v, want %v", i, j, g.Float64At(j), w.Float64At(j))
					}
				}
			}
			allocs := testing.AllocsPerRun(5, func() {
				if err := e.RunInto(context.Background(), outs, args...); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per donated run", allocs)
			}
		})
	}
}

func flattenForTest(l *ir.Literal, out []*ir.Literal) []*ir.Literal {
	if !l.Shape().IsTuple() {
		return append(out, l)
	}
	for i := range l.Shape().Tuple {
		out = flattenForTest(l.Element(i), out)
	}
	return out
}
