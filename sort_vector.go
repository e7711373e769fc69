package kiln

import "math/bits"

// Row sorts of 32-bit keys alone by a vector sort: where the level has
// one (the AVX-512 levels' bitonic sort, gen/sort.go), rows of
// vectorSortMin to vectorSortMax keys (vectorSorts) are mapped to their
// unsigned keys in a scratch row padded with the largest key to a power
// of two (at least 256), sorted ascending there and mapped back, all in
// the kernel. For keys alone in the total order (or the integers' order)
// equal keys have the same bits, so any sort gives the stable sort's row;
// rows whose canonical order is not the total order (a -0 or a NaN) are
// not given to it.

// vectorSortMin and vectorSortMax bound the rows the vector sort takes.
const (
	vectorSortMin = 64
	vectorSortMax = 8192
)

// vectorSorts reports whether a row of n keys takes the vector sort: rows
// of vectorSortMin to 4096 keys, and longer ones up to vectorSortMax that
// fill three quarters of their power of two (the sort's work grows with
// the padded length; the radix passes' with n, and above 4096 keys they
// cost less than the padded sort of fewer keys).
func vectorSorts(n int) bool {
	return n >= vectorSortMin && (n <= 4096 || n <= vectorSortMax && 4*n >= 3*vectorSortLen(n))
}

// vectorSortPerm is the kernel's lane permutations: 15…0, then i^7.
var vectorSortPerm = func() (p [32]uint32) {
	for i := range 16 {
		p[i] = uint32(15 - i)
		p[16+i] = uint32(i ^ 7)
	}
	return p
}()

// vectorSortKeys32 sorts row by sort (a level's sortU32) in the order of
// x, with buf (at least vectorSortLen(len(row)) long) as its scratch. It
// returns the bits in which the keys differ from the first; with canon,
// where the row holds a -0 or a NaN it returns changed and leaves the row
// as it was.
func vectorSortKeys32(row []uint32, x xform32, canon bool, sort func(row *uint32, n int, keys *uint32, m int, tab *[96]uint32), buf []uint32) (vary uint32, changed bool) {
	n := len(row)
	m := vectorSortLen(n)
	var tab [96]uint32
	copy(tab[:32], vectorSortPerm[:])
	// x.bits(k) is k ^ mask(k's top bit): m0 for keys below 1<<31.
	m0 := x.bits(0)
	tab[80], tab[81], tab[82], tab[83], tab[84] = x.m1, x.m2^x.desc, m0, m0^x.bits(0x80000000)^0x80000000, row[0]
	if canon {
		tab[85] = 1
	}
	sort(&row[0], n, &buf[:m][0], m, &tab)
	if tab[86] != 0 {
		return 0, true
	}
	for _, v := range tab[32:48] {
		vary |= v
	}
	return vary, false
}

// vectorSortLen is the length of the vector sort's scratch row for a row
// of n keys: the power of two at or above n, at least 256.
func vectorSortLen(n int) int { return max(256, 1<<bits.Len(uint(n-1))) }
