package main

import (
	"math"
	"testing"
)

// TestErfcCoefficients checks the relative error of erfcCore's
// approximation, t·e^(−z² + P(t)), with its coefficients rounded to float32
// as the kernels use them, against math.Erfc over [0, 10.5].
func TestErfcCoefficients(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 200000; i++ {
		z := 10.5 * float64(i) / 200000
		tt := 1 / (1 + z/2)
		p := float64(float32(erfcP[len(erfcP)-1]))
		for j := len(erfcP) - 2; j >= 0; j-- {
			p = p*tt + float64(float32(erfcP[j]))
		}
		want := math.Erfc(z)
		worst = math.Max(worst, math.Abs(tt*math.Exp(-z*z+p)-want)/want)
	}
	if worst > 4e-8 {
		t.Fatalf("relative error of erfc %.3g, want at most 4e-8", worst)
	}
	t.Logf("relative error of erfc with float32 coefficients: %.3g", worst)
}
