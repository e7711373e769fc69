package kiln

import (
	"fmt"
	"unsafe"
)

// The packed B operands of the low-precision products. B (k×n, weights as
// a rule) is packed once into the layout of the active level's kernels:
//
//   - formPairs: panels of nr columns; each panel is kg group rows, and a
//     group row holds, for each of the nr columns, g consecutive elements of
//     K (bfloat16 pairs, int8 quads, int16 pairs): 4 bytes per column. K is
//     padded with zeros to whole groups, and to 16 groups for AMX (whose B
//     tile is 16 group rows of 16 columns). The last panel's columns past n
//     are zero.
//   - formWidened: bfloat16 or binary16 widened to float32 once, packed for
//     the float32 micro-kernels (a PackedB): the levels without a
//     bfloat16 dot instruction, and binary16 everywhere.
type lowpForm uint8

const (
	formPairs lowpForm = iota
	formWidened
)

// lowpPack is a packed B.
type lowpPack struct {
	k, n  int
	level isaLevel
	form  lowpForm
	// formPairs
	nr, group, elem int
	kg              int // group rows per panel
	amx             bool
	data            []byte
	// colSum128 is 128·Σ_p B(p,j) for int8 B (to undo the offset of signed
	// A where the kernels take A as unsigned), padded to whole panels.
	colSum128 []int32
	// formWidened
	wide *PackedB
	// rowBuf holds a row of B while it is packed.
	rowBuf []uint32
}

// bytes is the memory the pack holds.
func (p *lowpPack) bytes() int {
	n := len(p.data) + 4*len(p.colSum128)
	if p.wide != nil {
		n += p.wide.Bytes()
	}
	return n
}

// Bytes is the memory the packed matrix holds.
func (p *PackedBF16) Bytes() int { return p.p.bytes() }

// Bytes is the memory the packed matrix holds.
func (p *PackedF16) Bytes() int { return p.p.bytes() }

// Bytes is the memory the packed matrix holds.
func (p *PackedS8) Bytes() int { return p.p.bytes() }

// panelBytes is the size of one panel of a formPairs pack.
func (p *lowpPack) panelBytes() int { return p.kg * p.nr * 4 }

// panels is the number of panels.
func (p *lowpPack) panels() int { return (p.n + p.nr - 1) / p.nr }

func checkPack(fn string, transB bool, k, n, length, ldb int) {
	if k < 0 || n < 0 {
		panic(fmt.Sprintf("kiln: %s: sizes must not be negative, found k=%d n=%d", fn, k, n))
	}
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	checkMatrix(fn, "b", "ldb", rows, cols, length, ldb)
}

// packPairs packs B into groups of g elements of elem bytes for the tiles
// d (and AMX when amx), a row of op(B) at a time: row(pk, out) sets out[j]
// to the raw bits of B(pk, j), j < n.
func packPairs(reuse *lowpPack, k, n int, d *dotTiles, amx bool, level isaLevel, row func(pk int, out []uint32)) *lowpPack {
	p := preparePairs(reuse, k, n, d, amx, level, true)
	if cap(p.rowBuf) < n {
		p.rowBuf = make([]uint32, n)
	}
	p.rowBuf = p.rowBuf[:n]
	panels := p.panels()
	pb := p.panelBytes()
	for pk := 0; pk < k; pk++ {
		row(pk, p.rowBuf)
		g, t := pk/d.group, pk%d.group
		for q := 0; q < panels; q++ {
			base := q*pb + g*p.nr*4 + t*d.elem
			src := p.rowBuf[q*p.nr : min(n, q*p.nr+p.nr)]
			dst := p.data[base : base+4*len(src)]
			if d.elem == 2 {
				for j0, v := range src {
					dst[4*j0], dst[4*j0+1] = byte(v), byte(v>>8)
				}
			} else {
				for j0, v := range src {
					dst[4*j0] = byte(v)
				}
			}
		}
	}
	return p
}

