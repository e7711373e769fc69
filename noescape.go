package kiln

import "unsafe"

// sliceHeader is a slice's header with its pointer as a plain number.
type sliceHeader struct {
	data     uintptr
	len, cap int
}

// noEscape returns s with its backing array hidden from escape analysis.
// The kernels are assembly that keeps no pointer past its return, but a
// call through the dispatch table's func values is an indirect call, which
// escape analysis assumes keeps every pointer it is passed: without this,
// a stack array passed to a kernel (a row's scalar, its result) would be
// moved to the heap, one allocation per call. Use it only on arguments of
// such calls, made while s is in use.
func noEscape[T any](s []T) []T {
	h := sliceHeader{uintptr(unsafe.Pointer(unsafe.SliceData(s))), len(s), cap(s)}
	return *(*[]T)(unsafe.Pointer(&h))
}
