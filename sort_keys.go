package kiln

import "unsafe"

// Row sorts of keys alone (no payload), in the total order or an order
// equal to it on the row: least-significant-digit radix passes of 8-bit
// digits over the keys mapped by the order's transform, each pass reading
// the first and the second half of its input in turn with offsets of their
// own (keys sharing a digit — the exponent byte of floats, most of all —
// then advance two offsets in turn instead of waiting on one), the second
// half's offsets after the first half's keys of each digit, so the passes
// stay stable.
//
// A pass is skipped where it cannot change the order: where every key has
// the same digit, or where the key's bits under the digit never vary (the
// digit of the mapped key is then a function of the sign, which the top
// digit sorts). Float32 keys that are bfloat16 values widened (the low 16
// bits zero) sort in two passes. Rows of 32-bit keys of 2048 or more sort
// in 11-bit digits instead (sort_keys11.go).

// radixKeys32 sorts row, 32-bit key bits mapped by x, stably, using buf
// and buf2 (each at least len(row)) as scratch, and returns the bits in
// which the keys differ from the first; with canon (float32) it instead
// leaves row as it is and reports changed where the row holds a -0 or a
// NaN, whose canonical order is not the total order. len(row) ≥ 2.
func radixKeys32(row []uint32, x xform32, canon bool, buf, buf2 []uint32) (vary uint32, changed bool) {
	n := len(row)
	m := n / 2
	var hA, hB [4][256]uint32
	v0 := row[0]
	vary, changed = histHalves32(row, x, canon, &hA, &hB)
	if changed {
		return vary, true
	}
	k0 := x.key(v0)
	var active [4]uint
	na := 0
	for d := range 4 {
		sh := uint(8 * d)
		dk := uint8(k0 >> sh)
		if d < 3 && uint8(vary>>sh) == 0 || hA[d][dk]+hB[d][dk] == uint32(n) {
			continue
		}
		active[na] = sh
		na++
	}
	if na == 0 {
		return vary, false
	}
	// Destinations end at row; the first pass, which reads row, writes to
	// buf2 where it would write to row.
	src := row
	var offA, offB, cntA [256]uint32
	for p := range na {
		sh := active[p]
		d := sh / 8
		dst := buf[:n]
		if (na-1-p)%2 == 0 {
			dst = row
		}
		if p == 0 {
			if na%2 == 1 {
				dst = buf2[:n]
			}
			cntA = hA[d]
		} else {
			countFirstHalf32(&cntA, src[:m], sh)
		}
		sum := uint32(0)
		for i := range 256 {
			offA[i] = sum
			offB[i] = sum + cntA[i]
			sum += hA[d][i] + hB[d][i]
		}
		switch {
		case p == 0:
			scatterHalves32In(src, dst, sh, &offA, &offB, x)
		case p == na-1:
			scatterHalves32Out(src, dst, sh, &offA, &offB, x)
		default:
			scatterHalves32(src, dst, sh, &offA, &offB)
		}
		src = dst
	}
	if na == 1 {
		for i, k := range src[:n] {
			row[i] = x.bits(k)
		}
	}
	return vary, false
}

// histHalves32 counts the 8-bit digits of the keys of row mapped by x, of
// its first half in hA and of the rest in hB, and returns the bits in
// which the keys differ from the first and, with canon, whether the row
// holds a -0 or a NaN.
func histHalves32(row []uint32, x xform32, canon bool, hA, hB *[4][256]uint32) (vary uint32, changed bool) {
	n := len(row)
	m := n / 2
	v0 := row[0]
	a, b := row[:m], row[m:2*m]
	var nan uint32
	var negZero uint64
	if canon {
		for i := range a {
			va, vb := a[i], b[i]
			vary |= va ^ v0 | vb ^ v0
			nan |= (0x7f800000 - va&0x7fffffff) | (0x7f800000 - vb&0x7fffffff)   // the sign bit set by a NaN
			negZero |= (uint64(va^0x80000000) - 1) | (uint64(vb^0x80000000) - 1) // the top bit set by a -0
			ka, kb := x.key(va), x.key(vb)
			hA[0][uint8(ka)]++
			hB[0][uint8(kb)]++
			hA[1][uint8(ka>>8)]++
			hB[1][uint8(kb>>8)]++
			hA[2][uint8(ka>>16)]++
			hB[2][uint8(kb>>16)]++
			hA[3][uint8(ka>>24)]++
			hB[3][uint8(kb>>24)]++
		}
	} else {
		for i := range a {
			va, vb := a[i], b[i]
			vary |= va ^ v0 | vb ^ v0
			ka, kb := x.key(va), x.key(vb)
			hA[0][uint8(ka)]++
			hB[0][uint8(kb)]++
			hA[1][uint8(ka>>8)]++
			hB[1][uint8(kb>>8)]++
			hA[2][uint8(ka>>16)]++
			hB[2][uint8(kb>>16)]++
			hA[3][uint8(ka>>24)]++
			hB[3][uint8(kb>>24)]++
		}
	}
	if n%2 == 1 {
		v := row[n-1]
		vary |= v ^ v0
		nan |= 0x7f800000 - v&0x7fffffff
		negZero |= uint64(v^0x80000000) - 1
		k := x.key(v)
		hB[0][uint8(k)]++
		hB[1][uint8(k>>8)]++
		hB[2][uint8(k>>16)]++
		hB[3][uint8(k>>24)]++
	}
	return vary, canon && (nan>>31 != 0 || negZero>>63 != 0)
}