// fillPairs16 fills a prepared pack of 16-bit pairs (group 2, elem 2)
// straight from B: a pair of K is one 32-bit word of Bᵀ's row, or two
// elements of consecutive rows of B interleaved. Whole panels go through
// the level's kernels where it has them — the pair kernel for B (a group
// row across every panel per call), the transpose strips for Bᵀ (whose
// rows are then rows of words) — and the rest through the Go loop. Every
// word is written: the padding (group rows past K, columns past n, the
// bytes after the last panel) with zeros.
func fillPairs16(p *lowpPack, transB bool, b []uint16, ldb int) {
	k, n, nr := p.k, p.n, p.nr
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(p.data))), len(p.data)/4)
	full := k / 2
	groups := (k + 1) / 2 // group rows holding elements of B
	for q := 0; q < p.panels(); q++ {
		panel := words[q*p.kg*nr : (q+1)*p.kg*nr]
		clear(panel[groups*nr:])
		if cols := min(nr, n-q*nr); cols < nr {
			for g := 0; g < groups; g++ {
				clear(panel[g*nr+cols : (g+1)*nr])
			}
		}
	}
	clear(p.data[p.panels()*p.panelBytes():])
	t := kernels()
	whole := n / nr // panels of nr columns
	var done [2]int // the kernels filled groups [0, done[1]) of panels [0, done[0])
	switch {
	case full == 0 || whole == 0:
	case !transB && t.packPairs16 != nil && nr%16 == 0:
		for g := 0; g < full; g++ {
			t.packPairs16(&words[g*nr], p.kg*nr, &b[2*g*ldb], &b[(2*g+1)*ldb], nr, whole)
		}
		done = [2]int{whole, full}
	case transB && ldb%2 == 0 && t.transpose.strip != nil && nr%t.transpose.width == 0:
		w := t.transpose.width
		strips := full / w * w
		src := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
		dst := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(words))), len(words))
		for q := 0; q < whole; q++ {
			panel := q * p.kg * nr
			for g0 := 0; g0 < strips; g0 += w {
				t.transpose.strip(&dst[panel+g0*nr], nr, &src[q*nr*(ldb/2)+g0], ldb/2, nr)
			}
		}
		done = [2]int{whole, strips}
	}
	for q := 0; q < p.panels(); q++ {
		j0 := q * nr
		cols := min(nr, n-j0)
		panel := words[q*p.kg*nr:]
		g0 := 0
		if q < done[0] {
			g0 = done[1]
		}
		for g := g0; g < full; g++ {
			out := panel[g*nr : g*nr+cols]
			if transB {
				for jj := range out {
					out[jj] = *(*uint32)(unsafe.Pointer(&b[(j0+jj)*ldb+2*g]))
				}
				continue
			}
			r0 := b[2*g*ldb+j0 : 2*g*ldb+j0+cols]
			r1 := b[(2*g+1)*ldb+j0 : (2*g+1)*ldb+j0+cols]
			for jj := range out {
				out[jj] = uint32(r0[jj]) | uint32(r1[jj])<<16
			}
		}
		if k%2 == 1 { // the last group: its second element stays zero
			out := panel[full*nr : full*nr+cols]
			for jj := range out {
				if transB {
					out[jj] = uint32(b[(j0+jj)*ldb+k-1])
				} else {
					out[jj] = uint32(b[(k-1)*ldb+j0+jj])
				}
			}
		}
	}
}

// preparePairs sizes a pack of pairs (reusing reuse's storage when it is
// large enough), zeroed when zero (else the caller writes every word:
// fillPairs16).
func preparePairs(reuse *lowpPack, k, n int, d *dotTiles, amx bool, level isaLevel, zero bool) *lowpPack {
	p := reuse
	if p == nil {
		p = new(lowpPack)
	}
	data, colSum, rowBuf := p.data, p.colSum128, p.rowBuf
	*p = lowpPack{k: k, n: n, level: level, form: formPairs, nr: d.nr, group: d.group, elem: d.elem, amx: amx}
	p.kg = (k + d.group - 1) / d.group
	if amx {
		p.kg = (p.kg + 15) &^ 15
	}
	panels := p.panels()
	size := panels*p.panelBytes() + 64
	if cap(data) >= size {
		p.data = data[:size]
		if zero {
			clear(p.data)
		}
		p.colSum128 = colSum
	} else {
		p.data = make([]byte, size)
	}
	p.rowBuf = rowBuf
	return p
}

// PackedBF16 is a k×n bfloat16 matrix packed once for GemmBF16 (constant
// weights packed at compile time). It is immutable and safe for concurrent
// use, and tied to the instruction-set level in use when it was packed
// (see SetISA).
type PackedBF16 struct{ p *lowpPack }

