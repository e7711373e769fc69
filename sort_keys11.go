package kiln

import "unsafe"

// Row sorts of keys alone in 11-bit digits: for rows long enough that a
// digit of 2048 counters costs less than the fourth pass it saves, the
// 32-bit keys sort in three least-significant-digit passes (bits 0–10,
// 11–21 and 22–31) instead of four of 8 bits. Each pass moves two keys at
// a time, reading the second key's offset before storing the first's (and
// advancing it where the two share their digit), so keys of one digit in
// a row do not wait on each other's counter. Digits whose bits never vary,
// or that every key shares, are skipped; the histograms come from one pass
// that also finds the varying bits and, in the canonical order, a -0 or a
// NaN.

// radix11Min is the least row length sorted in 11-bit digits.
const radix11Min = 2048

// radix11Hist is the number of counters radixKeys11 needs: the two low
// digits' and the top digit's of each half of the row (counted apart so
// that keys of one exponent do not wait on each other's counter).
const radix11Hist = 2*2048 + 2*1024

// radixKeys11 is radixKeys32 in 11-bit digits, with hist (radix11Hist
// zeroed counters) for the histograms.
func radixKeys11(row []uint32, x xform32, canon bool, buf, buf2, hist []uint32) (vary uint32, changed bool) {
	n := len(row)
	h := (*[radix11Hist]uint32)(hist)
	h0 := (*[2048]uint32)(hist[0:2048])
	h1 := (*[2048]uint32)(hist[2048:4096])
	tA := (*[1024]uint32)(hist[4096:5120])
	tB := (*[1024]uint32)(hist[5120:6144])
	v0 := row[0]
	vary, changed = hist11(row, x, canon, h)
	if changed {
		return vary, true
	}
	k0 := x.key(v0)
	type pass struct {
		sh  uint
		top bool
	}
	var passes [3]pass
	na := 0
	if vary&0x7ff != 0 && h0[k0&2047] != uint32(n) {
		passes[na] = pass{sh: 0}
		na++
	}
	if vary>>11&0x7ff != 0 && h1[k0>>11&2047] != uint32(n) {
		passes[na] = pass{sh: 11}
		na++
	}
	if t := k0 >> 22; tA[t]+tB[t] != uint32(n) {
		passes[na] = pass{sh: 22, top: true}
		na++
	}
	if na == 0 {
		return vary, false
	}
	// The offsets of each digit in place of its counts (the top digit's
	// in tA), the three sums in one loop.
	var s0, s1, s2 uint32
	for i := range 1024 {
		c0, c1, c2 := h0[i], h1[i], tA[i]+tB[i]
		h0[i], h1[i], tA[i] = s0, s1, s2
		s0, s1, s2 = s0+c0, s1+c1, s2+c2
	}
	for i := 1024; i < 2048; i++ {
		c0, c1 := h0[i], h1[i]
		h0[i], h1[i] = s0, s1
		s0, s1 = s0+c0, s1+c1
	}
	// Destinations end at row; the first pass, which reads row, writes to
	// buf2 where it would write to row.
	src := row
	for p, ps := range passes[:na] {
		dst := buf[:n]
		if (na-1-p)%2 == 0 {
			dst = row
		}
		if p == 0 && na%2 == 1 {
			dst = buf2[:n]
		}
		h := h0
		switch {
		case ps.top:
			h = (*[2048]uint32)(hist[4096:6144]) // top digits < 1024: tA's
		case ps.sh != 0:
			h = h1
		}
		// The passes of every digit have passes of their own; the others
		// (where a digit is skipped) take scatter11.
		xin, xout := xform32{}, xform32{}
		if p == 0 {
			xin = x
		}
		if p == na-1 {
			xout = x
		}
		switch {
		case na == 3 && p == 0:
			scatter11In0(src, dst, h, x)
		case na == 3 && p == 1:
			scatter11Mid11(src, dst, h)
		case na == 3:
			scatter11Out22(src, dst, h, x)
		default:
			scatter11(src, dst, ps.sh, h, xin, xout)
		}
		src = dst
	}
	if na == 1 {
		copy(row, src[:n])
	}
	return vary, false
}

