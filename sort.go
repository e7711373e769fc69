package kiln

import (
	"fmt"
	"sync"
	"unsafe"
)

// Sorting rows: each row of a row-major [rows, n] matrix of keys is sorted
// in place, and an optional int32 payload of the same shape (the indices
// 0…n-1 for an argsort, or any int32 the caller carries) is permuted with
// it. The sort is stable: keys that compare equal keep their order (XLA's
// sort with is_stable, and the order every other comparator also permits).
//
// The orders are XLA's: floats in the total order of TOTALORDER comparisons
// (-NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN, NaNs ordered by their
// payload bits), or with SortCanonicalNaN the order of JAX's comparator,
// which canonicalises before comparing (-0 equals +0, and every NaN equals
// every other and sorts after +Inf); integers by value. SortDescending
// reverses the order (equal keys still keep their relative order, as a
// stable sort with a "greater than" comparator does).
//
// The keys are mapped to unsigned integers whose order is the requested
// order (the total-order transform: a float's bits with the magnitude
// flipped for negatives and the sign flipped for positives), sorted by a
// least-significant-digit radix sort — 8-bit digits, one histogram pass for
// all of them, digits every key shares skipped — and mapped back; rows of
// keys alone take radix passes of their own (sort_keys.go; three of 11-bit
// digits for 32-bit rows of 2048 keys or more, sort_keys11.go), a
// counting sort where their bits vary only within 16 (sort_counting.go),
// or, for 32-bit rows of 64 to 8192 keys on the AVX-512 levels, a
// vector bitonic sort (sort_vector.go).
// A row lives in L1 or L2 while it is sorted; rows run in parallel on the
// kernels' threads. Top-k (topk.go) selects without sorting.

// SortOrder selects the order of a sort.
type SortOrder uint8

const (
	// SortAscending is the total order (or the integers' order), smallest first.
	SortAscending SortOrder = 0
	// SortDescending sorts largest first.
	SortDescending SortOrder = 1 << 0
	// SortCanonicalNaN compares floats as JAX's sort does: -0 and +0 are
	// equal, every NaN is equal to every other and larger than +Inf.
	SortCanonicalNaN SortOrder = 1 << 1
)

// sortKind is the key type of a row sort.
type sortKind uint8

const (
	sortF32 sortKind = iota
	sortBF16
	sortF16
	sortS32
	sortU32
	sortS16
	sortU16
)

// keyBits is the key width of a sort kind.
func (k sortKind) keyBits() int {
	switch k {
	case sortBF16, sortF16, sortS16, sortU16:
		return 16
	}
	return 32
}

// sortBuffers are one part's scratch: keys and payloads, twice, and the
// histograms.
type sortBuffers struct {
	k1, k2 []uint32
	p1, p2 []int32
	w1, w2 []uint64 // keys with their payloads, for radixPairs32
	h      []uint32
	vs     []uint32 // the vector sort's scratch row
	ct     *countingTables
	// wide is set where the last row of 32-bit keys alone was sorted by
	// radix passes, its bits varying beyond 16; shift16 is the window of
	// the last one sorted by counting.
	wide    bool
	shift16 uint
}

// vectorScratch returns the vector sort's scratch row for n keys.
func (b *sortBuffers) vectorScratch(n int) []uint32 {
	m := vectorSortLen(n)
	if cap(b.vs) < m {
		b.vs = make([]uint32, m)
	}
	return b.vs[:m]
}

// hist returns n zeroed counters.
func (b *sortBuffers) hist(n int) []uint32 {
	if cap(b.h) < n {
		b.h = make([]uint32, n)
	}
	b.h = b.h[:n]
	clear(b.h)
	return b.h
}

// sortJob sorts rows in parallel parts.
type sortJob struct {
	kind  sortKind
	keys  unsafe.Pointer // rows·n keys of the kind's width
	idx   []int32
	n     int
	rows  int
	order SortOrder
	parts int
	bufs  []sortBuffers
	done  pending
}

var sortJobs = sync.Pool{New: func() any { return new(sortJob) }}

// minSortPart is the least number of keys worth one more thread.
var minSortPart = 1 << 15

