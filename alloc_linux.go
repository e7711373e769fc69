package kiln

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeAlloc returns n float32s of zeroed memory for long-lived packed
// matrices. Large ones are mapped outside the Go heap and marked for
// transparent huge pages: the kernels stream them, and with 4 KiB pages the
// stream pays a TLB walk and a prefetcher restart every 4 KiB. The mapping
// is released when owner becomes unreachable.
func hugeAlloc(n int, owner any) []float32 {
	const huge = 2 << 20
	size := n * 4
	if size < huge || os.Getenv("KILN_NOHUGE") != "" {
		return make([]float32, n)
	}
	size = (size + huge - 1) &^ (huge - 1)
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]float32, n)
	}
	// Without THP support madvise fails, and 4 KiB pages are used: no harm.
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE)
	runtime.SetFinalizer(owner, func(any) { unix.Munmap(mem) })
	return unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), n)
}
