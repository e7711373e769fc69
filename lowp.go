package kiln

import (
	endian "encoding/binary"
	"fmt"
	"sync"
	"unsafe"
)

// The low-precision products: bfloat16 and binary16 operands accumulated in
// float32, and int8 operands accumulated in int32 (XLA's dot with a wider
// result type), against a B packed once (lowp_pack.go).
//
// Each call walks C in register tiles over all of K, so that a tile's
// accumulators never leave the registers (or the AMX tiles) before its
// epilogue: bias, activation and the rounding of a bfloat16 result. Threads
// split the panels of B; within a part, blocks of panels that fit the L2
// cache are swept by every row tile of A in turn. The kernels:
//
//   - bfloat16: AMX (32×32 blocks of TDPBF16PS) for M ≥ 16 where the CPU
//     has it, else VDPBF16PS tiles (AVX512_BF16) reading A's pairs in
//     place; on the other levels A is widened per row tile and B was
//     widened at pack time, for the float32 micro-kernels.
//   - binary16: the widening path everywhere (XLA accumulates binary16
//     products in float32, which AVX512-FP16's arithmetic would not).
//   - int8: AMX (TDPBSSD, TDPBUSD) for M ≥ 16, else VPDPBUSD tiles
//     (AVX512-VNNI, AVX-VNNI), whose unsigned A takes a signed A offset by
//     128 with 128·Σ B(p,j) subtracted; without VNNI, int16 pairs and
//     VPMADDWD.
//
// The products run on arena buffers: A and C are row-major with leading
// dimensions in elements (a slice may start anywhere in a larger buffer),
// and no call allocates in steady state.

// lowpOut is the element type of C.
type lowpOut uint8

const (
	outF32 lowpOut = iota
	outBF16
	outF16
	outS32
)

// lowpA is the element type of A.
type lowpA uint8

const (
	aBF16 lowpA = iota
	aF16
	aS8
	aU8
)

// lowpJob is one call.
type lowpJob struct {
	m, n, k int
	transA  bool
	aKind   lowpA
	a       unsafe.Pointer
	lda     int // elements
	b       *lowpPack
	out     lowpOut
	c       unsafe.Pointer
	ldc     int // elements
	ep      epilogue[float32]
	flags   uint
	goAct   bool
	t       *kernelTable
	d       *dotTiles
	useAMX  bool
	offsetA bool // signed A offset by 128 for kernels taking unsigned bytes
	parts   int
	bufs    []lowpBuffers
	done    pending
}

// lowpBuffers are one part's scratch: A's rows prepared for the kernels and
// a tile of C in float32 or int32.
type lowpBuffers struct {
	a    []byte
	tile []float32
	wide []float32
	// bias holds a partial panel's biases padded with zeros to the tile's
	// width: a kernel storing a whole tile reads that many.
	bias []float32
}

var lowpJobs = sync.Pool{New: func() any { return new(lowpJob) }}

// lowpPanelBlock is how many bytes of B panels a part keeps in L2 while
// every row tile of A sweeps them.
var lowpPanelBlock = clamp(cpuState.l2/2, 128<<10, 1<<20)

// minLowpPartWork is the least M·N·K worth one more thread.
var minLowpPartWork = 1 << 22

func (j *lowpJob) run() {
	if j.m == 0 || j.n == 0 {
		return
	}
	j.flags, j.goAct = j.ep.kernelFlags()
	switch j.b.form {
	case formPairs:
		j.useAMX = j.t.amx != nil && j.b.amx && j.m >= 16
		j.offsetA = !j.useAMX && j.d.unsignedA && j.aKind == aS8
	}
	panels := (j.n + j.nr() - 1) / j.nr()
	j.parts = max(1, min(Threads(), panels, j.m*j.n*max(j.k, 1)/minLowpPartWork))
	for len(j.bufs) < j.parts {
		j.bufs = append(j.bufs, lowpBuffers{})
	}
	runParallel(j, j.parts, &j.done)
}

