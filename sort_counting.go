package kiln

import (
	"math/bits"
	"unsafe"
)

// Counting sorts of rows of keys alone whose varying bits fit 16: 16-bit
// keys, and 32-bit keys whose bits vary only within 16 adjacent ones (the
// float32 of a bfloat16 value, small integers). Keys that compare equal in
// the total order are the same bits, so a stable sort of keys alone is the
// sorted multiset: one pass counts each 16-bit key (mapped by the order's
// transform, so that the keys' order is the counters' order) and marks it
// in a bitmap of the 65,536 keys, and a walk over the bitmap's set bits
// writes each key as many times as it was counted, clearing the counters
// and the bitmap as it goes. A row of a few thousand keys touches a few
// hundred of the counters where its values cluster (as a model's
// activations do), and those stay in L1.

// countingSortMin is the least row length sorted by counting (shorter rows
// cost more in the bitmap's walk than in radix passes).
const countingSortMin = 1536

// countingSortMax is the longest row the 16-bit counters hold.
const countingSortMax = 1<<16 - 1

// countingTables are a part's counters and bitmap, zero between sorts.
type countingTables struct {
	cnt [1 << 16]uint16
	bm  [1 << 10]uint64
}

// counting returns the part's counting tables.
func (b *sortBuffers) counting() *countingTables {
	if b.ct == nil {
		b.ct = new(countingTables)
	}
	return b.ct
}

// countingSort16 sorts row, 16-bit key bits mapped by x, by counting, and
// reports true; with canon (floats whose infinity is inf) it instead
// leaves row as it is and reports false where the row holds a -0 or a NaN,
// whose canonical order is not the total order. len(row) ≤ countingSortMax.
func countingSort16(row []uint16, x xform16, canon bool, inf uint16, t *countingTables) bool {
	for _, v := range row {
		k := x.key(v)
		t.cnt[k]++
		t.bm[k>>6] |= 1 << (k & 63)
	}
	lo, hi := t.span()
	if canon {
		// NaNs are the least or the greatest keys (by sign), in either
		// direction of the order.
		first, last := x.bits(t.least(lo)), x.bits(t.greatest(hi))
		z := x.key(0x8000)
		if first&0x7fff > inf || last&0x7fff > inf || t.bm[z>>6]>>(z&63)&1 != 0 {
			t.clear(lo, hi)
			return false
		}
	}
	n := len(row)
	out := unsafe.Pointer(unsafe.SliceData(row))
	pos := 0
	for wi := lo; wi < hi; wi++ {
		w := t.bm[wi]
		if w == 0 {
			continue
		}
		t.bm[wi] = 0
		for w != 0 {
			k := uint16(wi<<6 | bits.TrailingZeros64(w))
			w &= w - 1
			c := int(t.cnt[k])
			t.cnt[k] = 0
			v := x.bits(k)
			if c <= 8 && pos+8 <= n {
				// Eight copies written, c of them kept.
				q := uint64(v) * 0x0001000100010001
				p := unsafe.Add(out, 2*pos)
				*(*uint64)(p) = q
				*(*uint64)(unsafe.Add(p, 8)) = q
			} else {
				for i := pos; i < pos+c; i++ {
					row[i] = v
				}
			}
			pos += c
		}
	}
	return true
}

