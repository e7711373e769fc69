package bench

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// The building blocks of the gonum versions of the example models: GEMMs
// through gonum's blas32, everything else as plain Go loops over
// preallocated row-major buffers.

// matrix views data as a rows×cols row-major matrix with row stride stride.
func matrix(rows, cols, stride int, data []float32) blas32.General {
	return blas32.General{Rows: rows, Cols: cols, Stride: stride, Data: data}
}

// denseInto computes y = x·w + b (x rows×in, w in×out, b out), then ReLU if
// relu is set, as the models' dot, broadcast add and maximum(·, 0) do.
func denseInto(y, x, w, b []float32, rows, in, out int, relu bool) {
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, matrix(rows, in, in, x), matrix(in, out, out, w), 0, matrix(rows, out, out, y))
	for r := 0; r < rows; r++ {
		row := y[r*out : (r+1)*out]
		for j := range row {
			v := row[j] + b[j]
			if relu && v < 0 {
				v = 0
			}
			row[j] = v
		}
	}
}

// layerNormInto computes flax's LayerNorm of each row of x (rows×n) into y:
// mean and mean of squares, var = max(0, E[x²] − E[x]²),
// (x − mean)·rsqrt(var + eps)·scale + bias.
func layerNormInto(y, x, scale, bias []float32, rows, n int, eps float32) {
	inv := float32(1) / float32(n)
	for r := 0; r < rows; r++ {
		xr, yr := x[r*n:(r+1)*n], y[r*n:(r+1)*n]
		var sum, sum2 float32
		for _, v := range xr {
			sum += v
			sum2 += v * v
		}
		mean, mean2 := sum*inv, sum2*inv
		variance := max(mean2-mean*mean, 0)
		rstd := float32(1 / math.Sqrt(float64(variance+eps)))
		for j, v := range xr {
			yr[j] = (v-mean)*rstd*scale[j] + bias[j]
		}
	}
}

// geluTanh applies jax.nn.gelu(approximate=True) in place:
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func geluTanh(x []float32) {
	for i, v := range x {
		inner := v + v*(v*v)*0.044715
		t := float32(math.Tanh(float64(inner * 0.797884583)))
		x[i] = v * 0.5 * (t + 1)
	}
}

// softmaxRows replaces each row of x (rows×n) by its softmax:
// exp(x − max) / Σ exp(x − max).
func softmaxRows(x []float32, rows, n int) {
	for r := 0; r < rows; r++ {
		row := x[r*n : (r+1)*n]
		m := float32(math.Inf(-1))
		for _, v := range row {
			m = max(m, v)
		}
		var sum float32
		for j, v := range row {
			e := float32(math.Exp(float64(v - m)))
			row[j] = e
			sum += e
		}
		for j := range row {
			row[j] /= sum
		}
	}
}