// nr is the width of B's panels.
func (j *lowpJob) nr() int {
	if j.b.form == formWidened {
		return j.b.wide.nr
	}
	return j.b.nr
}

func (j *lowpJob) runPart(p int) {
	panels := (j.n + j.nr() - 1) / j.nr()
	q0, q1 := p*panels/j.parts, (p+1)*panels/j.parts
	if q0 == q1 {
		return
	}
	buf := &j.bufs[p]
	switch {
	case j.b.form == formWidened:
		j.runWidened(buf, q0, q1)
	case j.useAMX:
		j.runAMX(buf, q0, q1)
	default:
		j.runDot(buf, q0, q1)
	}
}

func growBytes(s []byte, n int) []byte {
	if cap(s) < n {
		return make([]byte, n)
	}
	return s[:n]
}

// elemSize is the size of an element of A.
func (j *lowpJob) aSize() int {
	if j.aKind == aS8 || j.aKind == aU8 {
		return 1
	}
	return 2
}

// aElem returns A(i, p) as raw bits (sign-extended for s8).
func (j *lowpJob) aElem(i, p int) int32 {
	idx := i*j.lda + p
	if j.transA {
		idx = p*j.lda + i
	}
	switch j.aKind {
	case aS8:
		return int32(*(*int8)(unsafe.Add(j.a, idx)))
	case aU8:
		return int32(*(*uint8)(unsafe.Add(j.a, idx)))
	}
	return int32(*(*uint16)(unsafe.Add(j.a, 2*idx)))
}

// prepareA returns rows i0…i0+rows-1 of A in the layout of the dot kernels
// (group q of row i at 4q, row stride lda bytes), read in place when they
// already are, else packed into buf (zero-padded to kg groups and to
// padRows rows).
func (j *lowpJob) prepareA(buf *lowpBuffers, i0, rows, kg, padRows int) (*byte, int) {
	g, e := j.b.group, j.b.elem
	inPlace := !j.transA && j.k%g == 0 && e == j.aSize() && !j.offsetA && rows == padRows
	if j.useAMX {
		inPlace = inPlace && j.k == kg*g
	}
	if inPlace && j.k > 0 {
		return (*byte)(unsafe.Add(j.a, i0*j.lda*e)), j.lda * e
	}
	stride := kg * 4
	buf.a = growBytes(buf.a, padRows*stride+64)
	clear(buf.a)
	for i := 0; i < rows; i++ {
		j.packRow(buf.a[i*stride:i*stride+stride], i0+i)
	}
	return &buf.a[0], stride
}

// packRow writes row i of op(A) into dst in the kernels' element type:
// bfloat16 bits as they are, int8 as bytes (offset by 128 when the kernels
// take unsigned bytes) or widened to int16.
func (j *lowpJob) packRow(dst []byte, i int) {
	k := j.k
	if k == 0 {
		return
	}
	if j.transA {
		for p := 0; p < k; p++ {
			v := j.aElem(i, p)
			if j.offsetA {
				v ^= 0x80
			}
			if j.b.elem == 2 {
				dst[2*p], dst[2*p+1] = byte(v), byte(v>>8)
			} else {
				dst[p] = byte(v)
			}
		}
		return
	}
	src := unsafe.Slice((*byte)(unsafe.Add(j.a, i*j.lda*j.aSize())), k*j.aSize())
	switch {
	case j.b.elem == j.aSize() && !j.offsetA:
		copy(dst, src)
	case j.b.elem == 1: // signed bytes, offset
		flipSignBits(dst[:k], src)
	case j.aKind == aS8: // int16 pairs
		d := unsafe.Slice((*int16)(unsafe.Pointer(&dst[0])), k)
		for p, v := range src {
			d[p] = int16(int8(v))
		}
	default:
		d := unsafe.Slice((*int16)(unsafe.Pointer(&dst[0])), k)
		for p, v := range src {
			d[p] = int16(v)
		}
	}
}