func sortRows(fn string, kind sortKind, keys unsafe.Pointer, lenKeys int, idx []int32, n int, order SortOrder) {
	if n < 0 || n == 0 && lenKeys != 0 || n > 0 && lenKeys%n != 0 {
		panic(fmt.Sprintf("kiln: %s: len(keys) must be a multiple of n > 0, found len(keys) = %d, n = %d", fn, lenKeys, n))
	}
	if idx != nil && len(idx) != lenKeys {
		panic(fmt.Sprintf("kiln: %s: len(idx) must be len(keys) = %d or idx nil, found %d", fn, lenKeys, len(idx)))
	}
	if lenKeys == 0 || n == 1 {
		return
	}
	j := sortJobs.Get().(*sortJob)
	*j = sortJob{kind: kind, keys: keys, idx: idx, n: n, rows: lenKeys / n, order: order, bufs: j.bufs}
	j.parts = max(1, min(Threads(), j.rows, lenKeys/minSortPart))
	for len(j.bufs) < j.parts {
		j.bufs = append(j.bufs, sortBuffers{})
	}
	runParallel(j, j.parts, &j.done)
	j.keys, j.idx = nil, nil
	sortJobs.Put(j)
}

func (j *sortJob) runPart(p int) {
	r0, r1 := p*j.rows/j.parts, (p+1)*j.rows/j.parts
	b := &j.bufs[p]
	n := j.n
	if cap(b.k1) < n {
		b.k1, b.k2 = make([]uint32, n), make([]uint32, n)
		b.p1, b.p2 = make([]int32, n), make([]int32, n)
	}
	b.k1, b.k2, b.p1, b.p2 = b.k1[:n], b.k2[:n], b.p1[:n], b.p2[:n]
	for r := r0; r < r1; r++ {
		var idx []int32
		if j.idx != nil {
			idx = j.idx[r*n : (r+1)*n]
		}
		if j.kind.keyBits() == 16 {
			sortRow16(j.kind, unsafe.Slice((*uint16)(unsafe.Add(j.keys, 2*r*n)), n), idx, j.order, b)
		} else {
			sortRow32(j.kind, unsafe.Slice((*uint32)(unsafe.Add(j.keys, 4*r*n)), n), idx, j.order, b)
		}
	}
}

// Key transforms: to an unsigned integer whose ascending order is the
// order asked for, and back.

// floatKey32 maps float32 bits to their total-order key.
func floatKey32(b uint32) uint32 { return b ^ (uint32(int32(b)>>31) | 0x80000000) }

// floatFromKey32 inverts floatKey32.
func floatFromKey32(k uint32) uint32 { return k ^ (uint32(int32(^k)>>31) | 0x80000000) }

func floatKey16(b uint16) uint16     { return b ^ (uint16(int16(b)>>15) | 0x8000) }
func floatFromKey16(k uint16) uint16 { return k ^ (uint16(int16(^k)>>15) | 0x8000) }

// canonical32 is JAX's canonicalisation of float32 bits: -0 becomes +0 and
// every NaN the positive quiet NaN.
func canonical32(b uint32) uint32 {
	switch {
	case b == 0x80000000:
		return 0
	case b&0x7fffffff > 0x7f800000:
		return 0x7fc00000
	}
	return b
}

// changedByCanonical32 reports whether canonicalisation changes any of
// the float32 bits in row (a -0 or a NaN): where it changes none, the
// canonical order is the total order.
func changedByCanonical32(row []uint32) bool {
	for _, b := range row {
		if b == 0x80000000 || b&0x7fffffff > 0x7f800000 {
			return true
		}
	}
	return false
}

// changedByCanonical16 is changedByCanonical32 for 16-bit floats whose
// infinity is inf.
func changedByCanonical16(row []uint16, inf uint16) bool {
	for _, b := range row {
		if b == 0x8000 || b&0x7fff > inf {
			return true
		}
	}
	return false
}

// canonical16 is canonical32 for a 16-bit float whose infinity is inf.
func canonical16(b, inf uint16) uint16 {
	switch {
	case b == 0x8000:
		return 0
	case b&0x7fff > inf:
		return inf | 0x40 // a positive NaN; all NaNs become this one
	}
	return b
}

