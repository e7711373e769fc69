package kiln

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"
)

// TestPackBLayout checks the layout PackB writes, split over several
// goroutines or not, B transposed or not: B(p,j) in panel j/nr at row p
// (the last panel lastPanelWidth(n) wide), zeros in the columns past n and
// in the nr elements that follow the panels.
func TestPackBLayout(t *testing.T) {
	oldPart, oldThreads := minPackPart, Threads()
	defer func() { minPackPart = oldPart; SetThreads(oldThreads) }()
	r := rand.New(rand.NewPCG(41, 42))
	g := active.Load().sgemm
	nr := g.nr
	for _, s := range [][2]int{{1, 1}, {5, 2*nr + 3}, {70, 3 * nr}, {33, 7*nr - 1}, {9, nr + g.packTail}, {4, 2*nr - g.packTail + 1}} {
		k, n := s[0], s[1]
		for _, transB := range []bool{false, true} {
			for _, split := range []bool{false, true} {
				minPackPart, _ = map[bool]int{false: 1 << 40, true: 1}[split], SetThreads(3)
				rows, cols := k, n
				if transB {
					rows, cols = n, k
				}
				b := randMatrix[float32](r, rows, cols, cols+2, 1)
				at := func(p, j int) float32 {
					if transB {
						return b[j*(cols+2)+p]
					}
					return b[p*(cols+2)+j]
				}
				pk := PackB(transB, k, n, b, cols+2)
				full, w := n/nr, g.lastPanelWidth(n)
				want := make([]float32, full*k*nr+nr)
				if n%nr != 0 {
					want = make([]float32, full*k*nr+k*w+nr)
				}
				for p := 0; p < k; p++ {
					for j := 0; j < n; j++ {
						if q := j / nr; q < full {
							want[q*k*nr+p*nr+j%nr] = at(p, j)
						} else {
							want[full*k*nr+p*w+j%nr] = at(p, j)
						}
					}
				}
				if !slices.Equal(pk.data, want) {
					t.Errorf("PackB(transB=%v, k=%d, n=%d) split=%v: layout differs (%d elements, want %d)", transB, k, n, split, len(pk.data), len(want))
				}
			}
		}
	}
}

// TestHugeAllocAligned: a packed matrix large enough for huge pages starts
// on a 2 MiB boundary (a huge page backs only an aligned 2 MiB), and its
// memory is zeroed and writable to the end.
func TestHugeAllocAligned(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are requested on Linux only")
	}
	t.Setenv("KILN_NOHUGE", "")
	owner := new(int)
	const n = 3<<20/4 + 5
	x := hugeAlloc(n, owner)
	if len(x) != n {
		t.Fatalf("len %d, want %d", len(x), n)
	}
	if addr := uintptr(unsafe.Pointer(&x[0])); addr%(2<<20) != 0 {
		t.Errorf("starts at %#x, not on a 2 MiB boundary", addr)
	}
	for i := range x {
		if x[i] != 0 {
			t.Fatalf("x[%d] = %v, want zeroed memory", i, x[i])
		}
		x[i] = 1
	}
	runtime.KeepAlive(owner)
}