// flipSignBits sets dst[i] = src[i] ^ 0x80 (an int8 offset by 128 as a
// uint8), eight bytes at a time.
func flipSignBits(dst, src []byte) {
	const flip = 0x8080808080808080
	n := len(src) &^ 7
	for p := 0; p < n; p += 8 {
		endian.NativeEndian.PutUint64(dst[p:p+8], endian.NativeEndian.Uint64(src[p:p+8])^flip)
	}
	for p := n; p < len(src); p++ {
		dst[p] = src[p] ^ 0x80
	}
}

// cAt returns the address of C(i, j).
func (j *lowpJob) cAt(i, col int) unsafe.Pointer {
	size := 4
	if j.out == outBF16 || j.out == outF16 {
		size = 2
	}
	return unsafe.Add(j.c, (i*j.ldc+col)*size)
}

// runDot sweeps panels q0…q1-1 with the dot kernels.
func (j *lowpJob) runDot(buf *lowpBuffers, q0, q1 int) {
	d, b := j.d, j.b
	kg := (j.k + b.group - 1) / b.group
	block := max(1, lowpPanelBlock/max(1, b.panelBytes()))
	direct := j.out == outF32 || j.out == outS32
	buf.tile = grow(buf.tile, d.mr*d.nr)
	var aux *byte
	biasAux := false // aux is the bias
	flags := j.flags &^ flagReLU
	if j.out != outS32 {
		if j.ep.bias != nil {
			aux, biasAux = (*byte)(unsafe.Pointer(&j.ep.bias[0])), true
		}
		flags |= j.flags & flagReLU
	} else if j.offsetA {
		aux, flags = (*byte)(unsafe.Pointer(&b.colSum128[0])), flagBias
	} else {
		flags &^= flagBias
	}
	for qb := q0; qb < q1; qb += block {
		qe := min(q1, qb+block)
		for i0 := 0; i0 < j.m; i0 += d.mr {
			rows := min(d.mr, j.m-i0)
			a, lda := j.prepareA(buf, i0, rows, kg, rows)
			for q := qb; q < qe; q++ {
				col := q * d.nr
				cols := min(d.nr, j.n-col)
				panel := &b.data[q*b.panelBytes()]
				f := flags
				var auxq *byte
				switch {
				case aux != nil && biasAux:
					auxq = (*byte)(unsafe.Pointer(j.biasAt(buf, col, cols, d.nr)))
				case aux != nil:
					auxq = (*byte)(unsafe.Add(unsafe.Pointer(aux), 4*col))
				}
				if direct && (cols == d.nr || d.masked) && !j.goAct {
					if cols < d.nr {
						f |= flagPartial
					}
					d.rows[rows](kg, a, lda, panel, (*byte)(j.cAt(i0, col)), j.ldc, auxq, &edgeMasks[maxNR-cols], f)
					continue
				}
				d.rows[rows](kg, a, lda, panel, (*byte)(unsafe.Pointer(&buf.tile[0])), d.nr, auxq, &edgeMasks[0], f&^flagPartial)
				j.storeTile(buf.tile, d.nr, i0, rows, col, cols)
			}
		}
	}
}

// storeTile writes a float32 (or int32) tile of rows×cols, row stride ld,
// to C at (i0, col): the Go activation, then the conversion of the output.
func (j *lowpJob) storeTile(tile []float32, ld, i0, rows, col, cols int) {
	for i := 0; i < rows; i++ {
		src := tile[i*ld : i*ld+cols]
		if j.goAct {
			j.ep.applyAct(src)
		}
		switch j.out {
		case outF32, outS32:
			copy(unsafe.Slice((*float32)(j.cAt(i0+i, col)), cols), src)
		case outBF16:
			F32ToBF16(unsafe.Slice((*uint16)(j.cAt(i0+i, col)), cols), src)
		case outF16:
			F32ToF16(unsafe.Slice((*uint16)(j.cAt(i0+i, col)), cols), src)
		}
	}
}

