//go:build openblas && cgo

package bench

// OpenBLAS beside Kiln in the same run, through cgo (Debian's
// libopenblas-dev). Build with -tags openblas. OpenBLAS chooses its kernels
// when the library loads, from OPENBLAS_CORETYPE if set, else from the CPU
// it detects, falling back to SSE3 kernels on CPUs it does not know (the
// Intel Xeons here): run with OPENBLAS_CORETYPE=SkylakeX on AVX-512 CPUs;
// the implementation name records the variable's value.

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
void openblas_set_num_threads(int);
*/
import "C"

import (
	"os"
	"unsafe"
)

func init() {
	name := "openblas"
	if ct := os.Getenv("OPENBLAS_CORETYPE"); ct != "" {
		name += "[" + ct + "]"
	}
	Peers = append(Peers, PeerImpl{
		Name:       name,
		SetThreads: func(t int) { C.openblas_set_num_threads(C.int(t)) },
		Sgemm: func(m, n, k int, a, b, c []float32) {
			C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasNoTrans, C.blasint(m), C.blasint(n), C.blasint(k),
				1, (*C.float)(unsafe.Pointer(&a[0])), C.blasint(k), (*C.float)(unsafe.Pointer(&b[0])), C.blasint(n),
				0, (*C.float)(unsafe.Pointer(&c[0])), C.blasint(n))
		},
		Sgemv: func(k, n int, x, b, y []float32) {
			C.cblas_sgemv(C.CblasRowMajor, C.CblasTrans, C.blasint(k), C.blasint(n),
				1, (*C.float)(unsafe.Pointer(&b[0])), C.blasint(n), (*C.float)(unsafe.Pointer(&x[0])), 1,
				0, (*C.float)(unsafe.Pointer(&y[0])), 1)
		},
	})
}
