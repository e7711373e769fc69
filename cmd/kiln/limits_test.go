package main

import (
	"bytes"
	"errors"
	"math/bits"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const endlessHLO = `HloModule endless
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
`

// toolCommand runs the test binary as kiln with args.
func toolCommand(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := exec.Command(exe, "-test.run=^$")
	if err := probe.Run(); errors.Is(err, syscall.ENOEXEC) {
		t.Skip("the test binary cannot run itself here (an emulated architecture)")
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "KILN_RUN_AS_TOOL=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

// TestRunTimeoutStopsAnEndlessWhile runs a never-ending while loop with
// --timeout 1s, compiled and on the reference evaluator: the tool exits with
// status 124 and says why, having stopped within 1.5 s of starting the
// command (the time it reports). Other tenants of a shared machine can
// delay a process by hundreds of milliseconds, so a slow stop is tried
// again, twice: the tool must meet the bound in one of three tries.
func TestRunTimeoutStopsAnEndlessWhile(t *testing.T) {
	f := writeTemp(t, "endless.hlo", endlessHLO)
	for _, extra := range [][]string{nil, {"--reference"}} {
		var tries []time.Duration
		for len(tries) < 3 {
			cmd, stderr := toolCommand(t, append([]string{"run", "--timeout", "1s", f, "--arg", "s32[] 0"}, extra...)...)
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			if code := exitCode(t, err); code != 124 {
				t.Fatalf("%v: exit %d, want 124; stderr %q", extra, code, stderr)
			}
			var after time.Duration
			if _, rest, ok := strings.Cut(stderr.String(), "(after "); ok {
				after, _ = time.ParseDuration(strings.TrimSuffix(strings.TrimSpace(rest), ")"))
			}
			if !strings.Contains(stderr.String(), "kiln run: stopped: --timeout 1s reached") || after == 0 {
				t.Fatalf("%v: stderr %q does not say the timeout stopped it, and when", extra, stderr)
			}
			t.Logf("%v: stopped after %v; the process exited after %v", extra, after, took)
			tries = append(tries, after)
			if after <= 1500*time.Millisecond {
				break
			}
		}
		if last := tries[len(tries)-1]; last > 1500*time.Millisecond {
			t.Errorf("%v: the command stopped %v after it started (tries: %v), want within 1.5 s", extra, last, tries)
		}
	}
}

// TestRunStopsOnSignals interrupts a never-ending run with SIGINT and
// SIGTERM: the tool exits promptly with 130 or 143 and says why.
func TestRunStopsOnSignals(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("no SIGINT to send")
	}
	f := writeTemp(t, "endless.hlo", endlessHLO)
	for _, c := range []struct {
		sig    syscall.Signal
		status int
		name   string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		// A signal that arrives before the tool has installed its handler
		// (a loaded machine can delay start-up) ends it as the default
		// action does: the test then waits longer and tries again.
		var cmd *exec.Cmd
		var stderr *bytes.Buffer
		var err error
		var took time.Duration
		for _, wait := range []time.Duration{300 * time.Millisecond, time.Second, 3 * time.Second} {
			cmd, stderr = toolCommand(t, "run", f, "--arg", "s32[] 0")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(wait) // let it install its handler and start the loop
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			err = cmd.Wait()
			took = time.Since(sent)
			if exitCode(t, err) != -1 || stderr.Len() != 0 {
				break
			}
			t.Logf("%s after %v: the tool had not installed its handler yet", c.name, wait)
		}
		if code := exitCode(t, err); code != c.status {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.name, code, c.status, stderr)
		}
		if !strings.Contains(stderr.String(), "interrupted by "+c.name) {
			t.Errorf("%s: stderr %q does not name the signal", c.name, stderr)
		}
		// The tool stops within stopGrace of the signal; the bound leaves
		// room for a loaded machine.
		if took > 2*time.Second {
			t.Errorf("%s: the tool exited %v after the signal", c.name, took)
		}
		t.Logf("%s: exited %v after the signal", c.name, took)
	}
}

func TestMemoryLimitRefusesHugeModules(t *testing.T) {
	if bits.UintSize < 64 {
		t.Skip("an 8 GiB shape does not fit a 32-bit int")
	}
	huge := writeTemp(t, "huge.hlo", `HloModule huge
ENTRY main {
  p = f32[] parameter(0)
  ROOT b = f32[2048,1024,1024] broadcast(p), dimensions={}
}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--memory-limit", "256MiB", huge, "--arg", "f32[] 1"}, "the memory limit allows 268435456"},
		{[]string{"run", "--memory-limit", "256MiB", huge, "--arg", "f32[] 1", "--reference"}, "above the limit of 268435456"},
		{[]string{"bench", "--memory-limit", "256MiB", huge}, "the memory limit allows 268435456"},
		{[]string{"run", "--memory-limit", "lots", huge}, "--memory-limit wants a size in bytes"},
	} {
		code, _, errs := runKiln(c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errs, c.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "256MiB": 256 << 20, "2G": 2e9, "1.5GiB": 3 << 29, "1e6": 1e6, "512 KiB": 512 << 10, "0": 0} {
		got, err := parseBytes(in)
		if err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "MiB", "1XB", "inf"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) accepted", in)
		}
	}
}
