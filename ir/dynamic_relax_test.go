package ir

import (
	"strings"
	"testing"
)

// relaxed parses text, relaxes dimension 0 of parameter 0 to bound 64 and
// returns the result's instructions by name.
func relaxed(t *testing.T, text string, dims ...DynamicDimension) (*Module, error) {
	t.Helper()
	m, err := ParseModule(text)
	if err != nil {
		t.Fatal(err)
	}
	if dims == nil {
		dims = []DynamicDimension{{Param: 0, Dim: 0, Bound: 64}}
	}
	before := m.String()
	r, err := RelaxDimensions(m, dims)
	if m.String() != before {
		t.Errorf("RelaxDimensions changed its argument")
	}
	return r, err
}

func TestRelaxDimensions(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       map[string]string // instruction → shape after relaxing
	}{
		{"dense layer", `HloModule m
ENTRY e {
  x = f32[32,784] parameter(0)
  w = f32[784,512] parameter(1)
  b = f32[512] parameter(2)
  d = f32[32,512] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[32,512] broadcast(b), dimensions={1}
  a = f32[32,512] add(d, bb)
  z = f32[] constant(0)
  zb = f32[32,512] broadcast(z), dimensions={}
  ROOT r = f32[32,512] maximum(a, zb)
}`, map[string]string{"x": "f32[<=64,784]", "d": "f32[<=64,512]", "bb": "f32[64,512]", "a": "f32[<=64,512]", "zb": "f32[64,512]", "r": "f32[<=64,512]"}},
		{"batch of 1 merged and split by reshapes", `HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT sum = f32[] add(a, b) }
ENTRY e {
  x = f32[1,128,768] parameter(0)
  r = f32[128,768] reshape(x)
  h = f32[1,128,12,64] reshape(x)
  t = f32[1,12,128,64] transpose(h), dimensions={0,2,1,3}
  s = f32[1,12,128] reduce(t, f32[] constant(0)), dimensions={3}, to_apply=add
  ROOT o = (f32[128,768], f32[1,12,128]) tuple(r, s)
}`, map[string]string{"r": "f32[<=8192,768]", "h": "f32[<=64,128,12,64]", "t": "f32[<=64,12,128,64]", "s": "f32[<=64,12,128]"}},
		{"loop state", `HloModule m
cond { s = (s32[], f32[8,4]) parameter(0)  i = s32[] get-tuple-element(s), index=0  ROOT c = pred[] compare(i, s32[] constant(3)), direction=LT }
body {
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8,4] get-tuple-element(s), index=1
  y = f32[8,4] multiply(x, x)
  ROOT t = (s32[], f32[8,4]) tuple(s32[] add(i, s32[] constant(1)), y)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  t = (s32[], f32[8,4]) tuple(s32[] constant(0), x)
  w = (s32[], f32[8,4]) while(t), condition=cond, body=body
  ROOT r = f32[8,4] get-tuple-element(w), index=1
}`, map[string]string{"w": "(s32[], f32[<=64,4])", "r": "f32[<=64,4]", "y": "f32[<=64,4]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := relaxed(t, c.text)
			if err != nil {
				t.Fatal(err)
			}
			for _, comp := range r.Computations {
				for _, in := range comp.Instructions {
					if want, ok := c.want[in.Name]; ok && in.Shape.StringWithoutLayout() != want {
						t.Errorf("%s has shape %s, want %s", in.Name, in.Shape.StringWithoutLayout(), want)
					}
				}
			}
			if got := r.EntryLayout; got != nil && !strings.Contains(got.String(), "<=") {
				t.Errorf("entry layout %v does not carry the bound", got)
			}
		})
	}
}

func TestRelaxDimensionsRefuses(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
		dims             []DynamicDimension
	}{
		{"constant of the size", `HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  c = f32[4,3] constant({...})
  ROOT a = f32[4,3] add(x, c)
}`, "constant c", nil},
		{"slice along it", `HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  ROOT s = f32[2,3] slice(x), slice={[0:2], [0:3]}
}`, "s (slice) uses dimension 0", nil},
		{"another parameter of the size", `HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  y = f32[4,3] parameter(1)
  ROOT a = f32[4,3] add(x, y)
}`, "relax it too", nil},
		{"uneven split", `HloModule m
ENTRY e {
  x = f32[6,4] parameter(0)
  ROOT r = f32[3,8] reshape(x)
}`, "r (reshape)", nil},
		{"different bounds meeting", `HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  y = f32[4,3] parameter(1)
  ROOT a = f32[4,3] add(x, y)
}`, "same size", []DynamicDimension{{0, 0, 8}, {1, 0, 16}}},
		{"no such parameter", `HloModule m
ENTRY e {
  ROOT x = f32[4,3] parameter(0)
}`, "parameter 2 does not exist", []DynamicDimension{{2, 0, 8}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := relaxed(t, c.text, c.dims...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

// TestRelaxDimensionsTwoParameters relaxes two parameters that meet: both
// bounded, the sum dynamic.
func TestRelaxDimensionsTwoParameters(t *testing.T) {
	r, err := relaxed(t, `HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  y = f32[4,3] parameter(1)
  ROOT a = f32[4,3] add(x, y)
}`, DynamicDimension{0, 0, 8}, DynamicDimension{1, 0, 8})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Entry.Root.Shape.StringWithoutLayout(); got != "f32[<=8,3]" {
		t.Errorf("root %s, want f32[<=8,3]", got)
	}
}