// sortRow32 sorts one row of 32-bit keys (float32, int32 or uint32 bits).
func sortRow32(kind sortKind, row []uint32, idx []int32, order SortOrder, b *sortBuffers) {
	desc := uint32(0)
	if order&SortDescending != 0 {
		desc = ^uint32(0)
	}
	canon := kind == sortF32 && order&SortCanonicalNaN != 0
	x := xform32{desc: desc}
	switch kind {
	case sortF32:
		x.m1, x.m2 = 0x7fffffff, 0x80000000
	case sortS32:
		x.m2 = 0x80000000
	}
	if len(row) <= insertionSortMax {
		insertionRow32(row, idx, x, canon, b)
		return
	}
	if idx == nil && len(row) >= 64 {
		// Rows of a matrix are alike: counting is tried first where the
		// last row was narrow, with its window.
		counting := len(row) >= countingSortMin && len(row) <= countingSortMax
		if counting && !b.wide && countingSort32(row, x, b.shift16, canon, b.counting()) {
			return
		}
		var vary uint32
		changed, checked := false, false
		if counting && !b.wide {
			// Not narrow in the last row's window: perhaps in another.
			vary, changed = varyingBits32(row, canon)
			checked = true
			if !changed && vary == 0 {
				return // every key is the same
			}
			if !changed && narrow32(vary) && countingSort32(row, x, shift16(vary), false, b.counting()) {
				b.shift16 = shift16(vary)
				return
			}
		}
		vsort := kernels().sortU32
		if vsort != nil && vectorSorts(len(row)) {
			if !changed {
				vary, changed = vectorSortKeys32(row, x, canon && !checked, vsort, b.vectorScratch(len(row)))
			}
		} else if !changed && len(row) >= radix11Min {
			vary, changed = radixKeys11(row, x, canon, b.k1, b.k2, b.hist(radix11Hist))
		} else if !changed {
			vary, changed = radixKeys32(row, x, canon, b.k1, b.k2)
		}
		if !changed {
			// The next row is tried by counting where this one was narrow.
			b.wide = counting && !narrow32(vary)
			if !b.wide {
				b.shift16 = shift16(vary)
			}
			return
		}
		// A -0 or a NaN in the canonical order: below.
	} else if canon && !changedByCanonical32(row) {
		canon = false
	}
	if canon {
		// The canonical keys lose bits the row keeps (a NaN's payload, the
		// sign of zero): sort them with the positions as the payload, then
		// gather the row (and idx) in that order.
		keys, pos := b.k1, b.p1
		for i, v := range row {
			keys[i] = floatKey32(canonical32(v)) ^ desc
			pos[i] = int32(i)
		}
		_, pos = radix32(keys, pos, b.k2, b.p2, 32)
		gatherPositions(row, idx, pos, b)
		return
	}
	radixRow32(row, idx, x, b)
}

// insertionSortMax is the longest row sorted by insertion: below it the
// radix passes' histograms cost more than the comparisons.
const insertionSortMax = 24

// insertionRow32 sorts a short row (and idx with it) stably by insertion of
// its keys — the canonical ones in the canonical order — with their
// positions, then gathers the row in that order.
func insertionRow32(row []uint32, idx []int32, x xform32, canon bool, b *sortBuffers) {
	n := len(row)
	keys, pos := b.k1[:n], b.p1[:n]
	for i, v := range row {
		k := x.key(v)
		if canon {
			k = floatKey32(canonical32(v)) ^ x.desc
		}
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j], pos[j] = keys[j-1], pos[j-1]
		}
		keys[j], pos[j] = k, int32(i)
	}
	gatherPositions(row, idx, pos, b)
}

// insertionRow16 is insertionRow32 for 16-bit keys.
func insertionRow16(row []uint16, idx []int32, x xform16, canon bool, inf uint16, b *sortBuffers) {
	n := len(row)
	keys, pos := b.k1[:n], b.p1[:n]
	for i, v := range row {
		k := uint32(x.key(v))
		if canon {
			k = uint32(floatKey16(canonical16(v, inf)) ^ x.desc)
		}
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j], pos[j] = keys[j-1], pos[j-1]
		}
		keys[j], pos[j] = k, int32(i)
	}
	gatherPositions16(row, idx, pos, b)
}

// xform32 maps a 32-bit key to an unsigned integer of the same order (and
// back): k = b ^ (m1 & (b >> 31 arithmetic)) ^ m2 ^ desc — for float32,
// m1 = 0x7fffffff and m2 = 0x80000000 (the total order: negatives'
// magnitudes flipped, positives above them); for int32, m2 = 0x80000000;
// desc complements the key for a descending sort. The zero xform32 is the
// identity.
type xform32 struct{ m1, m2, desc uint32 }

