package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// convCase is a convolution in canonical order (input [b, f, s…], kernel
// [o, i, s…], output [b, f, s…]) plus the layout it is written in.
type convCase struct {
	batch, inF, outF int
	in, kernel       []int // spatial sizes
	stride, lo, hi   []int
	lhsDil, rhsDil   []int
	rev              []bool
	fgc, bgc         int
	lhsPerm, rhsPerm []int // canonical dimension at each written position
	outPerm          []int
}

func (c convCase) outSpatial() []int {
	out := make([]int, len(c.in))
	for i := range out {
		base := ops.Dilated(c.in[i], c.lhsDil[i]) + c.lo[i] + c.hi[i]
		out[i] = ops.WindowCount(base, ops.Dilated(c.kernel[i], c.rhsDil[i]), c.stride[i])
	}
	return out
}

// reference computes the convolution with the seed's pseudocode, one output
// element at a time, in float64/complex128, canonical order.
func (c convCase) reference(lhs, rhs []complex128) []complex128 {
	n := len(c.in)
	os := c.outSpatial()
	outDims := append([]int{c.batch / c.bgc, c.outF}, os...)
	lhsDims := append([]int{c.batch, c.inF}, c.in...)
	rhsDims := append([]int{c.outF, c.inF / c.fgc}, c.kernel...)
	out := make([]complex128, numElements(outDims))
	oi := make([]int, len(outDims))
	for o := range out {
		b, oz := oi[0], oi[1]
		fg := oz / (c.outF / c.fgc)
		bg := oz / (c.outF / c.bgc)
		var acc complex128
		ki := make([]int, n)
		for {
			li := make([]int, n+2)
			inside := true
			for d := 0; d < n; d++ {
				u := oi[2+d]*c.stride[d] + ki[d]*c.rhsDil[d] - c.lo[d]
				if u < 0 || u%c.lhsDil[d] != 0 || u/c.lhsDil[d] >= c.in[d] {
					inside = false
				}
				li[2+d] = u / c.lhsDil[d]
			}
			if inside {
				for iz := 0; iz < c.inF/c.fgc; iz++ {
					li[0] = bg*(c.batch/c.bgc) + b
					li[1] = fg*(c.inF/c.fgc) + iz
					ri := append([]int{oz, iz}, ki...)
					for d := 0; d < n; d++ {
						if c.rev[d] {
							ri[2+d] = c.kernel[d] - 1 - ki[d]
						}
					}
					acc += lhs[ir.RowMajorIndex(lhsDims, li)] * rhs[ir.RowMajorIndex(rhsDims, ri)]
				}
			}
			if n == 0 || !ir.NextIndex(c.kernel, ki) {
				break
			}
		}
		out[o] = acc
		ir.NextIndex(outDims, oi)
	}
	return out
}

// permuteTo writes canonical data (dims) in the order perm: written
// dimension j is canonical dimension perm[j].
func permuteTo(v []complex128, dims, perm []int) ([]complex128, []int) {
	wd := make([]int, len(perm))
	for j, p := range perm {
		wd[j] = dims[p]
	}
	out := make([]complex128, len(v))
	ci := make([]int, len(dims))
	wi := make([]int, len(dims))
	for i := range v {
		for j, p := range perm {
			wi[j] = ci[p]
		}
		out[ir.RowMajorIndex(wd, wi)] = v[i]
		ir.NextIndex(dims, ci)
	}
	return out, wd
}

func literalOf(ty ir.ElementType, dims []int, v []complex128) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(ty, dims...))
	switch {
	case ty.IsComplex():
		setComplex(l, v)
	case ty.IsFloat():
		re := make([]float64, len(v))
		for i, z := range v {
			re[i] = real(z)
		}
		setFloats(l, re)
	default:
		re := make([]int64, len(v))
		for i, z := range v {
			re[i] = int64(real(z))
		}
		setInts(l, re)
	}
	return l
}

// labels writes dim_labels for a permutation: canonical 0 and 1 are named
// by two letters, spatial dimensions by their digits.
func labels(perm []int, first, second byte) string {
	var b strings.Builder
	for _, p := range perm {
		switch p {
		case 0:
			b.WriteByte(first)
		case 1:
			b.WriteByte(second)
		default:
			b.WriteString(fmt.Sprint(p - 2))
		}
	}
	return b.String()
}