// PackBF16 packs op(B), a k×n matrix of bfloat16 bits (B, or Bᵀ when
// transB), with leading dimension ldb. Where the level has a bfloat16 dot
// product (AVX512_BF16, AMX) it packs pairs along K; elsewhere it widens B
// to float32 once, for the float32 kernels. It panics on the programmer
// errors PackB panics on.
func PackBF16(transB bool, k, n int, b []uint16, ldb int) *PackedBF16 {
	checkPack("PackBF16", transB, k, n, len(b), ldb)
	return &PackedBF16{packNarrow(nil, transB, k, n, b, ldb, bf16Widen, kernels().bdot)}
}

// RepackBF16 is PackBF16 into p's storage when p is not nil and its storage
// is large enough (a B packed on every call — attention's keys and values —
// then allocates nothing in steady state). It returns the packed matrix,
// p itself when its storage was reused.
func RepackBF16(p *PackedBF16, transB bool, k, n int, b []uint16, ldb int) *PackedBF16 {
	checkPack("RepackBF16", transB, k, n, len(b), ldb)
	var reuse *lowpPack
	if p != nil {
		reuse = p.p
	}
	q := packNarrow(reuse, transB, k, n, b, ldb, bf16Widen, kernels().bdot)
	if p == nil {
		return &PackedBF16{q}
	}
	p.p = q
	return p
}

// PackedF16 is a k×n binary16 matrix packed once for GemmF16.
type PackedF16 struct{ p *lowpPack }

// PackF16 packs op(B), a k×n matrix of binary16 bits, widened to float32
// once (binary16 products accumulate in float32 on every level, through
// the float32 kernels).
func PackF16(transB bool, k, n int, b []uint16, ldb int) *PackedF16 {
	checkPack("PackF16", transB, k, n, len(b), ldb)
	return &PackedF16{packNarrow(nil, transB, k, n, b, ldb, f16Widen, nil)}
}

func packNarrow(reuse *lowpPack, transB bool, k, n int, b []uint16, ldb int, widen func(uint16) float32, d *dotTiles) *lowpPack {
	t := kernels()
	at := func(p, j int) uint16 {
		if transB {
			return b[j*ldb+p]
		}
		return b[p*ldb+j]
	}
	if d != nil && d.group == 2 && d.elem == 2 {
		p := preparePairs(reuse, k, n, d, t.amx != nil, t.level, false)
		fillPairs16(p, transB, b, ldb)
		return p
	}
	if d != nil {
		return packPairs(reuse, k, n, d, t.amx != nil, t.level, func(pk int, out []uint32) {
			if transB {
				for j := range out {
					out[j] = uint32(b[j*ldb+pk])
				}
				return
			}
			for j, v := range b[pk*ldb : pk*ldb+len(out)] {
				out[j] = uint32(v)
			}
		})
	}
	w := make([]float32, k*n)
	for p := 0; p < k; p++ {
		for j := 0; j < n; j++ {
			w[p*n+j] = widen(at(p, j))
		}
	}
	return &lowpPack{k: k, n: n, level: t.level, form: formWidened, wide: PackB(false, k, n, w, max(1, n))}
}

// K returns the number of rows of the packed matrix.
func (p *PackedBF16) K() int { return p.p.k }

// N returns the number of columns of the packed matrix.
func (p *PackedBF16) N() int { return p.p.n }

// K returns the number of rows of the packed matrix.
func (p *PackedF16) K() int { return p.p.k }

// N returns the number of columns of the packed matrix.
func (p *PackedF16) N() int { return p.p.n }

// PackedS8 is a k×n int8 matrix packed once for GemmS8S8 and GemmU8S8.
type PackedS8 struct{ p *lowpPack }

// PackS8 packs op(B), a k×n int8 matrix, for the level's integer kernels:
// byte quads along K where the level has VNNI (or AMX), int16 pairs
// otherwise, with the column sums the kernels need.
func PackS8(transB bool, k, n int, b []int8, ldb int) *PackedS8 {
	checkPack("PackS8", transB, k, n, len(b), ldb)
	return &PackedS8{packS8(nil, transB, k, n, b, ldb)}
}

// RepackS8 is PackS8 into p's storage when p is not nil and its storage is
// large enough (see RepackBF16).
func RepackS8(p *PackedS8, transB bool, k, n int, b []int8, ldb int) *PackedS8 {
	checkPack("RepackS8", transB, k, n, len(b), ldb)
	if p == nil {
		return &PackedS8{packS8(nil, transB, k, n, b, ldb)}
	}
	p.p = packS8(p.p, transB, k, n, b, ldb)
	return p
}