func (x xform32) key(b uint32) uint32 { return b ^ x.m1&uint32(int32(b)>>31) ^ x.m2 ^ x.desc }

func (x xform32) bits(k uint32) uint32 {
	k ^= x.desc
	return k ^ x.m2 ^ x.m1&uint32(int32(^k)>>31)
}

// radixRow32 sorts a row of 32-bit keys, and idx (when not nil) with it,
// stably, by least-significant-digit radix passes: 11-bit digits (three
// passes) for rows of a thousand keys or more, 8-bit ones (four) for
// shorter rows. One pass counts every digit's histogram; a digit every key
// shares is skipped; the first pass maps the keys as it reads the row and
// the last maps them back as it writes the row.
func radixRow32(row []uint32, idx []int32, x xform32, b *sortBuffers) {
	n := len(row)
	shifts, width := []uint{0, 8, 16, 24}, uint(8)
	if n >= 1024 {
		shifts, width = []uint{0, 11, 22}, 11
	}
	mask := uint32(1)<<width - 1
	hist := b.hist(len(shifts) << width)
	if width == 11 {
		h0, h1, h2 := hist[:2048], hist[2048:4096], hist[4096:6144]
		for _, v := range row {
			k := x.key(v)
			h0[k&0x7ff]++
			h1[k>>11&0x7ff]++
			h2[k>>22]++
		}
	} else {
		h0, h1, h2, h3 := hist[:256], hist[256:512], hist[512:768], hist[768:1024]
		for _, v := range row {
			k := x.key(v)
			h0[k&0xff]++
			h1[k>>8&0xff]++
			h2[k>>16&0xff]++
			h3[k>>24]++
		}
	}
	k0 := x.key(row[0])
	var active [4]int
	na := 0
	for d, sh := range shifts {
		if hist[d<<width+int(k0>>sh&mask)] != uint32(n) {
			active[na] = d
			na++
		}
	}
	if na == 0 {
		return // every key is equal: the row is sorted
	}
	if idx != nil {
		radixPairs32(row, idx, x, hist, shifts, active[:na], width, b)
		return
	}
	bufK := [2][]uint32{b.k1[:n], b.k2[:n]}
	bufP := [2][]int32{b.p1[:n], b.p2[:n]}
	srcK, srcP := row, idx
	for ai := 0; ai < na; ai++ {
		d := active[ai]
		h := hist[d<<width : (d+1)<<width]
		sum := uint32(0)
		for i, c := range h {
			h[i] = sum
			sum += c
		}
		in, out := xform32{}, xform32{}
		if ai == 0 {
			in = x
		}
		dstK, dstP := bufK[ai%2], bufP[ai%2]
		if ai == na-1 && na > 1 {
			dstK, dstP, out = row, idx, x
		}
		if idx == nil {
			dstP = nil
		}
		scatter32(srcK, srcP, dstK, dstP, h, shifts[d], mask, in, out)
		srcK, srcP = dstK, dstP
	}
	if na == 1 {
		// One pass: it went to a buffer; back to the row, mapped back.
		for i, k := range srcK {
			row[i] = x.bits(k)
		}
		if idx != nil {
			copy(idx, srcP)
		}
	}
}

