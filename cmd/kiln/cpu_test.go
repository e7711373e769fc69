package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kilnml/kiln"
)

func TestCPUCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runMain([]string{"cpu"}, &out, &errOut); code != 0 {
		t.Fatalf("kiln cpu exited %d: %s", code, errOut.String())
	}
	for _, want := range []string{"found:", "chosen:", kiln.Features(), "sgemm:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("kiln cpu output lacks %q:\n%s", want, out.String())
		}
	}
	if code := runMain([]string{"cpu", "extra"}, &out, &errOut); code == 0 {
		t.Errorf("kiln cpu extra: exit 0, want an error")
	}
}