// countFirstHalf32 sets cnt to the counts of the digits at shift sh of
// keys, counting the even and the odd keys apart.
func countFirstHalf32(cnt *[256]uint32, keys []uint32, sh uint) {
	var c1 [256]uint32
	*cnt = [256]uint32{}
	i := 0
	for ; i+1 < len(keys); i += 2 {
		cnt[uint8(keys[i]>>sh)]++
		c1[uint8(keys[i+1]>>sh)]++
	}
	if i < len(keys) {
		cnt[uint8(keys[i]>>sh)]++
	}
	for d := range cnt {
		cnt[d] += c1[d]
	}
}

// scatterHalves32 moves the keys of src to dst by their digit at shift sh:
// those of the first half at the offsets offA, those of the second at offB.
func scatterHalves32(src, dst []uint32, sh uint, offA, offB *[256]uint32) {
	n := len(src)
	m := n / 2
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	a, b := src[:m], src[m:2*m]
	for i := range a {
		ka, kb := a[i], b[i]
		da, db := uint8(ka>>sh), uint8(kb>>sh)
		oa, ob := offA[da], offB[db]
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = ka
		offA[da] = oa + 1
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = kb
		offB[db] = ob + 1
	}
	if n%2 == 1 {
		k := src[n-1]
		*(*uint32)(unsafe.Add(out, 4*uintptr(offB[uint8(k>>sh)]))) = k
	}
}

// scatterHalves32In is scatterHalves32 mapping each key of src by x.
func scatterHalves32In(src, dst []uint32, sh uint, offA, offB *[256]uint32, x xform32) {
	n := len(src)
	m := n / 2
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	a, b := src[:m], src[m:2*m]
	for i := range a {
		ka, kb := x.key(a[i]), x.key(b[i])
		da, db := uint8(ka>>sh), uint8(kb>>sh)
		oa, ob := offA[da], offB[db]
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = ka
		offA[da] = oa + 1
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = kb
		offB[db] = ob + 1
	}
	if n%2 == 1 {
		k := x.key(src[n-1])
		*(*uint32)(unsafe.Add(out, 4*uintptr(offB[uint8(k>>sh)]))) = k
	}
}

// scatterHalves32Out is scatterHalves32 mapping each key back by x as it
// writes it.
func scatterHalves32Out(src, dst []uint32, sh uint, offA, offB *[256]uint32, x xform32) {
	n := len(src)
	m := n / 2
	out := unsafe.Pointer(unsafe.SliceData(dst[:n]))
	a, b := src[:m], src[m:2*m]
	for i := range a {
		ka, kb := a[i], b[i]
		da, db := uint8(ka>>sh), uint8(kb>>sh)
		oa, ob := offA[da], offB[db]
		*(*uint32)(unsafe.Add(out, 4*uintptr(oa))) = x.bits(ka)
		offA[da] = oa + 1
		*(*uint32)(unsafe.Add(out, 4*uintptr(ob))) = x.bits(kb)
		offB[db] = ob + 1
	}
	if n%2 == 1 {
		k := src[n-1]
		*(*uint32)(unsafe.Add(out, 4*uintptr(offB[uint8(k>>sh)]))) = x.bits(k)
	}
}