// radixPairs32 is radixRow32's passes for a row with a payload: each key
// travels with its payload in one 64-bit word (the mapped key above, the
// payload below), so that a pass loads and stores one word per element
// instead of a key and a payload apart; the last pass writes the row
// (mapped back) and idx. hist holds the passes' digit counts.
func radixPairs32(row []uint32, idx []int32, x xform32, hist []uint32, shifts []uint, active []int, width uint, b *sortBuffers) {
	n := len(row)
	if cap(b.w1) < n {
		b.w1, b.w2 = make([]uint64, n), make([]uint64, n)
	}
	mask := uint64(1)<<width - 1
	bufs := [2][]uint64{b.w1[:n], b.w2[:n]}
	idx = idx[:n]
	var src []uint64
	for ai, d := range active {
		h := hist[d<<width : (d+1)<<width]
		sum := uint32(0)
		for i, c := range h {
			h[i] = sum
			sum += c
		}
		shift := shifts[d] + 32
		last := ai == len(active)-1
		switch {
		case ai == 0 && last:
			// One pass: from the row into the words, then back.
			dst := bufs[0]
			for i, v := range row {
				w := uint64(x.key(v))<<32 | uint64(uint32(idx[i]))
				digit := w >> shift & mask
				o := h[digit]
				dst[o] = w
				h[digit] = o + 1
			}
			for i, w := range dst {
				row[i], idx[i] = x.bits(uint32(w>>32)), int32(uint32(w))
			}
		case ai == 0:
			dst := bufs[0]
			for i, v := range row {
				w := uint64(x.key(v))<<32 | uint64(uint32(idx[i]))
				digit := w >> shift & mask
				o := h[digit]
				dst[o] = w
				h[digit] = o + 1
			}
			src = dst
		case last:
			for _, w := range src {
				digit := w >> shift & mask
				o := h[digit]
				row[o], idx[o] = x.bits(uint32(w>>32)), int32(uint32(w))
				h[digit] = o + 1
			}
		default:
			dst := bufs[ai%2]
			for _, w := range src {
				digit := w >> shift & mask
				o := h[digit]
				dst[o] = w
				h[digit] = o + 1
			}
			src = dst
		}
	}
}

// scatter32 moves each key of src (mapped by in) to its digit's next place
// in dst (mapped back by out), and its payload with it when dp is not nil.
// The offsets in h start at the digits' prefix sums, so they stay below n.
// The middle passes, which map nothing, take a loop of their own.
func scatter32(src []uint32, sp []int32, dst []uint32, dp []int32, h []uint32, shift uint, mask uint32, in, out xform32) {
	d := unsafe.Pointer(unsafe.SliceData(dst))
	h = h[:mask+1]
	identity := in == xform32{} && out == xform32{}
	switch {
	case dp == nil && identity:
		for _, k := range src {
			digit := k >> shift & mask
			o := h[digit]
			*(*uint32)(unsafe.Add(d, 4*uintptr(o))) = k
			h[digit] = o + 1
		}
	case dp == nil:
		for _, v := range src {
			k := in.key(v)
			digit := k >> shift & mask
			o := h[digit]
			*(*uint32)(unsafe.Add(d, 4*uintptr(o))) = out.bits(k)
			h[digit] = o + 1
		}
	default:
		p := unsafe.Pointer(unsafe.SliceData(dp))
		sp = sp[:len(src)]
		for i, v := range src {
			k := in.key(v)
			digit := k >> shift & mask
			o := uintptr(h[digit])
			*(*uint32)(unsafe.Add(d, 4*o)) = out.bits(k)
			*(*int32)(unsafe.Add(p, 4*o)) = sp[i]
			h[digit] = uint32(o + 1)
		}
	}
}

// sortRow16 sorts one row of 16-bit keys: widened to 32-bit words for the
// radix sort, the positions as the payload when the row must be gathered.
func sortRow16(kind sortKind, row []uint16, idx []int32, order SortOrder, b *sortBuffers) {
	desc := uint16(0)
	if order&SortDescending != 0 {
		desc = ^uint16(0)
	}
	float := kind == sortBF16 || kind == sortF16
	canon := float && order&SortCanonicalNaN != 0
	inf := uint16(0x7f80)
	if kind == sortF16 {
		inf = 0x7c00
	}
	// The keys' map to unsigned integers of the same order (see xform32).
	x := xform16{desc: desc}
	switch {
	case float:
		x.m1, x.m2 = 0x7fff, 0x8000
	case kind == sortS16:
		x.m2 = 0x8000
	}
	if len(row) <= insertionSortMax {
		insertionRow16(row, idx, x, canon, inf, b)
		return
	}
	if idx == nil && len(row) >= countingSortMin && len(row) <= countingSortMax {
		if countingSort16(row, x, canon, inf, b.counting()) {
			return
		}
		// A -0 or a NaN in the canonical order: below.
	} else if canon && !changedByCanonical16(row, inf) {
		canon = false // the canonical order is the total order on these keys
	}
	if canon && idx == nil {
		// Each key's canonical form below its own bits: a stable sort by
		// the low half keeps the bits of keys the order calls equal in
		// their order, with no positions to gather.
		keys := b.k1
		for i, v := range row {
			keys[i] = uint32(v)<<16 | uint32(floatKey16(canonical16(v, inf))^desc)
		}
		keys, _ = radix32(keys, nil, b.k2, nil, 16)
		for i, k := range keys {
			row[i] = uint16(k >> 16)
		}
		return
	}
	if canon {
		keys := b.k1
		for i, v := range row {
			keys[i] = uint32(floatKey16(canonical16(v, inf)) ^ desc)
		}
		pos := b.p1
		for i := range pos {
			pos[i] = int32(i)
		}
		_, pos = radix32(keys, pos, b.k2, b.p2, 16)
		gatherPositions16(row, idx, pos, b)
		return
	}
	radixRow16(row, idx, x, b)
}