// biasAt is where a kernel storing a tile width columns wide reads the
// biases of columns col…col+cols: the bias itself, or for a partial panel
// (cols < width) a copy padded with zeros, which the kernel may read whole.
func (j *lowpJob) biasAt(buf *lowpBuffers, col, cols, width int) *float32 {
	if cols == width {
		return &j.ep.bias[col]
	}
	buf.bias = grow(buf.bias, width)
	clear(buf.bias[copy(buf.bias, j.ep.bias[col:col+cols]):])
	return &buf.bias[0]
}

// runAMX sweeps panels q0…q1-1 with the AMX kernels in 32×32 blocks: A's
// 32-row blocks (packed unless they can be read in place), the two 32-column
// halves of each panel, and the epilogue in Go on the block.
func (j *lowpJob) runAMX(buf *lowpBuffers, q0, q1 int) {
	b := j.b
	kern := j.t.amx.bf16
	switch j.aKind {
	case aS8:
		kern = j.t.amx.s8s8
	case aU8:
		kern = j.t.amx.u8s8
	}
	kb := b.kg / 16
	block := max(1, lowpPanelBlock/max(1, b.panelBytes()))
	buf.tile = grow(buf.tile, 32*32)
	ldb := b.nr * 4
	for qb := q0; qb < q1; qb += block {
		qe := min(q1, qb+block)
		for i0 := 0; i0 < j.m; i0 += 32 {
			rows := min(32, j.m-i0)
			a, lda := j.prepareA(buf, i0, rows, b.kg, 32)
			for q := qb; q < qe; q++ {
				for h := 0; h < b.nr; h += 32 {
					col := q*b.nr + h
					if col >= j.n {
						break
					}
					cols := min(32, j.n-col)
					if kb == 0 {
						clear(buf.tile)
					} else {
						kern(kb, a, lda, &b.data[q*b.panelBytes()+4*h], ldb, (*byte)(unsafe.Pointer(&buf.tile[0])), &amxConfig)
					}
					j.amxEpilogue(buf.tile, i0, rows, col, cols)
				}
			}
		}
	}
}

// amxEpilogue finishes a 32×32 block: bias and activation on float tiles,
// then the store to C in its type.
func (j *lowpJob) amxEpilogue(tile []float32, i0, rows, col, cols int) {
	for i := 0; i < rows; i++ {
		src := tile[i*32 : i*32+cols]
		if j.out != outS32 {
			if j.ep.bias != nil {
				Add(src, src, j.ep.bias[col:col+cols])
			}
			if j.ep.act == ActReLU {
				Relu(src, src)
			}
		}
	}
	if j.out != outS32 && j.ep.act != ActReLU && j.ep.act != ActNone {
		for i := 0; i < rows; i++ {
			j.ep.applyAct(tile[i*32 : i*32+cols])
		}
	}
	goAct := j.goAct
	j.goAct = false
	j.storeTile(tile, 32, i0, rows, col, cols)
	j.goAct = goAct
}

// rowPad pads a widened A tile (in elements; see runWidened).
const rowPad = 16

