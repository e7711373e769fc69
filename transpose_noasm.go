//go:build !(amd64 || arm64) || purego

package kiln

// transposeArch returns the assembly transpose panel kernel of a level: none in this build.
func transposeArch(level isaLevel) (panel func(dst *float32, ldd int, src *float32, lds int, n int), rows int) {
	return nil, 0
}
