package main

import (
	"strings"
	"testing"
)

// TestEverySubcommandAnswersHelp checks -h and --help on every subcommand:
// exit 0 and its usage on stdout, even with other arguments around.
func TestEverySubcommandAnswersHelp(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {name, "some.hlo", "--help"}} {
			code, out, errs := runKiln(args...)
			if code != 0 || !strings.HasPrefix(out, "usage: kiln "+name) || errs != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and the usage", args, code, out, errs)
			}
		}
	}
	for _, name := range []string{"run", "bench"} {
		_, out, _ := runKiln(name, "--help")
		for _, flag := range []string{"-timeout", "-memory-limit", "-arg", "-npy", "-weights"} {
			if !strings.Contains(out, flag) {
				t.Errorf("kiln %s --help does not list %s", name, flag)
			}
		}
	}
	code, out, _ := runKiln("help", "fmt")
	if code != 0 || !strings.HasPrefix(out, "usage: kiln fmt") {
		t.Errorf("kiln help fmt: exit %d, %q", code, out)
	}
}

func TestRunTupleParameterAndMissingArguments(t *testing.T) {
	f := writeTemp(t, "tuple.hlo", `HloModule tuples
ENTRY main {
  state = (f32[2], s32[]) parameter(0)
  a = f32[2] get-tuple-element(state), index=0
  n = s32[] get-tuple-element(state), index=1
  c = f32[] convert(n)
  cb = f32[2] broadcast(c), dimensions={}
  ROOT r = f32[2] add(a, cb)
}
`)
	for _, extra := range [][]string{nil, {"--reference"}} {
		code, out, errs := runKiln(append([]string{"run", f, "--arg", "(f32[2] {1, 2}, s32[] 3)"}, extra...)...)
		if code != 0 || out != "f32[2] {4, 5}\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want f32[2] {4, 5}", extra, code, out, errs)
		}
	}
	code, _, errs := runKiln("run", f)
	if code != 1 || !strings.Contains(errs, "takes 1 arguments (state: (f32[2], s32[])), 0 given: give each with --arg LITERAL or --npy FILE.npy") ||
		!strings.Contains(errs, "--fill") {
		t.Errorf("no arguments: exit %d, stderr %q; want how to give them", code, errs)
	}
	code, out, errs := runKiln("run", f, "--fill")
	if code != 0 || !strings.HasPrefix(out, "f32[2] {") {
		t.Errorf("--fill: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runKiln("bench", f, "--runs", "2", "--json")
	if code != 0 || !strings.Contains(out, `"arguments":2`) {
		t.Errorf("bench of a tuple parameter: exit %d, stdout %q, stderr %q; want 2 arguments (its leaves)", code, out, errs)
	}
}

func TestBenchProfileExplainsItsSum(t *testing.T) {
	f := writeTemp(t, "dense.hlo", denseHLO)
	code, out, errs := runKiln("bench", f, "--runs", "3", "--profile")
	if code != 0 || !strings.Contains(out, "note: the sum differs from the latency") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
}