// hist11 counts the digits of the keys of row mapped by x in h: the low
// two from 0 and 2048, the top one of the first half from 4096 and of the
// rest from 5120. It returns the bits in which the keys differ from the
// first and, with canon, whether the row holds a -0 or a NaN: the row is
// searched for one only where the top digits they map to are counted.
func hist11(row []uint32, x xform32, canon bool, h *[radix11Hist]uint32) (vary uint32, changed bool) {
	n := len(row)
	m := n / 2
	v0 := row[0]
	a, b := row[:m], row[m:2*m]
	m1, c := x.m1, x.m2^x.desc
	for i := range a {
		va, vb := a[i], b[i]
		vary |= va ^ v0 | vb ^ v0
		ka := va ^ m1&uint32(int32(va)>>31) ^ c
		kb := vb ^ m1&uint32(int32(vb)>>31) ^ c
		h[ka&2047]++
		h[kb&2047]++
		h[2048+ka>>11&2047]++
		h[2048+kb>>11&2047]++
		h[4096+ka>>22&1023]++
		h[5120+kb>>22&1023]++
	}
	if n%2 == 1 {
		v := row[n-1]
		vary |= v ^ v0
		k := x.key(v)
		h[k&2047]++
		h[2048+k>>11&2047]++
		h[5120+k>>22&1023]++
	}
	if canon {
		for _, v := range [...]uint32{0x80000000, 0x7f800001, 0x7fffffff, 0xff800001, 0xffffffff} {
			if t := x.key(v) >> 22; h[4096+t]+h[5120+t] != 0 {
				return vary, changedByCanonical32(row)
			}
		}
	}
	return vary, false
}

// scatter11 moves the keys of src, mapped by xin, to dst by their 11-bit
// digit at shift sh, at the offsets off, mapping them back by xout.
func scatter11(src, dst []uint32, sh uint, off *[2048]uint32, xin, xout xform32) {
	out := unsafe.Pointer(unsafe.SliceData(dst[:len(src)]))
	for _, v := range src {
		k := xin.key(v)
		d := k >> sh & 2047
		o := off[d]
		*(*uint32)(unsafe.Add(out, 4*uintptr(o))) = xout.bits(k)
		off[d] = o + 1
	}
}

// scatter11In0 is scatter11 by the low digit, mapping each key by x as it
// reads it, two keys at a time: the second key's offset is read before the
// first's is stored, and advanced where the two share their digit.
func scatter11In0(src, dst []uint32, off *[2048]uint32, x xform32) {
	n := len(src)
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	m1, c := x.m1, x.m2^x.desc
	s := src
	for len(s) >= 2 {
		va, vb := s[0], s[1]
		s = s[2:]
		ka := va ^ m1&uint32(int32(va)>>31) ^ c
		kb := vb ^ m1&uint32(int32(vb)>>31) ^ c
		da, db := ka&2047, kb&2047
		oa, ob := off[da], off[db]
		if da == db {
			ob++
		}
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = ka
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = kb
		off[da] = oa + 1
		off[db] = ob + 1
	}
	if len(s) == 1 {
		k := x.key(s[0])
		*(*uint32)(unsafe.Add(out, 4*uintptr(off[k&2047]))) = k
		off[k&2047]++
	}
}

// scatter11Mid11 is scatter11 by the middle digit (bits 11–21), moving
// the keys as they are, two at a time as scatter11In0.
func scatter11Mid11(src, dst []uint32, off *[2048]uint32) {
	n := len(src)
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	s := src
	for len(s) >= 2 {
		ka, kb := s[0], s[1]
		s = s[2:]
		da, db := ka>>11&2047, kb>>11&2047
		oa, ob := off[da], off[db]
		if da == db {
			ob++
		}
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = ka
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = kb
		off[da] = oa + 1
		off[db] = ob + 1
	}
	if len(s) == 1 {
		k := s[0]
		*(*uint32)(unsafe.Add(out, 4*uintptr(off[k>>11&2047]))) = k
		off[k>>11&2047]++
	}
}

// scatter11Out22 is scatter11 by the top digit (bits 22–31), mapping each
// key back by x as it writes it, two at a time as scatter11In0.
func scatter11Out22(src, dst []uint32, off *[2048]uint32, x xform32) {
	n := len(src)
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	// x.bits(k) is k ^ mask(k's top bit): m0 for keys below 1<<31.
	m0 := x.bits(0)
	dm := m0 ^ x.bits(0x80000000) ^ 0x80000000
	s := src
	for len(s) >= 2 {
		ka, kb := s[0], s[1]
		s = s[2:]
		da, db := ka>>22, kb>>22
		oa, ob := off[da&2047], off[db&2047]
		if da == db {
			ob++
		}
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = ka ^ (m0 ^ dm&uint32(int32(ka)>>31))
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = kb ^ (m0 ^ dm&uint32(int32(kb)>>31))
		off[da&2047] = oa + 1
		off[db&2047] = ob + 1
	}
	if len(s) == 1 {
		k := s[0]
		*(*uint32)(unsafe.Add(out, 4*uintptr(off[k>>22&2047]))) = x.bits(k)
		off[k>>22&2047]++
	}
}
