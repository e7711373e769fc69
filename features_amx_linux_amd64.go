//go:build !purego

package kiln

import (
	"syscall"
	"unsafe"
)

// Linux's arch_prctl codes for the dynamically enabled XSAVE state and the
// AMX tile data's state component.
const (
	archGetXCompPerm  = 0x1022
	archReqXCompPerm  = 0x1023
	xfeatureXTileData = 18
)

// requestAMX asks the kernel for permission to use the AMX tile registers
// (without it the first tile instruction faults) and reports whether the
// process has it. The permission covers every thread of the process.
func requestAMX() bool {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXCompPerm, xfeatureXTileData, 0); errno != 0 {
		return false
	}
	var mask uint64
	if _, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archGetXCompPerm, uintptr(unsafe.Pointer(&mask)), 0); errno != 0 {
		return false
	}
	return mask&(1<<xfeatureXTileData) != 0
}