// runWidened sweeps panels q0…q1-1 of a B widened to float32 with the
// float32 micro-kernels, widening each row tile of A into buf.
func (j *lowpJob) runWidened(buf *lowpBuffers, q0, q1 int) {
	g := j.t.sgemm
	pb := j.b.wide
	mr := g.mr
	k := j.k
	rowMajor := g.rowMajor != nil
	buf.wide = grow(buf.wide, mr*max(k, 1)+rowPad)
	buf.tile = grow(buf.tile, mr*g.nr)
	widen := bf16Widen
	if j.aKind == aF16 {
		widen = f16Widen
	}
	direct := j.out == outF32 && !j.goAct
	var bias *float32
	flags := j.flags
	block := max(1, lowpPanelBlock/max(1, 4*k*pb.nr))
	for qb := q0; qb < q1; qb += block {
		qe := min(q1, qb+block)
		for i0 := 0; i0 < j.m; i0 += mr {
			rows := min(mr, j.m-i0)
			// A's rows, widened: row-major for kernels reading A in place,
			// k-major panels otherwise.
			for i := 0; i < rows; i++ {
				if rowMajor && !j.transA {
					src := unsafe.Slice((*uint16)(unsafe.Add(j.a, 2*(i0+i)*j.lda)), k)
					if j.aKind == aF16 {
						F16ToF32(buf.wide[i*k:i*k+k], src)
					} else {
						BF16ToF32(buf.wide[i*k:i*k+k], src)
					}
					continue
				}
				for p := 0; p < k; p++ {
					v := widen(uint16(j.aElem(i0+i, p)))
					if rowMajor {
						buf.wide[i*k+p] = v
					} else {
						buf.wide[p*rows+i] = v
					}
				}
			}
			kern, lda := g.rowMajor, k
			if !rowMajor {
				kern, lda = g.kmajor, rows
			}
			for q := qb; q < qe; q++ {
				col := q * pb.nr
				cols := min(pb.nr, j.n-col)
				ldb := pb.nr
				if q == pb.n/pb.nr { // the last, narrower panel
					ldb = g.lastPanelWidth(pb.n)
				}
				bp := &pb.data[q*k*pb.nr]
				if j.ep.bias != nil {
					bias = j.biasAt(buf, col, cols, g.nr)
				}
				if k == 0 {
					// No products: C = act(bias).
					for i := 0; i < rows; i++ {
						row := buf.tile[i*g.nr : i*g.nr+cols]
						clear(row)
						if j.ep.bias != nil {
							copy(row, j.ep.bias[col:col+cols])
						}
						if j.flags&flagReLU != 0 {
							relu(row)
						}
					}
					j.storeTile(buf.tile, g.nr, i0, rows, col, cols)
					continue
				}
				if direct && (cols == g.nr || g.masked) {
					f := flags
					if cols < g.nr {
						f |= flagPartial
					}
					kern[rows](k, &buf.wide[0], lda, bp, ldb, (*float32)(j.cAt(i0, col)), j.ldc, 1, 0, bias, &edgeMasks[maxNR-cols], f)
					continue
				}
				kern[rows](k, &buf.wide[0], lda, bp, ldb, &buf.tile[0], g.nr, 1, 0, bias, &edgeMasks[0], flags&^flagPartial)
				j.storeTile(buf.tile, g.nr, i0, rows, col, cols)
			}
		}
	}
}

