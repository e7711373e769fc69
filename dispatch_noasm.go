//go:build !(amd64 || arm64) || purego

package kiln

// archTables returns the assembly levels' kernel tables of this build: none.
func archTables() []*kernelTable { return nil }
