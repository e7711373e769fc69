//go:build !(linux && amd64) || purego

package kiln

// requestAMX reports whether the process may use the AMX tile registers:
// never on this platform or build.
func requestAMX() bool { return false }
