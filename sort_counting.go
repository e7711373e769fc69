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

// countingSort16 sorts row, 16-bit key bits mapped by x, by counting.
// len(row) ≤ countingSortMax.
func countingSort16(row []uint16, x xform16, t *countingTables) {
	for _, v := range row {
		k := x.key(v)
		t.cnt[k]++
		t.bm[k>>6] |= 1 << (k & 63)
	}
	n := len(row)
	out := unsafe.Pointer(unsafe.SliceData(row))
	pos := 0
	for wi := range t.bm {
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
}

// countingSort32 sorts row, 32-bit key bits mapped by x whose bits vary
// (from v0, the row's first) only in the 16 at shift s, by counting.
// len(row) ≤ countingSortMax.
func countingSort32(row []uint32, x xform32, s uint, t *countingTables) {
	s &= 31
	v0 := row[0]
	for _, v := range row {
		k := uint16(x.key(v) >> s)
		t.cnt[k]++
		t.bm[k>>6] |= 1 << (k & 63)
	}
	// The bits outside the window are v0's: its key's, to map a window
	// back, and its own, for the bits the window leaves (below it, where
	// the sign varies and maps them).
	wmask := uint32(0xffff) << s
	kRest := x.key(v0) &^ wmask
	vRest := v0 &^ wmask
	n := len(row)
	out := unsafe.Pointer(unsafe.SliceData(row))
	pos := 0
	for wi := range t.bm {
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
			v := x.bits(uint32(k)<<s|kRest)&wmask | vRest
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

// narrow32 reports whether the bits set in vary lie within 16 adjacent ones.
func narrow32(vary uint32) bool {
	s := max(0, bits.Len32(vary)-16)
	return vary&(1<<s-1) == 0
}
