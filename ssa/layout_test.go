package ssa

import (
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// physicalLiteral lays the logical literal l out as shape s (with its
// layout) says, and returns those bytes as a literal of physicalShape(s).
func physicalLiteral(l *ir.Literal, s ir.Shape) *ir.Literal {
	if s.IsTuple() {
		elems := make([]*ir.Literal, len(s.Tuple))
		for i, e := range s.Tuple {
			elems[i] = physicalLiteral(l.Element(i), e)
		}
		return ir.NewTupleLiteral(elems...)
	}
	out := ir.MustNewLiteral(physicalShape(s))
	es := s.Elem.ByteSize()
	src, dst := l.Bytes(), out.Bytes()
	for pos := 0; pos < l.ElementCount(); pos++ {
		i := ir.RowMajorIndex(s.Dims, s.MultiIndex(pos))
		copy(dst[pos*es:(pos+1)*es], src[i*es:(i+1)*es])
	}
	return out
}

// checkLayoutEquivalent evaluates the original module on random logical
// arguments and the program on the same arguments laid out physically as
// declared, and compares the program's results with the original's laid
// out as the result is declared.
func checkLayoutEquivalent(t *testing.T, orig *ir.Module, p *Program, params []ir.Shape, result ir.Shape) {
	t.Helper()
	raised := raiseChecked(t, p)
	args := randomArgs(orig, 1)
	want, err := eval.Run(orig, args...)
	if err != nil {
		t.Fatal(err)
	}
	pargs := make([]*ir.Literal, len(args))
	for i, a := range args {
		pargs[i] = physicalLiteral(a, params[i])
	}
	got, err := eval.Run(raised, pargs...)
	if err != nil {
		t.Fatalf("%v\n%s", err, raised)
	}
	var wantPhys []*ir.Literal
	if result.IsTuple() {
		wantPhys = physicalLiteral(ir.NewTupleLiteral(want...), result).Elements()
	} else {
		wantPhys = []*ir.Literal{physicalLiteral(want[0], result)}
	}
	for i := range wantPhys {
		if !got[i].Equal(wantPhys[i]) {
			t.Fatalf("result %d: got %v, want %v\n%s", i, got[i], wantPhys[i], raised)
		}
	}
}

func TestLayout(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"column-major parameter and result", `
			ENTRY main {
			  x = f32[2,3]{0,1} parameter(0)
			  y = f32[2,3] parameter(1)
			  ROOT a = f32[2,3]{0,1} add(x, y)
			}`, `
			x = f32[3,2] parameter(0)
			y = f32[2,3] parameter(1)
			transpose.1 = f32[2,3] transpose(x), dimensions={1,0}
			a = f32[2,3] add(transpose.1, y)
			ROOT transpose.2 = f32[3,2] transpose(a), dimensions={1,0}`},
		{"entry_computation_layout decides", `
			HloModule m, entry_computation_layout={(f32[2,3,4]{0,2,1})->f32[4,2,3]{2,1,0}}
			ENTRY main {
			  x = f32[2,3,4] parameter(0)
			  ROOT t = f32[4,2,3] transpose(x), dimensions={2,0,1}
			}`, `
			x = f32[3,4,2] parameter(0)
			transpose.1 = f32[2,3,4] transpose(x), dimensions={2,0,1}
			ROOT t = f32[4,2,3] transpose(transpose.1), dimensions={2,0,1}`},
		{"bitcast between layouts", `
			ENTRY main {
			  x = f32[4,6]{0,1} parameter(0)
			  ROOT b = f32[2,2,6]{2,1,0} bitcast(x)
			}`, `
			x = f32[6,4] parameter(0)
			transpose.1 = f32[4,6] transpose(x), dimensions={1,0}
			transpose.2 = f32[6,4] transpose(transpose.1), dimensions={1,0}
			ROOT reshape.1 = f32[2,2,6] reshape(transpose.2)`},
		{"tuple parameter and result", `
			ENTRY main {
			  t = (f32[2,3]{0,1}, s32[4]) parameter(0)
			  a = f32[2,3] get-tuple-element(t), index=0
			  n = f32[2,3] negate(a)
			  i = s32[4] get-tuple-element(t), index=1
			  ROOT r = (s32[4], f32[2,3]{0,1}) tuple(i, n)
			}`, `
			t = (f32[3,2], s32[4]) parameter(0)
			get-tuple-element.1 = f32[3,2] get-tuple-element(t), index=0
			transpose.1 = f32[2,3] transpose(get-tuple-element.1), dimensions={1,0}
			get-tuple-element.2 = s32[4] get-tuple-element(t), index=1
			tuple.1 = (f32[2,3], s32[4]) tuple(transpose.1, get-tuple-element.2)
			a = f32[2,3] get-tuple-element(tuple.1), index=0
			n = f32[2,3] negate(a)
			i = s32[4] get-tuple-element(tuple.1), index=1
			transpose.2 = f32[3,2] transpose(n), dimensions={1,0}
			ROOT tuple.2 = (s32[4], f32[3,2]) tuple(i, transpose.2)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := c.in
			if text[0] != 'H' && (len(text) < 4 || trimLines(text)[0] != 'H') {
				text = "HloModule test\n" + text
			}
			orig, p := lowerText(t, trimLines(text))
			params := make([]ir.Shape, len(p.Entry.Params))
			for i, prm := range p.Entry.Params {
				params[i] = declaredParamShape(p, prm)
			}
			result := declaredResultShape(p)
			runPasses(t, p, "layout", "dce")
			if got, want := entryText(t, p), trimLines(c.want); got != want {
				t.Errorf("after layout:\n%s\nwant:\n%s", got, want)
			}
			for _, f := range p.Funcs {
				for _, v := range f.Values {
					if !allDefaultLayouts(v.Shape) {
						t.Errorf("%v (%s) keeps the layout of %v", v, v.Op, v.Shape)
					}
				}
			}
			checkLayoutEquivalent(t, orig, p, params, result)
			runPasses(t, p, "simplify-late", "dce-late")
			checkLayoutEquivalent(t, orig, p, params, result)
		})
	}
}

func TestLayoutRefusesTiledLayouts(t *testing.T) {
	_, p := lowerText(t, moduleText(`ROOT x = f32[8,128]{1,0:T(8,128)} parameter(0)`))
	err := Optimize(p, Options{})
	if err == nil || !strings.Contains(err.Error(), "tiled") {
		t.Fatalf("a tiled layout: got %v, want an error saying it is tiled", err)
	}
}
