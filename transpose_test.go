package kiln

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestTranspose(t *testing.T) {
	var shapes [][2]int
	for r := 0; r <= 19; r++ {
		for c := 0; c <= 19; c++ {
			shapes = append(shapes, [2]int{r, c})
		}
	}
	shapes = append(shapes, [2]int{67, 129}, [2]int{256, 33}, [2]int{1000, 7}, [2]int{64, 64}, [2]int{3, 300}, [2]int{130, 136})
	forEachLevel(t, func(level string) {
		for _, s := range shapes {
			rows, cols := s[0], s[1]
			x := make([]float32, rows*cols)
			for i := range x {
				x[i] = float32(i)
			}
			dst := make([]float32, len(x))
			for i := range dst {
				dst[i] = -1
			}
			Transpose(dst, x, rows, cols)
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					if dst[j*rows+i] != x[i*cols+j] {
						t.Fatalf("%s Transpose %dx%d: dst[%d][%d] = %v, want %v", level, rows, cols, j, i, dst[j*rows+i], x[i*cols+j])
					}
				}
			}
		}
	})
}

// permuteRef permutes by computing every element's indices.
func permuteRef(x []float32, shape, perm []int) []float32 {
	r := len(shape)
	outShape := make([]int, r)
	for i, p := range perm {
		outShape[i] = shape[p]
	}
	out := make([]float32, len(x))
	idx := make([]int, r) // output multi-index
	for o := range out {
		rem := o
		for i := r - 1; i >= 0; i-- {
			idx[i] = rem % outShape[i]
			rem /= outShape[i]
		}
		in := 0
		for d := 0; d < r; d++ {
			// input dimension d is output dimension k with perm[k] = d
			for k, p := range perm {
				if p == d {
					in = in*shape[d] + idx[k]
				}
			}
		}
		out[o] = x[in]
	}
	return out
}

func TestPermute(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	type pc struct {
		shape, perm []int
	}
	cases := []pc{
		{[]int{2, 3, 4, 5}, []int{0, 2, 3, 1}},  // NCHW → NHWC
		{[]int{2, 4, 5, 3}, []int{0, 3, 1, 2}},  // NHWC → NCHW
		{[]int{2, 7, 3, 16}, []int{0, 2, 1, 3}}, // head split
		{[]int{1, 12, 1, 64}, []int{3, 1, 2, 0}},
		{[]int{5}, []int{0}},
		{[]int{3, 1, 4}, []int{2, 1, 0}},
		{[]int{0, 3}, []int{1, 0}},
	}
	for len(cases) < 300 {
		rank := 1 + r.IntN(6)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.IntN(5)
			if r.IntN(4) == 0 {
				shape[i] = 1
			}
			if r.IntN(10) == 0 {
				shape[i] = 9 + r.IntN(12)
			}
		}
		cases = append(cases, pc{shape, r.Perm(rank)})
	}
	forEachLevel(t, func(level string) {
		for _, c := range cases {
			n := 1
			for _, d := range c.shape {
				n *= d
			}
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(i)
			}
			dst := make([]float32, n)
			Permute(dst, x, c.shape, c.perm)
			want := permuteRef(x, c.shape, c.perm)
			for i := range want {
				if dst[i] != want[i] {
					t.Fatalf("%s Permute %v %v: element %d = %v, want %v", level, c.shape, c.perm, i, dst[i], want[i])
				}
			}
		}
	})
	// The named layouts agree with Permute.
	n, ch, h, w := 2, 3, 5, 7
	x := make([]float32, n*ch*h*w)
	for i := range x {
		x[i] = float32(i)
	}
	got, want := make([]float32, len(x)), make([]float32, len(x))
	NCHWToNHWC(got, x, n, ch, h, w)
	Permute(want, x, []int{n, ch, h, w}, []int{0, 2, 3, 1})
	back := make([]float32, len(x))
	NHWCToNCHW(back, got, n, h, w, ch)
	for i := range x {
		if got[i] != want[i] || back[i] != x[i] {
			t.Fatalf("NCHW/NHWC round trip differs at %d", i)
		}
	}
	SplitHeads(got, x, n, ch, h, w)
	Permute(want, x, []int{n, ch, h, w}, []int{0, 2, 1, 3})
	MergeHeads(back, got, n, h, ch, w)
	for i := range x {
		if got[i] != want[i] || back[i] != x[i] {
			t.Fatalf("SplitHeads/MergeHeads round trip differs at %d", i)
		}
	}
}

func TestFillIotaCopyGather(t *testing.T) {
	forEachLevel(t, func(level string) {
		for _, n := range testLengths() {
			d := make([]float32, n+1)[1:]
			Fill(d, 2.5)
			for i := range d {
				if d[i] != 2.5 {
					t.Fatalf("%s Fill n=%d: %v at %d", level, n, d[i], i)
				}
			}
			for _, start := range []int{0, -7, 1 << 24, math.MaxInt32 - n/2} {
				Iota(d, start)
				for i := range d {
					if d[i] != float32(start+i) {
						t.Fatalf("%s Iota(%d) n=%d: element %d = %v", level, start, n, i, d[i])
					}
				}
			}
			di := make([]int32, n)
			IotaInt32(di, -3)
			for i := range di {
				if di[i] != int32(i-3) {
					t.Fatalf("%s IotaInt32 n=%d: element %d = %d", level, n, i, di[i])
				}
			}
		}
	})
	x := make([]float32, 5*7)
	for i := range x {
		x[i] = float32(i)
	}
	dst := make([]float32, 4*9)
	CopyRows(dst, 9, x[8:], 7, 3, 4) // rows 1..3 of x from column 1
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			if dst[i*9+j] != x[8+i*7+j] {
				t.Fatalf("CopyRows: [%d][%d] = %v", i, j, dst[i*9+j])
			}
		}
	}
	g := make([]float32, 4*7)
	GatherRows(g, x, 7, []int32{2, -5, 4, 99})
	for i, r := range []int{2, 0, 4, 4} {
		for j := 0; j < 7; j++ {
			if g[i*7+j] != x[r*7+j] {
				t.Fatalf("GatherRows row %d: %v", i, g[i*7:i*7+7])
			}
		}
	}
}

func TestMovementPanics(t *testing.T) {
	for _, f := range []func(){
		func() { Transpose(make([]float32, 6), make([]float32, 6), 2, 4) },
		func() { Permute(make([]float32, 6), make([]float32, 6), []int{2, 3}, []int{0, 0}) },
		func() { CopyRows(make([]float32, 6), 2, make([]float32, 6), 3, 2, 3) },
		func() { GatherRows(make([]float32, 6), make([]float32, 7), 3, []int32{0, 1}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || fmt.Sprint(r)[:6] != "kiln: " {
					t.Fatalf("expected a kiln panic, got %v", r)
				}
			}()
			f()
		}()
	}
}
