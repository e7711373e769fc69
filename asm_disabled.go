//go:build !(amd64 || arm64) || purego

package kiln

// asmAvailable reports whether this build carries the generated assembly kernels.
const asmAvailable = false
