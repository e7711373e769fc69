package kiln

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"
)

// TestPackBParallel checks that PackB split over several goroutines lays out
// exactly what one packB call does, B transposed or not, with partial panels.
func TestPackBParallel(t *testing.T) {
	oldPart, oldThreads := minPackPart, SetThreads(3)
	minPackPart = 1
	defer func() { minPackPart = oldPart; SetThreads(oldThreads) }()
	r := rand.New(rand.NewPCG(41, 42))
	nr := active.Load().s.nr
	for _, s := range [][2]int{{1, 1}, {5, 2*nr + 3}, {70, 3 * nr}, {33, 7*nr - 1}} {
		k, n := s[0], s[1]
		for _, transB := range []bool{false, true} {
			rows, cols := k, n
			if transB {
				rows, cols = n, k
			}
			b := randMatrix[float32](r, rows, cols, cols+2, 1)
			want := make([]float32, k*((n+nr-1)/nr*nr))
			packB(want, b, cols+2, transB, 0, k, 0, n, nr)
			p := PackB(transB, k, n, b, cols+2)
			if !slices.Equal(p.data, want) {
				t.Errorf("PackB(transB=%v, k=%d, n=%d) on 3 threads differs from packB", transB, k, n)
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
