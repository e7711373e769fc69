package kiln_test

import (
	"fmt"

	"github.com/kilnml/kiln"
)

// Sgemm multiplies row-major matrices with BLAS's argument order:
// C = alpha·op(A)·op(B) + beta·C.
func ExampleSgemm() {
	a := []float32{ // 2×3
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{ // 3×2
		1, 0,
		0, 1,
		1, 1,
	}
	c := make([]float32, 2*2)
	kiln.Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)
	// Output: [4 5 10 11]
}

// The unary and binary kernels work on slices of any length, in place or
// not.
func ExampleExp() {
	x := []float32{0, 1, 2}
	kiln.Exp(x, x)
	fmt.Printf("%.4f\n", x)
	y := []float32{1, 1, 1}
	kiln.Add(y, y, x)
	fmt.Printf("%.4f %.4f\n", y, kiln.Sum(y))
	// Output:
	// [1.0000 2.7183 7.3891]
	// [2.0000 3.7183 8.3891] 14.1073
}
