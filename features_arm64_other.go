//go:build !(linux && arm64)

package kiln

// hasARM64BF16 reports whether the CPU has the ARMv8.6 BF16 instructions:
// unknown (false) outside Linux on arm64.
func hasARM64BF16() bool { return false }