func packS8(reuse *lowpPack, transB bool, k, n int, b []int8, ldb int) *lowpPack {
	t := kernels()
	d := t.intDot()
	var sums []int32
	if reuse != nil {
		sums = reuse.colSum128
	}
	cols := (n + d.nr - 1) / d.nr * d.nr
	if cap(sums) >= cols {
		sums = sums[:cols]
		clear(sums)
	} else {
		sums = make([]int32, cols)
	}
	var p *lowpPack
	if d.group == 4 && d.elem == 1 {
		p = preparePairs(reuse, k, n, d, t.amx != nil, t.level, true)
		fillQuads8(p, transB, b, ldb, sums)
	} else {
		p = packPairs(reuse, k, n, d, t.amx != nil, t.level, func(pk int, out []uint32) {
			if transB {
				for j := range out {
					v := b[j*ldb+pk]
					out[j] = uint32(int32(v))
					sums[j] += int32(v)
				}
				return
			}
			for j, v := range b[pk*ldb : pk*ldb+len(out)] {
				out[j] = uint32(int32(v))
				sums[j] += int32(v)
			}
		})
	}
	for j := range sums {
		sums[j] *= 128
	}
	p.colSum128 = sums
	return p
}

// fillQuads8 fills a prepared, zeroed pack of int8 quads (group 4, elem
// 1) straight from B, a word at a time: group row g of column j holds
// B(4g…4g+3, j), the first in the low byte — four bytes of one row of Bᵀ,
// or the bytes of four rows of B at the same column. sums[j] accumulates
// the column sums of op(B).
func fillQuads8(p *lowpPack, transB bool, b []int8, ldb int, sums []int32) {
	k, n, nr := p.k, p.n, p.nr
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(p.data))), len(p.data)/4)
	byteOf := func(v int8) uint32 { return uint32(uint8(v)) }
	for q := 0; q < p.panels(); q++ {
		j0, j1 := q*nr, min(n, q*nr+nr)
		panel := words[q*p.kg*nr:]
		for g := 0; 4*g < k; g++ {
			dst := panel[g*nr : g*nr+j1-j0]
			p0 := 4 * g
			switch {
			case transB:
				for jj := range dst {
					row := b[(j0+jj)*ldb:]
					var w uint32
					var s int32
					if p0+4 <= k {
						r := row[p0 : p0+4]
						w = byteOf(r[0]) | byteOf(r[1])<<8 | byteOf(r[2])<<16 | byteOf(r[3])<<24
						s = int32(r[0]) + int32(r[1]) + int32(r[2]) + int32(r[3])
					} else {
						for t := 0; p0+t < k; t++ {
							w |= byteOf(row[p0+t]) << (8 * t)
							s += int32(row[p0+t])
						}
					}
					dst[jj] = w
					sums[j0+jj] += s
				}
			case p0+4 <= k:
				r0 := b[p0*ldb+j0 : p0*ldb+j1]
				r1 := b[(p0+1)*ldb+j0 : (p0+1)*ldb+j1][:len(r0)]
				r2 := b[(p0+2)*ldb+j0 : (p0+2)*ldb+j1][:len(r0)]
				r3 := b[(p0+3)*ldb+j0 : (p0+3)*ldb+j1][:len(r0)]
				dst = dst[:len(r0)]
				s := sums[j0 : j0+len(r0)]
				for jj, v0 := range r0 {
					v1, v2, v3 := r1[jj], r2[jj], r3[jj]
					dst[jj] = byteOf(v0) | byteOf(v1)<<8 | byteOf(v2)<<16 | byteOf(v3)<<24
					s[jj] += int32(v0) + int32(v1) + int32(v2) + int32(v3)
				}
			default:
				for t := 0; p0+t < k; t++ {
					r := b[(p0+t)*ldb+j0 : (p0+t)*ldb+j1]
					for jj, v := range r {
						dst[jj] |= byteOf(v) << (8 * t)
						sums[j0+jj] += int32(v)
					}
				}
			}
		}
	}
}

// K returns the number of rows of the packed matrix.
func (p *PackedS8) K() int { return p.p.k }

// N returns the number of columns of the packed matrix.
func (p *PackedS8) N() int { return p.p.n }

// bytesOf returns the bytes of a slice.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// BF16Pairs reports whether the instruction-set level in use multiplies
// bfloat16 on packed pairs (AMX, AVX512_BF16, BFDOT): PackBF16 then keeps
// B in bfloat16 and RepackBF16 reuses its storage. Elsewhere B is widened
// to float32 when it is packed.
func BF16Pairs() bool { return kernels().bdot != nil }
