package kiln

// convKernel computes n tiles of an implicit-GEMM convolution, each rows
// output pixels (the kernel's row count) by the kernel's tile width of output
// channels, accumulated in registers over a table of taps and stored once.
// Tile m is the tile below with aoff, c and res moved on by m·rows pixels
// (m·rows·lda and m·rows·ldc elements):
//
//	C(i,j) = Σ_t Σ_p A_t(i,p)·B_t(p,j),  p < kc,  t < taps,
//	A_t(i,p) = a[aoff + tab[2t] + i*lda + p],
//	B_t(p,j) = b[tab[2t+1] + p*ldb + j],
//	c[i*ldc+j] = act(C(i,j) + c[i*ldc+j] + res[i*ldc+j] + bias[j]),
//
// where the C term is present only with flagLoadC (a later block of taps
// adding to an earlier one), the residual only with flagResidual and the
// bias only with flagBias, act is ReLU with flagReLU and the identity
// otherwise, and with flagPartial only the columns j with mask[j] != 0 are
// read or written. A row of A is a run of input channels read in place from
// the NHWC input: tab[2t] is the offset of tap t from the tile's first
// pixel (aoff, which may lie outside the input when only some taps are
// valid), lda the distance between the tile's pixels. B is a panel of the
// packed weights. pf, when not nil, is where the weights the driver needs
// next start: kernels that can prefetch into L2 one 64-byte line of them
// per k step, moving on from call to call (the driver advances pf by as
// many lines as the call makes k steps); the result does not depend on it.
type convKernel func(n, taps int, tab *int, a *float32, aoff, lda int, b *float32, ldb, kc int, pf *float32, c *float32, ldc int, res, bias *float32, mask *int32, flags uint)

// dwKernel computes n tiles of rows output pixels × vecs vectors of channels
// of a depthwise convolution (one input channel per output channel), moved
// on from one another as convKernel's are:
//
//	C(i,j) = Σ_t a[aoff + tab[2t] + i*lda + j]·w[tab[2t+1] + j],
//
// with the epilogue of convKernel; flagPartial masks the last vector only.
type dwKernel func(n, taps int, tab *int, a *float32, aoff, lda int, w *float32, c *float32, ldc int, res, bias *float32, mask *int32, flags uint)

// flagResidual asks a convolution kernel to add the residual (see convKernel).
const flagResidual uint = 16

// convTiles is the implicit-GEMM kernels of one tile width by row count.
type convTiles struct {
	nr   int
	rows []convKernel // rows[r] handles r rows; rows[0] is nil
}

func (t convTiles) maxRows() int { return len(t.rows) - 1 }

// dwTiles is the depthwise kernels of one vector count by pixel count.
type dwTiles struct {
	vecs int
	rows []dwKernel
}

func (t dwTiles) maxRows() int { return len(t.rows) - 1 }

// dwRowTiles is the depthwise kernels for kernel rows of k taps at unit
// stride, by pixel count: their table lists whole rows, tap kw of a row
// reading the input kw·lda after tap 0 (see dwKernel); each input vector is
// loaded once per row instead of once per tap.
type dwRowTiles struct {
	k, vecs int
	rows    []dwKernel
}

func (t dwRowTiles) maxRows() int { return len(t.rows) - 1 }

// convKernels is one level's convolution kernels.
type convKernels struct {
	lanes int // float32 elements per vector
	// masked reports that the kernels honour flagPartial.
	masked bool
	gemm   []convTiles // widest first; every width divides the first
	dw     []dwTiles   // most vectors first
	dwRow  []dwRowTiles
}

// convGo is the generic level: the pure-Go twins.
var convGo = &convKernels{
	lanes:  4,
	masked: true,
	gemm: []convTiles{
		{nr: 16, rows: twinConvKernels(4, 16)},
		{nr: 8, rows: twinConvKernels(4, 8)},
	},
	dw: []dwTiles{
		{vecs: 4, rows: twinDWKernels(8, 4, 4)},
		{vecs: 1, rows: twinDWKernels(8, 1, 4)},
	},
}

func twinConvKernels(mr, nr int) []convKernel {
	ks := make([]convKernel, mr+1)
	for r := 1; r <= mr; r++ {
		ks[r] = twinConvKernel(r, nr)
	}
	return ks
}

func twinDWKernels(mr, vecs, lanes int) []dwKernel {
	ks := make([]dwKernel, mr+1)
	for r := 1; r <= mr; r++ {
		ks[r] = twinDWKernel(r, vecs*lanes, lanes)
	}
	return ks
}
