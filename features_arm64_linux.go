//go:build linux && arm64

package kiln

import "golang.org/x/sys/unix"

// hwcap2BF16 is Linux's AT_HWCAP2 bit for the BF16 instructions (BFDOT,
// BFMMLA, BFCVT), which golang.org/x/sys/cpu does not report.
const (
	atHWCap2   = 26
	hwcap2BF16 = 1 << 14
)

// hasARM64BF16 reports whether the CPU has the ARMv8.6 BF16 instructions.
func hasARM64BF16() bool {
	auxv, err := unix.Auxv()
	if err != nil {
		return false
	}
	for _, kv := range auxv {
		if kv[0] == atHWCap2 {
			return kv[1]&hwcap2BF16 != 0
		}
	}
	return false
}
