package runtime

import "unsafe"

// nativeLittleEndian reports whether the machine stores multi-byte values
// little-endian (as safetensors and .npy files written on x86/arm do).
var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// swapBytes reverses the byte order of each size-byte element of b in place.
func swapBytes(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		for lo, hi := i, i+size-1; lo < hi; lo, hi = lo+1, hi-1 {
			b[lo], b[hi] = b[hi], b[lo]
		}
	}
}
