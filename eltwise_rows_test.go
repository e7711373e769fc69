package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFoldRows checks the row forms against the whole-slice kernels applied
// row by row, for row lengths around the vector widths, gaps between rows,
// unaligned starts and special values, bit for bit.
func TestFoldRows(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	forms := []struct {
		name string
		rows func(dst, x []float32, rows, cols, ldd, ldx int)
		one  func(dst, x, y []float32)
	}{
		{"AddRows", AddRows, Add}, {"MulRows", MulRows, Mul},
		{"MaximumRows", MaximumRows, Maximum}, {"MinimumRows", MinimumRows, Minimum},
	}
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), math.MaxFloat32, 1e-45}
	for _, f := range forms {
		for _, rows := range []int{0, 1, 2, 5} {
			for _, cols := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 67} {
				for _, gap := range []int{0, 3} {
					ldd, ldx := max(1, cols+gap), max(1, cols+2*gap)
					off := r.IntN(3)
					dst := make([]float32, off+rows*ldd)
					x := make([]float32, off+rows*ldx)
					for i := range dst {
						dst[i] = r.Float32()*4 - 2
						if r.IntN(8) == 0 {
							dst[i] = specials[r.IntN(len(specials))]
						}
					}
					for i := range x {
						x[i] = r.Float32()*4 - 2
						if r.IntN(8) == 0 {
							x[i] = specials[r.IntN(len(specials))]
						}
					}
					want := slices.Clone(dst)
					for i := range rows {
						d := want[off+i*ldd : off+i*ldd+cols]
						f.one(d, d, x[off+i*ldx:off+i*ldx+cols])
					}
					got := slices.Clone(dst)
					f.rows(got[off:], x[off:], rows, cols, ldd, ldx)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s rows=%d cols=%d ldd=%d ldx=%d: element %d is %v, row by row %v", f.name, rows, cols, ldd, ldx, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestFoldRowsPanics checks the argument errors.
func TestFoldRowsPanics(t *testing.T) {
	for _, c := range []struct {
		call func()
		want string
	}{
		{func() { MaximumRows(make([]float32, 4), make([]float32, 4), 2, 3, 2, 3) }, "ldd must be at least max(1, 3)"},
		{func() { MaximumRows(make([]float32, 6), make([]float32, 5), 2, 3, 3, 3) }, "len(x) must be at least 6"},
		{func() { AddRows(nil, nil, -1, 3, 3, 3) }, "must not be negative"},
	} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want it to mention %q", msg, c.want)
				}
			}()
			c.call()
		}()
	}
}
