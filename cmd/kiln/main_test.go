package main

import (
	"os"
	"testing"
)

// TestMain lets the tests run the test binary as the kiln tool itself
// (KILN_RUN_AS_TOOL=1), to check exit statuses, timing and signals from
// outside the process.
func TestMain(m *testing.M) {
	if os.Getenv("KILN_RUN_AS_TOOL") == "1" {
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
