//go:build !(amd64 || arm64) || purego

package kiln

// transposeArch returns the assembly transpose strip kernel of a level: none in this build.
func transposeArch(level isaLevel) (strip func(dst *float32, ldd int, src *float32, lds int, n int), width int) {
	return nil, 0
}