// countingSort32 sorts row, 32-bit key bits mapped by x, by counting the
// 16 bits at shift s, and reports true, where the keys' bits vary (from
// the first's) only in those 16; elsewhere, and with canon (float32) where
// the row holds a -0 or a NaN, it leaves row as it is and reports false.
// len(row) ≤ countingSortMax.
func countingSort32(row []uint32, x xform32, s uint, canon bool, t *countingTables) bool {
	s &= 31
	v0 := row[0]
	and, or := v0, v0
	for _, v := range row {
		and &= v
		or |= v
		k := uint16(x.key(v) >> s)
		t.cnt[k]++
		t.bm[k>>6] |= 1 << (k & 63)
	}
	lo, hi := t.span()
	wmask := uint32(0xffff) << s
	if (or^and)&^wmask != 0 {
		t.clear(lo, hi)
		return false
	}
	// The bits outside the window are v0's: its key's, to map a window
	// back, and its own, for the bits the window leaves (below it, where
	// the sign varies and maps them).
	kRest := x.key(v0) &^ wmask
	vRest := v0 &^ wmask
	bitsOf := func(k uint16) uint32 { return x.bits(uint32(k)<<s|kRest)&wmask | vRest }
	if canon {
		first, last := bitsOf(t.least(lo)), bitsOf(t.greatest(hi))
		negZero := false
		if 0x80000000&^wmask == vRest {
			z := uint16(x.key(0x80000000) >> s)
			negZero = t.bm[z>>6]>>(z&63)&1 != 0
		}
		if first&0x7fffffff > 0x7f800000 || last&0x7fffffff > 0x7f800000 || negZero {
			t.clear(lo, hi)
			return false
		}
	}
	n := len(row)
	out := unsafe.Pointer(unsafe.SliceData(row))
	pos := 0
	for wi := lo; wi < hi; wi++ {
		w := t.bm[wi]
		if w == 0 {
			continue
		}
		t.bm[wi] = 0
		for w != 0 {
			k := uint16(wi<<6 | bits.TrailingZeros64(w))
			w &= w - 1
			c := int(t.cnt[k])
			t.cnt[k] = 0
			v := bitsOf(k)
			if c <= 8 && pos+8 <= n {
				q := uint64(v) * 0x0000000100000001
				p := unsafe.Add(out, 4*pos)
				*(*uint64)(p) = q
				*(*uint64)(unsafe.Add(p, 8)) = q
				*(*uint64)(unsafe.Add(p, 16)) = q
				*(*uint64)(unsafe.Add(p, 24)) = q
			} else {
				for i := pos; i < pos+c; i++ {
					row[i] = v
				}
			}
			pos += c
		}
	}
	return true
}

// span returns the bitmap's words from the first that is not zero to the
// last, [lo, hi); the bitmap is not empty.
func (t *countingTables) span() (lo, hi int) {
	for t.bm[lo] == 0 {
		lo++
	}
	hi = len(t.bm)
	for t.bm[hi-1] == 0 {
		hi--
	}
	return lo, hi
}

// least returns the least key counted, in word lo (the span's first).
func (t *countingTables) least(lo int) uint16 {
	return uint16(lo<<6 | bits.TrailingZeros64(t.bm[lo]))
}

// greatest returns the greatest key counted, in word hi-1 (the span's last).
func (t *countingTables) greatest(hi int) uint16 {
	return uint16((hi-1)<<6 | 63 - bits.LeadingZeros64(t.bm[hi-1]))
}

// clear zeroes the counters and the bitmap words in [lo, hi).
func (t *countingTables) clear(lo, hi int) {
	for wi := lo; wi < hi; wi++ {
		for w := t.bm[wi]; w != 0; w &= w - 1 {
			t.cnt[wi<<6|bits.TrailingZeros64(w)] = 0
		}
		t.bm[wi] = 0
	}
}

// varyingBits32 returns the bits in which the keys of row differ from its
// first, and whether canonicalisation changes any of them (a -0 or a NaN,
// when floats is true). The keys are read in pairs with an accumulator
// each.
func varyingBits32(row []uint32, floats bool) (vary uint32, changed bool) {
	v0 := row[0]
	and0, and1, or0, or1 := v0, v0, v0, v0
	if !floats {
		i := 0
		for ; i+1 < len(row); i += 2 {
			a, b := row[i], row[i+1]
			and0 &= a
			or0 |= a
			and1 &= b
			or1 |= b
		}
		for ; i < len(row); i++ {
			and0 &= row[i]
			or0 |= row[i]
		}
		return (or0 | or1) ^ (and0 & and1), false
	}
	var nan0, nan1 uint32
	var neg0, neg1 uint64
	i := 0
	for ; i+1 < len(row); i += 2 {
		a, b := row[i], row[i+1]
		and0 &= a
		or0 |= a
		and1 &= b
		or1 |= b
		nan0 |= 0x7f800000 - a&0x7fffffff // the sign bit set by a NaN
		nan1 |= 0x7f800000 - b&0x7fffffff
		neg0 |= uint64(a^0x80000000) - 1 // the top bit set by a -0
		neg1 |= uint64(b^0x80000000) - 1
	}
	for ; i < len(row); i++ {
		a := row[i]
		and0 &= a
		or0 |= a
		nan0 |= 0x7f800000 - a&0x7fffffff
		neg0 |= uint64(a^0x80000000) - 1
	}
	return (or0 | or1) ^ (and0 & and1), (nan0|nan1)>>31 != 0 || (neg0|neg1)>>63 != 0
}

// shift16 is the shift of the 16-bit window of the bits set in vary.
func shift16(vary uint32) uint { return uint(max(0, bits.Len32(vary)-16)) }

// narrow32 reports whether the bits set in vary lie within 16 adjacent ones.
func narrow32(vary uint32) bool {
	return vary&(1<<shift16(vary)-1) == 0
}