// checkLowp panics unless A and C can hold an m×k and an m×n matrix.
func checkLowp(fn string, transA bool, m, k, n, lenA, lda, lenC, ldc int) {
	if m < 0 {
		panic(fmt.Sprintf("kiln: %s: m must not be negative, found %d", fn, m))
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	checkMatrix(fn, "a", "lda", rowsA, colsA, lenA, lda)
	checkMatrix(fn, "c", "ldc", m, n, lenC, ldc)
}

func (p *lowpPack) checkLevel(fn string, t *kernelTable) {
	if p.level != t.level && !(p.form == formWidened && p.wide.nr == t.sgemm.nr) && !samePacking(p, t) {
		panic(fmt.Sprintf("kiln: %s: B was packed for the %s kernels, the %s kernels pack differently; pack it again after SetISA", fn, p.level, t.level))
	}
}

// samePacking reports whether a formPairs pack suits the level's kernels.
func samePacking(p *lowpPack, t *kernelTable) bool {
	if p.form != formPairs {
		return false
	}
	d := t.bdot
	if p.colSum128 != nil {
		d = t.intDot()
	}
	return d != nil && d.nr == p.nr && d.group == p.group && d.elem == p.elem && (!p.amx || t.amx != nil)
}

func lowpRun(fn string, transA bool, m int, aKind lowpA, a unsafe.Pointer, lenA, lda int, b *lowpPack, out lowpOut, c unsafe.Pointer, lenC, ldc int, ep Epilogue) {
	checkLowp(fn, transA, m, b.k, b.n, lenA, lda, lenC, ldc)
	if out != outS32 {
		checkEpilogue(fn, b.n, ep)
	}
	t := kernels()
	b.checkLevel(fn, t)
	j := lowpJobs.Get().(*lowpJob)
	*j = lowpJob{m: m, n: b.n, k: b.k, transA: transA, aKind: aKind, a: a, lda: lda, b: b, out: out, c: c, ldc: ldc,
		ep: epilogue32(ep), t: t, bufs: j.bufs}
	if b.form == formPairs {
		j.d = t.bdot
		if aKind == aS8 || aKind == aU8 {
			j.d = t.intDot()
		}
	}
	j.run()
	j.a, j.c, j.b, j.ep, j.t, j.d = nil, nil, nil, epilogue[float32]{}, nil, nil
	lowpJobs.Put(j)
}

// GemmBF16 computes C = act(op(A)·B + ep.Bias) for bfloat16 A (its bits:
// op(A) is m×K(), row-major with leading dimension lda, transposed when
// transA) and B packed by PackBF16, accumulating in float32 into the
// float32 C (m×N(), leading dimension ldc). Each product of two bfloat16
// values is exact in float32; the sums are float32's. It panics on the
// programmer errors Sgemm panics on.
func GemmBF16(transA bool, m int, a []uint16, lda int, b *PackedBF16, c []float32, ldc int, ep Epilogue) {
	lowpRun("GemmBF16", transA, m, aBF16, ptrOf(a), len(a), lda, b.p, outF32, ptrOf(c), len(c), ldc, ep)
}

// GemmBF16ToBF16 is GemmBF16 with a bfloat16 C: each element of the float32
// result (after the epilogue) rounds to nearest even once.
func GemmBF16ToBF16(transA bool, m int, a []uint16, lda int, b *PackedBF16, c []uint16, ldc int, ep Epilogue) {
	lowpRun("GemmBF16ToBF16", transA, m, aBF16, ptrOf(a), len(a), lda, b.p, outBF16, ptrOf(c), len(c), ldc, ep)
}

// GemmF16 computes C = act(op(A)·B + ep.Bias) for binary16 A and B (packed
// by PackF16), accumulating in float32 into the float32 C.
func GemmF16(transA bool, m int, a []uint16, lda int, b *PackedF16, c []float32, ldc int, ep Epilogue) {
	lowpRun("GemmF16", transA, m, aF16, ptrOf(a), len(a), lda, b.p, outF32, ptrOf(c), len(c), ldc, ep)
}

// GemmF16ToF16 is GemmF16 with a binary16 C, each element rounded once.
func GemmF16ToF16(transA bool, m int, a []uint16, lda int, b *PackedF16, c []uint16, ldc int, ep Epilogue) {
	lowpRun("GemmF16ToF16", transA, m, aF16, ptrOf(a), len(a), lda, b.p, outF16, ptrOf(c), len(c), ldc, ep)
}

// GemmS8S8 computes C = op(A)·B for int8 A (m×K()) and int8 B packed by
// PackS8, exactly, into the int32 C: XLA's dot of s8 operands with an s32
// result (sums wrap on overflow, as XLA's do).
func GemmS8S8(transA bool, m int, a []int8, lda int, b *PackedS8, c []int32, ldc int) {
	lowpRun("GemmS8S8", transA, m, aS8, ptrOf(a), len(a), lda, b.p, outS32, ptrOf(c), len(c), ldc, Epilogue{})
}

// GemmU8S8 is GemmS8S8 for a uint8 A.
func GemmU8S8(transA bool, m int, a []uint8, lda int, b *PackedS8, c []int32, ldc int) {
	lowpRun("GemmU8S8", transA, m, aU8, ptrOf(a), len(a), lda, b.p, outS32, ptrOf(c), len(c), ldc, Epilogue{})
}

func ptrOf[T any](s []T) unsafe.Pointer {
	if cap(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(s))
}
