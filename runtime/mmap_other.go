//go:build !unix

package runtime

// mapFile reads the whole file: this platform has no mmap in the syscall package.
func mapFile(path string) ([]byte, error) { return readWholeFile(path) }
