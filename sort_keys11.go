package kiln

import "unsafe"

// Row sorts of keys alone in 11-bit digits: for rows long enough that a
// digit of 2048 counters costs less than the fourth pass it saves, the
// 32-bit keys sort in three least-significant-digit passes (bits 0–10,
// 11–21 and 22–31) instead of four of 8 bits. The two low digits of
// float keys are mantissa bits, spread over their counters, and scatter in
// one stream; the top digit (the sign, the exponent and the mantissa's
// first bit) takes few values, so its pass reads the first and the second
// half of its input in turn with offsets of their own, as the 8-bit passes
// do. Digits whose bits never vary, or that every key shares, are skipped;
// the histograms come from one pass that also finds the varying bits and,
// in the canonical order, a -0 or a NaN.

// radix11Min is the least row length sorted in 11-bit digits.
const radix11Min = 2048

// radix11Hist is the number of counters radixKeys11 needs: the two low
// digits' and the top digit's of each half of the row.
const radix11Hist = 2*2048 + 2*1024

// radixKeys11 is radixKeys32 in 11-bit digits, with hist (radix11Hist
// zeroed counters) for the histograms.
func radixKeys11(row []uint32, x xform32, canon bool, buf, buf2, hist []uint32) (vary uint32, changed bool) {
	n := len(row)
	m := n / 2
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
	// Destinations end at row; the first pass, which reads row, writes to
	// buf2 where it would write to row.
	src := row
	var offA, offB, cntA [1024]uint32
	for p, ps := range passes[:na] {
		dst := buf[:n]
		if (na-1-p)%2 == 0 {
			dst = row
		}
		if p == 0 && na%2 == 1 {
			dst = buf2[:n]
		}
		xin, xout := xform32{}, xform32{}
		if p == 0 {
			xin = x
		}
		if p == na-1 {
			xout = x
		}
		if !ps.top {
			h := h0
			if ps.sh != 0 {
				h = h1
			}
			sum := uint32(0)
			for i, c := range h {
				h[i] = sum
				sum += c
			}
			switch {
			case p == 0 && p < na-1:
				scatter11In(src, dst, ps.sh, h, x)
			case p > 0 && p < na-1:
				scatter11Mid(src, dst, ps.sh, h)
			case p > 0:
				scatter11Out(src, dst, ps.sh, h, x)
			default:
				scatter11(src, dst, ps.sh, h, xin, xout)
			}
		} else {
			if p == 0 {
				cntA = *tA
			} else {
				countTop11(&cntA, src[:m])
			}
			sum := uint32(0)
			for i := range 1024 {
				offA[i] = sum
				offB[i] = sum + cntA[i]
				sum += tA[i] + tB[i]
			}
			if p > 0 {
				scatterTop11Out(src, dst, &offA, &offB, x)
			} else {
				scatterTop11(src, dst, &offA, &offB, xin, xout)
			}
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

// countTop11 sets cnt to the counts of the top digits of keys.
func countTop11(cnt *[1024]uint32, keys []uint32) {
	var c1 [1024]uint32
	*cnt = [1024]uint32{}
	i := 0
	for ; i+1 < len(keys); i += 2 {
		cnt[keys[i]>>22&1023]++
		c1[keys[i+1]>>22&1023]++
	}
	if i < len(keys) {
		cnt[keys[i]>>22&1023]++
	}
	for d := range cnt {
		cnt[d] += c1[d]
	}
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

// scatter11In is scatter11 mapping each key by x as it reads it.
func scatter11In(src, dst []uint32, sh uint, off *[2048]uint32, x xform32) {
	out := unsafe.Pointer(unsafe.SliceData(dst[:len(src)]))
	sh &= 31
	m1, c := x.m1, x.m2^x.desc
	for _, v := range src {
		k := v ^ m1&uint32(int32(v)>>31) ^ c
		d := k >> sh & 2047
		o := off[d]
		*(*uint32)(unsafe.Add(out, 4*uintptr(o))) = k
		off[d] = o + 1
	}
}

// scatter11Mid is scatter11 moving the keys as they are.
func scatter11Mid(src, dst []uint32, sh uint, off *[2048]uint32) {
	out := unsafe.Pointer(unsafe.SliceData(dst[:len(src)]))
	sh &= 31
	for _, k := range src {
		d := k >> sh & 2047
		o := off[d]
		*(*uint32)(unsafe.Add(out, 4*uintptr(o))) = k
		off[d] = o + 1
	}
}

// scatter11Out is scatter11 mapping each key back by x as it writes it.
func scatter11Out(src, dst []uint32, sh uint, off *[2048]uint32, x xform32) {
	out := unsafe.Pointer(unsafe.SliceData(dst[:len(src)]))
	sh &= 31
	m1, c := x.m1, x.m2^x.desc
	for _, k := range src {
		d := k >> sh & 2047
		o := off[d]
		t := k ^ x.desc
		*(*uint32)(unsafe.Add(out, 4*uintptr(o))) = k ^ c ^ m1&uint32(int32(^t)>>31)
		off[d] = o + 1
	}
}

// scatterTop11Out is scatterTop11 of keys already mapped, mapping each
// back by x as it writes it.
func scatterTop11Out(src, dst []uint32, offA, offB *[1024]uint32, x xform32) {
	n := len(src)
	m := n / 2
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	m1, c, desc := x.m1, x.m2^x.desc, x.desc
	a, b := src[:m], src[m:2*m]
	for i := range a {
		ka, kb := a[i], b[i]
		da, db := ka>>22, kb>>22
		oa, ob := offA[da&1023], offB[db&1023]
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = ka ^ c ^ m1&uint32(int32(^(ka^desc))>>31)
		offA[da&1023] = oa + 1
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = kb ^ c ^ m1&uint32(int32(^(kb^desc))>>31)
		offB[db&1023] = ob + 1
	}
	if n%2 == 1 {
		k := src[n-1]
		*(*uint32)(unsafe.Add(out, 4*uintptr(offB[k>>22&1023]))) = x.bits(k)
	}
}

// scatterTop11 moves the keys of src, mapped by xin, to dst by their top
// digit, those of the first half at the offsets offA and those of the
// second at offB, mapping them back by xout.
func scatterTop11(src, dst []uint32, offA, offB *[1024]uint32, xin, xout xform32) {
	n := len(src)
	m := n / 2
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	a, b := src[:m], src[m:2*m]
	for i := range a {
		ka, kb := xin.key(a[i]), xin.key(b[i])
		da, db := ka>>22&1023, kb>>22&1023
		oa, ob := offA[da], offB[db]
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = xout.bits(ka)
		offA[da] = oa + 1
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = xout.bits(kb)
		offB[db] = ob + 1
	}
	if n%2 == 1 {
		k := xin.key(src[n-1])
		*(*uint32)(unsafe.Add(out, 4*uintptr(offB[k>>22&1023]))) = xout.bits(k)
	}
}
