package runtime

import (
	"bytes"
	"math"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// Signalling NaNs through the compiled path, fast and generic steps alike:
// the ops that move or choose values keep their bits, and a total-order
// argmax ranks a signalling NaN below a quiet one, bit for bit as ir/eval.
func TestSignallingNaNsCompiled(t *testing.T) {
	const snan32, qnan32 = 0x7fa00001, 0x7fc00000
	for _, h := range []string{
		`HloModule m
ENTRY e { x = f32[3] parameter(0)  ROOT r = f32[3] negate(x) }`,
		`HloModule m
ENTRY e { x = f32[3] parameter(0)  y = f32[3] parameter(1)  ROOT r = f32[3] maximum(y, x) }`,
		`HloModule m
ENTRY e { x = bf16[3] parameter(0)  y = bf16[3] parameter(1)  ROOT r = bf16[3] minimum(y, x) }`,
		`HloModule m
ENTRY e { x = f64[3] parameter(0)  y = f64[3] parameter(1)  ROOT r = f64[3] maximum(y, x) }`,
		`HloModule m
ENTRY e { x = f32[3] parameter(0)  ROOT r = f64[3] convert(x) }`,
		`HloModule m
argmax {
  a = f32[] parameter(0)  ai = s32[] parameter(1)  b = f32[] parameter(2)  bi = s32[] parameter(3)
  c = pred[] compare(b, a), direction=GT, type=TOTALORDER
  ROOT t = (f32[], s32[]) tuple(f32[] select(c, b, a), s32[] select(c, bi, ai))
}
ENTRY e {
  x = f32[3] parameter(0)
  i = s32[3] iota(), iota_dimension=0
  ROOT r = (f32[], s32[]) reduce(x, i, f32[] constant(-inf), s32[] constant(-1)), dimensions={0}, to_apply=argmax
}`,
		`HloModule m
argmax {
  a = f32[] parameter(0)  ai = s32[] parameter(1)  b = f32[] parameter(2)  bi = s32[] parameter(3)
  c = pred[] compare(b, a), direction=GT, type=TOTALORDER
  ROOT t = (f32[], s32[]) tuple(f32[] select(c, b, a), s32[] select(c, bi, ai))
}
ENTRY e {
  x = f32[3] parameter(0)
  i = s32[3] iota(), iota_dimension=0
  ROOT r = (f32[2], s32[2]) reduce-window(x, i, f32[] constant(-inf), s32[] constant(-1)), window={size=2}, to_apply=argmax
}`,
	} {
		m, err := ir.ParseModule(h)
		if err != nil {
			t.Fatal(err)
		}
		var args []*ir.Literal
		for _, p := range m.Entry.Parameters {
			l := ir.MustNewLiteral(p.Shape)
			for i := 0; i < 3; i++ {
				switch p.Shape.Elem {
				case ir.F32:
					bits := []uint32{qnan32, snan32, snan32 | 1<<31}[i]
					l.Float32s()[i] = math.Float32frombits(bits)
				case ir.F64:
					l.Float64s()[i] = math.Float64frombits(0x7ff4000000000001)
				case ir.BF16:
					l.Bytes()[2*i], l.Bytes()[2*i+1] = 0x81, 0x7f
				}
			}
			args = append(args, l)
		}
		want, err := eval.Run(m, args...)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		got := runLiterals(t, e, args)
		for i := range want {
			if !bytes.Equal(got[i].Bytes(), want[i].Bytes()) {
				t.Errorf("%s\nresult %d: bytes %x, want %x", h, i, got[i].Bytes(), want[i].Bytes())
			}
		}
	}
}
