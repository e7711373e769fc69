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
// stream pays a TLB walk and a prefetcher restart every 4 KiB (DRAM-bound
// products ran 10–30 % faster on huge pages here), and faulting the pages
// in costs several times more (PackB took 2.5× the CPU time on 4 KiB
// pages). The mapping is released when owner becomes unreachable.
func hugeAlloc(n int, owner any) []float32 {
	const huge = 2 << 20
	size := uintptr(n) * 4
	if size < huge || os.Getenv("KILN_NOHUGE") != "" {
		return make([]float32, n)
	}
	size = (size + huge - 1) &^ (huge - 1)
	// Map one huge page more and trim, so that the matrix starts on a huge
	// page boundary whatever alignment the kernel chose: a huge page backs
	// only an aligned 2 MiB of the mapping.
	base, err := unix.MmapPtr(-1, 0, nil, size+huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]float32, n)
	}
	skip := (huge - uintptr(base)%huge) % huge
	if skip > 0 {
		unix.MunmapPtr(base, skip)
	}
	mem := unsafe.Add(base, skip)
	if tail := huge - skip; tail > 0 {
		unix.MunmapPtr(unsafe.Add(mem, size), tail)
	}
	// Without THP support madvise fails, and 4 KiB pages are used: no harm.
	_ = unix.Madvise(unsafe.Slice((*byte)(mem), size), unix.MADV_HUGEPAGE)
	runtime.SetFinalizer(owner, func(any) { unix.MunmapPtr(mem, size) })
	return unsafe.Slice((*float32)(mem), n)
}