// xform16 is xform32 for 16-bit keys.
type xform16 struct{ m1, m2, desc uint16 }

func (x xform16) key(b uint16) uint16 { return b ^ x.m1&uint16(int16(b)>>15) ^ x.m2 ^ x.desc }

func (x xform16) bits(k uint16) uint16 {
	k ^= x.desc
	return k ^ x.m2 ^ x.m1&uint16(int16(^k)>>15)
}

// radixRow16 is radixRow32 for 16-bit keys: two 8-bit digits.
func radixRow16(row []uint16, idx []int32, x xform16, b *sortBuffers) {
	n := len(row)
	hist := b.hist(512)
	// The high digits counted in two sets, for the even and the odd keys:
	// a run of keys sharing a high digit (the exponent byte of floats)
	// then increments two counters in turn instead of waiting on one.
	var lo0, hi0, hi1 [256]uint32
	i := 0
	for ; i+1 < n; i += 2 {
		k, l := x.key(row[i]), x.key(row[i+1])
		lo0[uint8(k)]++
		hi0[uint8(k>>8)]++
		lo0[uint8(l)]++
		hi1[uint8(l>>8)]++
	}
	if i < n {
		k := x.key(row[i])
		lo0[uint8(k)]++
		hi0[uint8(k>>8)]++
	}
	for d := range 256 {
		hist[d] = lo0[d]
		hist[256+d] = hi0[d] + hi1[d]
	}
	k0 := x.key(row[0])
	lo, hi := hist[k0&0xff] != uint32(n), hist[256+int(k0>>8)] != uint32(n)
	buf := unsafe.Slice((*uint16)(unsafe.Pointer(&b.k1[0])), n)
	prefix := func(h []uint32) {
		sum := uint32(0)
		for i, c := range h {
			h[i] = sum
			sum += c
		}
	}
	var p1 []int32
	if idx != nil {
		p1 = b.p1[:n]
	}
	switch {
	case lo && hi && idx == nil && n >= 64:
		radixHalves16(row, buf, hist, x)
	case lo && hi:
		prefix(hist[:256])
		prefix(hist[256:])
		scatter16(row, idx, buf, p1, hist[:256], 0, x, xform16{})
		scatter16(buf, p1, row, idx, hist[256:], 8, xform16{}, x)
	case lo || hi:
		h, sh := hist[:256], uint(0)
		if hi {
			h, sh = hist[256:], 8
		}
		prefix(h)
		scatter16(row, idx, buf, p1, h, sh, x, xform16{})
		for i, k := range buf {
			row[i] = x.bits(k)
		}
		if idx != nil {
			copy(idx, p1)
		}
	}
}

