//go:build race

package kiln

const raceEnabled = true
