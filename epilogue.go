package kiln

import (
	"fmt"
	"math"
)

// Activation is the elementwise function an epilogue applies after the bias.
type Activation uint8

// The activations an epilogue can apply. The table below grows with the
// compiler's fusions; an entry either has a micro-kernel flag (applied in
// registers, in the kernel's store) or only a Go function (applied by the
// driver to each tile right after the kernel stored it, while it is hot in L1).
const (
	ActNone     Activation = iota // identity
	ActReLU                       // max(x, 0); NaN stays NaN
	ActGeluTanh                   // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
	ActGeluErf                    // 0.5·x·(1 + erf(x/√2))
	ActSiLU                       // x·logistic(x) (swish)
)

// activationInfo describes one activation.
type activationInfo struct {
	name string
	// flag is the micro-kernel epilogue flag, or 0 when kernels lack it.
	flag uint
	// apply32/apply64 apply the activation to a row in place; used for the
	// pure-Go store of edge tiles and for activations without a flag. The
	// float32 forms of GELU are the vector kernels (Gelu, GeluTanh: within a
	// few ULP); the float64 formulas below cost 9 (erf) and 21 (tanh) times
	// as much: 73–92 µs on the 3072 outputs of a 1×768·768×3072 product,
	// which itself takes 0.1–0.3 ms here.
	apply32 func([]float32)
	apply64 func([]float64)
}

// activations is indexed by Activation.
var activations = []activationInfo{
	ActNone:     {name: "none"},
	ActReLU:     {name: "relu", flag: flagReLU, apply32: relu[float32], apply64: relu[float64]},
	ActGeluTanh: {name: "gelu-tanh", apply32: geluTanhVector, apply64: geluTanh[float64]},
	ActGeluErf:  {name: "gelu-erf", apply32: geluErfFast, apply64: geluErf[float64]},
	ActSiLU:     {name: "silu", apply32: siluVector, apply64: silu[float64]},
}

// geluTanhVector and geluErfFast apply the vector kernels in place (they
// give NaN at -Inf, as the HLO the compiler fuses does: -Inf·0). The erf
// form in epilogues is the float32-lane kernel (within 6 ULP, largest
// found 5.3, against Gelu's 0.8 ULP from float64 lanes at a fifth of the
// speed): next to a GEMM's own rounding that is noise, and it keeps the
// epilogue a small fraction of the product.
func geluTanhVector(x []float32) { GeluTanh(x, x) }
func geluErfFast(x []float32) {
	k := kernels().eltwise
	unary(k.geluFastF32, geluFastF32Go, k.lanes, x, x)
}

// siluVector applies the SiLU vector kernel in place (within 3 ULP).
func siluVector(x []float32) { SiLU(x, x) }

// silu computes x·logistic(x) in float64, rounded once.
func silu[T float](x []T) {
	for i, v := range x {
		f := float64(v)
		x[i] = T(f / (1 + math.Exp(-f)))
	}
}

// geluTanh and geluErf compute GELU in float64 and round once (the float64
// forms; float32 rows go through the vector kernels).
func geluTanh[T float](x []T) {
	for i, v := range x {
		f := float64(v)
		x[i] = T(0.5 * f * (1 + math.Tanh(0.7978845608028654*(f+0.044715*f*f*f))))
	}
}

func geluErf[T float](x []T) {
	for i, v := range x {
		f := float64(v)
		x[i] = T(0.5 * f * (1 + math.Erf(f/math.Sqrt2)))
	}
}

func relu[T float](x []T) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// String returns the activation's name as the compiler prints it.
func (a Activation) String() string {
	if int(a) < len(activations) {
		return activations[a].name
	}
	return fmt.Sprintf("Activation(%d)", uint8(a))
}

// Epilogue is what a GEMM applies to each element of C after alpha·A·B + beta·C,
// in the micro-kernel's store: C(i,j) = act(… + Bias[j]). The zero value does
// nothing. Bias, when not nil, has at least N elements (one per column of C).
type Epilogue struct {
	Bias []float32
	Act  Activation
	// Cancel, when not nil, is polled between blocks of the product: once
	// it reports stopped, the call returns early with C partly written.
	Cancel *Cancel
}

// epilogue is the element-type-generic form the driver uses.
type epilogue[T float] struct {
	bias   []T
	act    Activation
	actFn  func([]T) // the Go form of act, nil for ActNone
	cancel *Cancel   // polled between blocks (nil: never stops)
}

// kernelFlags returns the micro-kernel flags of the epilogue and whether the
// activation must be applied in Go after the kernel store.
func (e *epilogue[T]) kernelFlags() (flags uint, goAct bool) {
	if e.bias != nil {
		flags |= flagBias
	}
	if e.act != ActNone {
		if f := activations[e.act].flag; f != 0 {
			flags |= f
		} else {
			goAct = true
		}
	}
	return flags, goAct
}

// applyAct applies the epilogue's activation to row in pure Go.
func (e *epilogue[T]) applyAct(row []T) {
	if e.actFn != nil {
		e.actFn(row)
	}
}