// radixHalves16 is radixRow16's two passes for a row of keys alone, each
// pass scattering the first and the second half of its input in turn with
// offsets of their own: keys sharing a digit (the exponent byte of floats,
// most of all) then advance two offsets in turn instead of waiting on one.
// The second half's offsets start after the first half's keys of the same
// digit, so the passes stay stable. hist holds the counts of the low and
// the high digits.
func radixHalves16(row, buf []uint16, hist []uint32, x xform16) {
	n := len(row)
	m := n / 2
	var offA, offB, cntA [256]uint32
	for _, v := range row[:m] {
		cntA[uint8(x.key(v))]++
	}
	halfOffsets(&offA, &offB, &cntA, hist[:256])
	dst := unsafe.Pointer(unsafe.SliceData(buf))
	a, b := row[:m], row[m:2*m]
	for i := range a {
		ka, kb := x.key(a[i]), x.key(b[i])
		da, db := uint8(ka), uint8(kb)
		oa, ob := offA[da], offB[db]
		*(*uint16)(unsafe.Add(dst, 2*uintptr(oa))) = ka
		offA[da] = oa + 1
		*(*uint16)(unsafe.Add(dst, 2*uintptr(ob))) = kb
		offB[db] = ob + 1
	}
	if n%2 == 1 {
		k := x.key(row[n-1])
		*(*uint16)(unsafe.Add(dst, 2*uintptr(offB[uint8(k)]))) = k
	}
	// The high digits of the first half of the keys as now ordered.
	clear(cntA[:])
	for _, k := range buf[:m] {
		cntA[uint8(k>>8)]++
	}
	halfOffsets(&offA, &offB, &cntA, hist[256:512])
	out := unsafe.Pointer(unsafe.SliceData(row))
	a, b = buf[:m], buf[m:2*m]
	for i := range a {
		ka, kb := a[i], b[i]
		da, db := uint8(ka>>8), uint8(kb>>8)
		oa, ob := offA[da], offB[db]
		*(*uint16)(unsafe.Add(out, 2*uintptr(oa))) = x.bits(ka)
		offA[da] = oa + 1
		*(*uint16)(unsafe.Add(out, 2*uintptr(ob))) = x.bits(kb)
		offB[db] = ob + 1
	}
	if n%2 == 1 {
		k := buf[n-1]
		*(*uint16)(unsafe.Add(out, 2*uintptr(offB[uint8(k>>8)]))) = x.bits(k)
	}
}

// halfOffsets sets the offsets of each digit's keys in the first half
// (offA) and in the second (offB, after the first half's) from the counts
// of all keys (total) and of the first half's (cntA).
func halfOffsets(offA, offB, cntA *[256]uint32, total []uint32) {
	sum := uint32(0)
	for d := range 256 {
		offA[d] = sum
		offB[d] = sum + cntA[d]
		sum += total[d]
	}
}

// scatter16 is scatter32 for 16-bit keys and 8-bit digits.
func scatter16(src []uint16, sp []int32, dst []uint16, dp []int32, h []uint32, shift uint, in, out xform16) {
	d := unsafe.Pointer(unsafe.SliceData(dst))
	h = h[:256]
	if dp == nil {
		for _, v := range src {
			k := in.key(v)
			digit := k >> shift & 0xff
			o := h[digit]
			*(*uint16)(unsafe.Add(d, 2*uintptr(o))) = out.bits(k)
			h[digit] = o + 1
		}
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(dp))
	sp = sp[:len(src)]
	for i, v := range src {
		k := in.key(v)
		digit := k >> shift & 0xff
		o := uintptr(h[digit])
		*(*uint16)(unsafe.Add(d, 2*o)) = out.bits(k)
		*(*int32)(unsafe.Add(p, 4*o)) = sp[i]
		h[digit] = uint32(o + 1)
	}
}

// gatherPositions reorders row (and idx) by pos, through scratch that pos
// does not occupy.
func gatherPositions(row []uint32, idx []int32, pos []int32, b *sortBuffers) {
	// The sorted keys are no longer needed: k1 is free.
	tk := b.k1
	for i, p := range pos {
		tk[i] = row[p]
	}
	copy(row, tk)
	if idx != nil {
		tp := b.p1
		if &tp[0] == &pos[0] {
			tp = b.p2
		}
		for i, p := range pos {
			tp[i] = idx[p]
		}
		copy(idx, tp)
	}
}

func gatherPositions16(row []uint16, idx []int32, pos []int32, b *sortBuffers) {
	// The sorted keys are no longer needed: k1 is free.
	t16 := unsafe.Slice((*uint16)(unsafe.Pointer(&b.k1[0])), len(row))
	for i, p := range pos {
		t16[i] = row[p]
	}
	copy(row, t16)
	if idx != nil {
		tp := b.p1
		if &tp[0] == &pos[0] {
			tp = b.p2
		}
		for i, p := range pos {
			tp[i] = idx[p]
		}
		copy(idx, tp)
	}
}

