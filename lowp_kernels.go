package kiln

import "unsafe"

// The kernels of the low-precision products (lowp.go) and their pure-Go
// twins.
//
// A dot kernel (gen/lowp.go) computes a tile of rows ≤ mr rows and the nr
// columns of one panel of a packed B over all of K:
//
//	C(i,j) = Σ_q Σ_t A(i, q·g+t)·B(q·g+t, j), then + aux[j] (float tiles) or
//	− aux[j] (integer tiles) with flagBias, max(·, 0) with flagReLU
//
// with g = group k values per group. A's group q of row i is the 4 bytes
// at a + i·lda + 4q (g elements of elem bytes); the panel's group row q is
// the nr groups of columns 0…nr-1, 4 bytes each, at b + q·nr·4; C(i,j) is
// the float32 or int32 at c + 4(i·ldc + j). With flagPartial only the
// columns whose mask entry is -1 are written. kg ≥ 0 groups.
type dotKernel func(kg int, a *byte, lda int, b *byte, c *byte, ldc int, aux *byte, mask *int32, flags uint)

// dotTiles is one level's dot kernels for one kind of product.
type dotTiles struct {
	mr, nr int
	group  int // k values per group
	elem   int // bytes per element of A and B
	// unsignedA: the products take A's bytes as unsigned (VPDPBUSD); a
	// signed A is offset by 128 and 128·Σ_p B(p,j) subtracted.
	unsignedA bool
	masked    bool        // the kernels honour flagPartial
	rows      []dotKernel // by row count, index 0 unused
	kind      int         // dotPairsBF16 or dotInt
}

// The kinds of dot product.
const (
	dotPairsBF16 = iota // bfloat16 elements, float32 accumulators
	dotInt              // integer elements (int16, or unsigned × signed bytes), int32 accumulators
)

// amxKernel computes a 32×32 block of C (32 rows of 128 bytes at c): kb
// steps, each over 16 groups of K — 64 bytes of each of the 32 rows of A (at
// a, row stride lda bytes) and 16 group rows of B (two 16-column halves, at
// b and b+64, row stride ldb) — with the tile configuration cfg.
type amxKernel func(kb int, a *byte, lda int, b *byte, ldb int, c *byte, cfg *[64]byte)

// amxKernels are the AMX products: bfloat16 pairs into float32, signed and
// unsigned×signed byte quads into int32.
type amxKernels struct {
	bf16, s8s8, u8s8 amxKernel
}

// amxConfig is the tile configuration of the AMX kernels: palette 1, every
// tile 16 rows of 64 bytes.
var amxConfig = func() (c [64]byte) {
	c[0] = 1
	for t := 0; t < 8; t++ {
		c[16+2*t] = 64
		c[48+t] = 16
	}
	return c
}()

// dotTwin returns the pure-Go twin of a dot kernel of the given kind, group
// and element size, for rows rows and nr columns.
func dotTwin(kind, group, elem, rows, nr int, unsignedA bool) dotKernel {
	return func(kg int, a *byte, lda int, b *byte, c *byte, ldc int, aux *byte, mask *int32, flags uint) {
		for i := 0; i < rows; i++ {
			for j := 0; j < nr; j++ {
				if flags&flagPartial != 0 && *(*int32)(unsafe.Add(unsafe.Pointer(mask), 4*j)) == 0 {
					continue
				}
				var accF float32
				var accI int32
				for q := 0; q < kg; q++ {
					ag := unsafe.Add(unsafe.Pointer(a), i*lda+4*q)
					bg := unsafe.Add(unsafe.Pointer(b), (q*nr+j)*4)
					switch kind {
					case dotPairsBF16:
						accF = bf16PairDot(accF, *(*uint16)(ag), *(*uint16)(unsafe.Add(ag, 2)), *(*uint16)(bg), *(*uint16)(unsafe.Add(bg, 2)))
					default:
						for t := 0; t < group; t++ {
							var x, y int32
							if elem == 2 {
								x, y = int32(*(*int16)(unsafe.Add(ag, 2*t))), int32(*(*int16)(unsafe.Add(bg, 2*t)))
							} else {
								x, y = int32(*(*int8)(unsafe.Add(ag, t))), int32(*(*int8)(unsafe.Add(bg, t)))
								if unsignedA {
									x = int32(*(*uint8)(unsafe.Add(ag, t)))
								}
							}
							accI += x * y
						}
					}
				}
				out := unsafe.Add(unsafe.Pointer(c), 4*(i*ldc+j))
				if kind == dotPairsBF16 {
					if flags&flagBias != 0 {
						accF += *(*float32)(unsafe.Add(unsafe.Pointer(aux), 4*j))
					}
					if flags&flagReLU != 0 && accF <= 0 {
						accF = 0 // XLA's max(x, 0): +0 for -0 too; NaN kept
					}
					*(*float32)(out) = accF
				} else {
					if flags&flagBias != 0 {
						accI -= *(*int32)(unsafe.Add(unsafe.Pointer(aux), 4*j))
					}
					*(*int32)(out) = accI
				}
			}
		}
	}
}

// bf16PairDot is VDPBF16PS on one lane: acc + a1·b1, then + a0·b0, each
// product exact in float32 (two 8-bit significands) and each sum rounded to
// nearest even. (The instruction also treats subnormal inputs and results
// as zero; the tests keep the products normal, or bound the difference.)
func bf16PairDot(acc float32, a0, a1, b0, b1 uint16) float32 {
	p0 := float32(bf16Widen(a0) * bf16Widen(b0))
	p1 := float32(bf16Widen(a1) * bf16Widen(b1))
	acc = float32(acc + p1)
	return float32(acc + p0)
}

// twinDotTiles returns a dotTiles of twins.
func twinDotTiles(kind, group, elem, mr, nr int, unsignedA bool) *dotTiles {
	d := &dotTiles{mr: mr, nr: nr, group: group, elem: elem, unsignedA: unsignedA, masked: true, kind: kind}
	d.rows = make([]dotKernel, mr+1)
	for r := 1; r <= mr; r++ {
		d.rows[r] = dotTwin(kind, group, elem, r, nr, unsignedA)
	}
	return d
}

// genericIDot is the generic level's int8 kernels: twins over int16 pairs.
var genericIDot = twinDotTiles(dotInt, 2, 2, 4, 16, false)

// intDot returns the level's int8 dot kernels (the generic twins where the
// level has none).
func (t *kernelTable) intDot() *dotTiles {
	if t.idot != nil {
		return t.idot
	}
	return genericIDot
}