func (c convCase) hlo(ty ir.ElementType) (string, []int) {
	n := len(c.in)
	var w []string
	for d := 0; d < n; d++ {
		w = append(w, fmt.Sprint(c.kernel[d]))
	}
	window := ""
	if n > 0 {
		var st, pad, ld, rd, rv []string
		for d := 0; d < n; d++ {
			st = append(st, fmt.Sprint(c.stride[d]))
			pad = append(pad, fmt.Sprintf("%d_%d", c.lo[d], c.hi[d]))
			ld = append(ld, fmt.Sprint(c.lhsDil[d]))
			rd = append(rd, fmt.Sprint(c.rhsDil[d]))
			if c.rev[d] {
				rv = append(rv, "1")
			} else {
				rv = append(rv, "0")
			}
		}
		window = fmt.Sprintf("window={size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s rhs_reversal=%s}, ",
			strings.Join(w, "x"), strings.Join(st, "x"), strings.Join(pad, "x"), strings.Join(ld, "x"), strings.Join(rd, "x"), strings.Join(rv, "x"))
	}
	lhsDims := append([]int{c.batch, c.inF}, c.in...)
	rhsDims := append([]int{c.outF, c.inF / c.fgc}, c.kernel...)
	outDims := append([]int{c.batch / c.bgc, c.outF}, c.outSpatial()...)
	pick := func(dims, perm []int) []int {
		out := make([]int, len(perm))
		for j, p := range perm {
			out[j] = dims[p]
		}
		return out
	}
	wOut := pick(outDims, c.outPerm)
	return fmt.Sprintf(`HloModule m
ENTRY e {
  x = %s parameter(0)
  k = %s parameter(1)
  ROOT c = %s convolution(x, k), %sdim_labels=%s_%s->%s, feature_group_count=%d, batch_group_count=%d
}
`, shapeText(ty, pick(lhsDims, c.lhsPerm)...), shapeText(ty, pick(rhsDims, c.rhsPerm)...), shapeText(ty, wOut...), window,
		labels(c.lhsPerm, 'b', 'f'), labels(c.rhsPerm, 'o', 'i'), labels(c.outPerm, 'b', 'f'), c.fgc, c.bgc), wOut
}

func randPerm(r *rand.Rand, n int) []int { return r.Perm(n) }

// TestConvolutionAgainstReference runs random convolutions (0 to 3 spatial
// dimensions, random layouts, strides, padding including negative, both
// dilations, reversal, feature or batch groups) against the seed's
// pseudocode evaluated directly.
func TestConvolutionAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	types := []ir.ElementType{ir.F32, ir.F64, ir.C64, ir.S32, ir.S8}
	for iter := 0; iter < 60; iter++ {
		n := iter % 4
		c := convCase{fgc: 1, bgc: 1}
		switch r.IntN(3) {
		case 1:
			c.fgc = 1 + r.IntN(3)
		case 2:
			c.bgc = 1 + r.IntN(3)
		}
		c.batch = c.bgc * (1 + r.IntN(2))
		c.inF = c.fgc * (1 + r.IntN(3))
		c.outF = c.fgc * c.bgc * (1 + r.IntN(2))
		for d := 0; d < n; d++ {
			c.in = append(c.in, 1+r.IntN(6))
			c.kernel = append(c.kernel, 1+r.IntN(3))
			c.stride = append(c.stride, 1+r.IntN(2))
			c.lo = append(c.lo, r.IntN(4)-1)
			c.hi = append(c.hi, r.IntN(4)-1)
			c.lhsDil = append(c.lhsDil, 1+r.IntN(2))
			c.rhsDil = append(c.rhsDil, 1+r.IntN(2))
			c.rev = append(c.rev, r.IntN(2) == 1)
		}
		c.lhsPerm, c.rhsPerm, c.outPerm = randPerm(r, n+2), randPerm(r, n+2), randPerm(r, n+2)
		ty := types[iter%len(types)]
		lhsDims := append([]int{c.batch, c.inF}, c.in...)
		rhsDims := append([]int{c.outF, c.inF / c.fgc}, c.kernel...)
		lhs := wideOf(randLiteral(r, ty, lhsDims...))
		rhs := wideOf(randLiteral(r, ty, rhsDims...))
		want := c.reference(lhs, rhs)
		outDims := append([]int{c.batch / c.bgc, c.outF}, c.outSpatial()...)
		want, _ = permuteTo(want, outDims, c.outPerm)
		lw, ld := permuteTo(lhs, lhsDims, c.lhsPerm)
		rw, rd := permuteTo(rhs, rhsDims, c.rhsPerm)
		text, wOut := c.hlo(ty)
		if ty == ir.S8 {
			for i, w := range want {
				want[i] = complex(float64(int8(int64(real(w)))), 0)
			}
		}
		tol := 0.0
		switch ty {
		case ir.F32, ir.C64:
			tol = 1e-5
		case ir.F64:
			tol = 1e-12
		}
		t.Run(fmt.Sprintf("%d/%v/%dd", iter, ty, n), func(t *testing.T) {
			out := runHLO(t, text, literalOf(ty, ld, lw), literalOf(ty, rd, rw))
			expectClose(t, out[0], shapeText(ty, wOut...), want, tol)
		})
	}
}