// radix32 sorts keys (and pay, when not nil, alongside) stably by their low
// bits bits, least significant byte first, using tk and tp as the other
// buffers; it returns the buffers that hold the result (keys and pay, or
// tk and tp). Digits all keys share are skipped.
func radix32(keys []uint32, pay []int32, tk []uint32, tp []int32, bits int) ([]uint32, []int32) {
	n := len(keys)
	passes := bits / 8
	var hist [4][256]uint32
	if passes == 2 {
		for _, k := range keys {
			hist[0][k&0xff]++
			hist[1][k>>8&0xff]++
		}
	} else {
		for _, k := range keys {
			hist[0][k&0xff]++
			hist[1][k>>8&0xff]++
			hist[2][k>>16&0xff]++
			hist[3][k>>24]++
		}
	}
	tk = tk[:n]
	if pay != nil {
		tp = tp[:n]
	}
	for d := 0; d < passes; d++ {
		h := &hist[d]
		shift := uint(8 * d)
		if h[keys[0]>>shift&0xff] == uint32(n) {
			continue // every key has this digit
		}
		// Offsets: the exclusive prefix sums.
		sum := uint32(0)
		for i := range h {
			c := h[i]
			h[i] = sum
			sum += c
		}
		if pay == nil {
			scatterKeys(keys, tk, h, shift)
			keys, tk = tk, keys
			continue
		}
		scatterPairs(keys, pay[:n], tk, tp, h, shift)
		keys, tk = tk, keys
		pay, tp = tp, pay
	}
	return keys, pay
}

// scatterKeys moves each key to its digit's next place in dst (the offsets
// in h, which it advances). The offsets stay below len(dst): they start at
// the digit counts' prefix sums.
func scatterKeys(keys, dst []uint32, h *[256]uint32, shift uint) {
	d := unsafe.Pointer(unsafe.SliceData(dst))
	for _, k := range keys {
		digit := k >> shift & 0xff
		o := h[digit]
		*(*uint32)(unsafe.Add(d, 4*uintptr(o))) = k
		h[digit] = o + 1
	}
}

// scatterPairs is scatterKeys moving a payload with each key.
func scatterPairs(keys []uint32, pay []int32, dk []uint32, dp []int32, h *[256]uint32, shift uint) {
	k0 := unsafe.Pointer(unsafe.SliceData(dk))
	p0 := unsafe.Pointer(unsafe.SliceData(dp))
	pay = pay[:len(keys)]
	for i, k := range keys {
		digit := k >> shift & 0xff
		o := uintptr(h[digit])
		*(*uint32)(unsafe.Add(k0, 4*o)) = k
		*(*int32)(unsafe.Add(p0, 4*o)) = pay[i]
		h[digit] = uint32(o + 1)
	}
}

// SortF32 sorts each row of keys, a row-major [len(keys)/n, n] matrix of
// float32, in place, in the order asked for (see SortOrder), stably; idx,
// when not nil, has the same shape and is permuted with the keys (fill it
// with 0…n-1 for an argsort). It panics unless len(keys) is a multiple of
// n and idx is nil or as long as keys.
func SortF32(keys []float32, idx []int32, n int, order SortOrder) {
	sortRows("SortF32", sortF32, ptrOf(keys), len(keys), idx, n, order)
}

// SortBF16 is SortF32 for bfloat16 keys (their bits).
func SortBF16(keys []uint16, idx []int32, n int, order SortOrder) {
	sortRows("SortBF16", sortBF16, ptrOf(keys), len(keys), idx, n, order)
}

// SortF16 is SortF32 for binary16 keys (their bits).
func SortF16(keys []uint16, idx []int32, n int, order SortOrder) {
	sortRows("SortF16", sortF16, ptrOf(keys), len(keys), idx, n, order)
}

// SortS32 is SortF32 for int32 keys (SortCanonicalNaN does not apply).
func SortS32(keys []int32, idx []int32, n int, order SortOrder) {
	sortRows("SortS32", sortS32, ptrOf(keys), len(keys), idx, n, order&SortDescending)
}

// SortU32 is SortF32 for uint32 keys.
func SortU32(keys []uint32, idx []int32, n int, order SortOrder) {
	sortRows("SortU32", sortU32, ptrOf(keys), len(keys), idx, n, order&SortDescending)
}

// SortS16 is SortF32 for int16 keys.
func SortS16(keys []int16, idx []int32, n int, order SortOrder) {
	sortRows("SortS16", sortS16, ptrOf(keys), len(keys), idx, n, order&SortDescending)
}

// SortU16 is SortF32 for uint16 keys.
func SortU16(keys []uint16, idx []int32, n int, order SortOrder) {
	sortRows("SortU16", sortU16, ptrOf(keys), len(keys), idx, n, order&SortDescending)
}
