package eval

import (
	"math"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// Signalling NaNs: the ops that move or choose values keep a signalling
// NaN's bits, as XLA's evaluator does; the ops that compute give a quiet
// NaN; a total-order comparison ranks a signalling NaN below the quiet
// NaN of the same sign (its quiet bit is clear).
func TestSignallingNaNs(t *testing.T) {
	const snan32, qnan32 = 0x7fa00001, 0x7fc00000
	const snan64 = 0x7ff4000000000001
	f32 := func(bits ...uint32) *ir.Literal {
		l := ir.MustNewLiteral(ir.MakeShape(ir.F32, len(bits)))
		for i, b := range bits {
			l.Float32s()[i] = math.Float32frombits(b)
		}
		return l
	}
	for _, c := range []struct {
		name, hlo string
		args      []*ir.Literal
		want      []uint32 // f32 result bits, or (for pred results) 0/1
	}{
		{"negate", `HloModule m
ENTRY e { x = f32[1] parameter(0)  ROOT r = f32[1] negate(x) }`, []*ir.Literal{f32(snan32)}, []uint32{snan32 | 1<<31}},
		{"abs", `HloModule m
ENTRY e { x = f32[1] parameter(0)  ROOT r = f32[1] abs(f32[1] negate(x)) }`, []*ir.Literal{f32(snan32)}, []uint32{snan32}},
		{"maximum", `HloModule m
ENTRY e { x = f32[1] parameter(0)  y = f32[1] parameter(1)  ROOT r = f32[1] maximum(y, x) }`, []*ir.Literal{f32(snan32), f32(0x3f800000)}, []uint32{snan32}},
		{"select", `HloModule m
ENTRY e { x = f32[2] parameter(0)  y = f32[2] parameter(1)  p = pred[2] constant({true, false})  ROOT r = f32[2] select(p, x, y) }`, []*ir.Literal{f32(snan32, 0), f32(0, snan32)}, []uint32{snan32, snan32}},
		{"exponential quiets", `HloModule m
ENTRY e { x = f32[1] parameter(0)  ROOT r = f32[1] exponential(x) }`, []*ir.Literal{f32(snan32)}, []uint32{snan32 | 1<<22}},
		{"add quiets", `HloModule m
ENTRY e { x = f32[1] parameter(0)  ROOT r = f32[1] add(x, x) }`, []*ir.Literal{f32(snan32)}, []uint32{snan32 | 1<<22}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.hlo)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Run(m, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if g := math.Float32bits(out[0].Float32s()[i]); g != w {
					t.Errorf("element %d has bits %#x, want %#x", i, g, w)
				}
			}
		})
	}
	t.Run("argmax in total order", func(t *testing.T) {
		m, err := ir.ParseModule(`HloModule m
argmax {
  a = f32[] parameter(0)  ai = s32[] parameter(1)  b = f32[] parameter(2)  bi = s32[] parameter(3)
  c = pred[] compare(b, a), direction=GT, type=TOTALORDER
  s = f32[] select(c, b, a)
  si = s32[] select(c, bi, ai)
  ROOT t = (f32[], s32[]) tuple(s, si)
}
ENTRY e {
  x = f32[3] parameter(0)
  i = s32[3] iota(), iota_dimension=0
  z = f32[] constant(-inf)
  zi = s32[] constant(-1)
  ROOT r = (f32[], s32[]) reduce(x, i, z, zi), dimensions={0}, to_apply=argmax
}`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Run(m, f32(qnan32, snan32, 0x3f800000))
		if err != nil {
			t.Fatal(err)
		}
		if g := math.Float32bits(out[0].Float32s()[0]); g != qnan32 || out[1].Int32s()[0] != 0 {
			t.Errorf("argmax is %#x at %d, want the quiet NaN %#x at 0 (above the signalling one)", g, out[1].Int32s()[0], uint32(qnan32))
		}
	})
	t.Run("f64 select", func(t *testing.T) {
		m, err := ir.ParseModule(`HloModule m
ENTRY e { x = f64[1] parameter(0)  ROOT r = f64[1] select(pred[1] constant({true}), x, x) }`)
		if err != nil {
			t.Fatal(err)
		}
		x := ir.MustNewLiteral(ir.MakeShape(ir.F64, 1))
		x.Float64s()[0] = math.Float64frombits(snan64)
		out, err := Run(m, x)
		if err != nil {
			t.Fatal(err)
		}
		if g := math.Float64bits(out[0].Float64s()[0]); g != snan64 {
			t.Errorf("bits %#x, want %#x", g, uint64(snan64))
		}
	})
}