// TestConvolutionOneByOneEqualsDot checks the law conv(x, 1×1 kernel) =
// dot over the feature dimension, bit for bit (both accumulate the input
// features in order).
func TestConvolutionOneByOneEqualsDot(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x, k := randLiteral(r, ir.F32, 2, 5, 7, 13), randLiteral(r, ir.F32, 1, 1, 13, 6)
	out := runHLO(t, `HloModule m
ENTRY e {
  x = f32[2,5,7,13] parameter(0)
  k = f32[1,1,13,6] parameter(1)
  c = f32[2,5,7,6] convolution(x, k), window={size=1x1}, dim_labels=b01f_01io->b01f
  xr = f32[70,13] reshape(x)
  kr = f32[13,6] reshape(k)
  d = f32[70,6] dot(xr, kr), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dr = f32[2,5,7,6] reshape(d)
  ROOT t = (f32[2,5,7,6], f32[2,5,7,6]) tuple(c, dr)
}
`, x, k)
	if !out[0].Equal(out[1]) {
		t.Fatalf("1x1 convolution differs from dot")
	}
}

func TestConvolutionSeedPseudocodeSmall(t *testing.T) {
	// A 1-D convolution worked by hand with the seed's pseudocode: input
	// {1,2,3,4}, kernel {1,10}, stride 2, padding 1_1.
	out := runHLO(t, `HloModule m
ENTRY e {
  x = f32[1,1,4] parameter(0)
  k = f32[1,1,2] parameter(1)
  ROOT c = f32[1,1,3] convolution(x, k), window={size=2 stride=2 pad=1_1}, dim_labels=bf0_oi0->bf0
}
`, lit([]int{1, 1, 4}, float32(1), 2, 3, 4), lit([]int{1, 1, 2}, float32(1), 10))
	// Padded base: 0 1 2 3 4 0; windows at 0, 2, 4: 0+10·1, 2+10·3, 4+0.
	expectClose(t, out[0], "f32[1,1,3]", reals(10, 32, 4), 0)
}

func TestConvolutionErrors(t *testing.T) {
	x := ir.MustNewLiteral(ir.MakeShape(ir.F32, 1, 4, 4, 3))
	k := ir.MustNewLiteral(ir.MakeShape(ir.F32, 3, 3, 2, 8))
	err := runErr(t, `HloModule m
ENTRY e {
  x = f32[1,4,4,3] parameter(0)
  k = f32[3,3,2,8] parameter(1)
  ROOT c = f32[1,2,2,8] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
}
`, x, k)
	wantErr(t, err, "kernel input feature size is 2", "3")
	k = ir.MustNewLiteral(ir.MakeShape(ir.F32, 3, 3, 3, 8))
	err = runErr(t, `HloModule m
ENTRY e {
  x = f32[1,4,4,3] parameter(0)
  k = f32[3,3,3,8] parameter(1)
  ROOT c = f32[1,4,4,8] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
}
`, x, k)
	wantErr(t, err, "result dimensions are [1 2 2 8]", "[1 4 4 8]")
}
