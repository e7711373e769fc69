package main

import (
	"strings"
	"testing"
)

// Constants printed as {...} are refused, naming one, unless --fill-elided
// asks for XLA's deterministic values: the literals' bytes, read as
// little-endian 32-bit words, count 0, 1, 2, … across the module's elided
// constants in order (so s32 elements are 0, 1, 2, …).
const elidedHLO = `HloModule elided
ENTRY main {
  p = s32[3] parameter(0)
  a = s32[3] constant({...})
  b = s32[2] constant({...})
  sum = s32[3] add(p, a)
  ROOT t = (s32[3], s32[2]) tuple(sum, b)
}
`

func TestRunFillElided(t *testing.T) {
	f := writeTemp(t, "elided.hlo", elidedHLO)
	code, _, errs := runKiln("run", f, "--arg", "s32[3] {10, 20, 30}")
	if code == 0 || !strings.Contains(errs, `constant "a" of shape s32[3] has its value elided`) || !strings.Contains(errs, "--fill-elided") {
		t.Errorf("without --fill-elided: exit %d, stderr %q", code, errs)
	}
	for _, extra := range [][]string{nil, {"--reference"}} {
		args := append([]string{"run", f, "--arg", "s32[3] {10, 20, 30}", "--fill-elided"}, extra...)
		code, out, errs := runKiln(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", extra, code, errs)
		}
		if want := "s32[3] {10, 21, 32}\ns32[2] {3, 4}\n"; out != want {
			t.Errorf("%v: stdout %q, want %q", extra, out, want)
		}
	}
	code, out, errs := runKiln("bench", f, "--fill-elided", "--runs", "2")
	if code != 0 || out == "" {
		t.Errorf("bench --fill-elided: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runKiln("bench", f, "--runs", "2"); code == 0 || !strings.Contains(errs, "--fill-elided") {
		t.Errorf("bench without --fill-elided: exit %d, stderr %q", code, errs)
	}
}

func TestFmtShort(t *testing.T) {
	f := writeTemp(t, "m.hlo", "HloModule m\nENTRY e {\n  p = f32[2] parameter(0), metadata={op_name=\"x\"}\n  ROOT n = f32[2] negate(p)\n}\n")
	code, out, errs := runKiln("fmt", "--short", f)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	want := "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n"
	if out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	if code, _, errs := runKiln("fmt", "--wide", f); code == 0 || !strings.Contains(errs, "unknown flag --wide") {
		t.Errorf("unknown flag: exit %d, stderr %q", code, errs)
	}
}
