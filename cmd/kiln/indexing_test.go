package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeHLO(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.hlo")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runIndexingTool(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runMain(append([]string{"indexing"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

const indexingPadHLO = `HloModule m

ENTRY e {
  p0 = f32[4, 4] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
}
`

const indexingDotHLO = `HloModule m

ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  p1 = f32[4, 256, 64] parameter(1)
  n = f32[4, 256, 64] negate(p1)
  ROOT dot = f32[4, 128, 64] dot(p0, n),
    lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
`

func TestIndexingRootOfEntry(t *testing.T) {
	code, out, errOut := runIndexingTool(t, writeHLO(t, indexingPadHLO))
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	want := `operand id = 0
(d0, d1) -> ((d0 - 1) / 2, d1 - 4),
domain:
d0 in [1, 7],
d1 in [4, 7],
(d0 - 1) mod 2 in [0, 0]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 11],
d1 in [0, 15]
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
}

func TestIndexingInstrAndOperand(t *testing.T) {
	path := writeHLO(t, indexingDotHLO)
	code, out, errOut := runIndexingTool(t, path, "--operand", "1")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	want := `operand id = 1
(d0, d1, d2)[s0] -> (d0, s0, d2),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 63],
s0 in [0, 255]
`
	if out != want {
		t.Errorf("--operand 1:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = runIndexingTool(t, "--instr=n", path)
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	want = `operand id = 0
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 3],
d1 in [0, 255],
d2 in [0, 63]
`
	if out != want {
		t.Errorf("--instr n:\n%s\nwant:\n%s", out, want)
	}
}

func TestIndexingInverse(t *testing.T) {
	const transposeHLO = `HloModule m

ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  ROOT t = f32[256, 4, 128] transpose(p0), dimensions={2, 0, 1}
}
`
	code, out, errOut := runIndexingTool(t, writeHLO(t, transposeHLO), "--inverse", "--operand", "0")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	want := `operand id = 0
(d0, d1, d2) -> (d2, d0, d1),
domain:
d0 in [0, 3],
d1 in [0, 127],
d2 in [0, 255]
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	// XLA has no input-to-output indexing for dot.
	code, out, errOut = runIndexingTool(t, writeHLO(t, indexingDotHLO), "--inverse", "--operand", "0")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	if want := "operand id = 0 unknown indexing\n"; out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
}

// --physical numbers each tensor's dimensions in the order its layout
// stores them, both ways.
func TestIndexingPhysical(t *testing.T) {
	path := writeHLO(t, `HloModule m

ENTRY e {
  p0 = f32[10, 20, 30]{1, 0, 2} parameter(0)
  ROOT e = f32[10, 20, 30] exponential(p0)
}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--physical"}, `operand id = 0
(d0, d1, d2) -> (d2, d0, d1),
domain:
d0 in [0, 9],
d1 in [0, 19],
d2 in [0, 29]
`},
		{[]string{"--physical", "--inverse"}, `operand id = 0
(d0, d1, d2) -> (d1, d2, d0),
domain:
d0 in [0, 29],
d1 in [0, 9],
d2 in [0, 19]
`},
		{nil, `operand id = 0
(d0, d1, d2) -> (d0, d1, d2),
domain:
d0 in [0, 9],
d1 in [0, 19],
d2 in [0, 29]
`},
	} {
		code, out, errOut := runIndexingTool(t, append([]string{path}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit status %d, stderr: %s", c.args, code, errOut)
		}
		if out != c.want {
			t.Errorf("%v: stdout:\n%s\nwant:\n%s", c.args, out, c.want)
		}
	}
}

const indexingVariadicReduceHLO = `HloModule m

max {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  m = f32[] maximum(a, c)
  n = s32[] maximum(b, d)
  ROOT t = (f32[], s32[]) tuple(m, n)
}

ENTRY e {
  p0 = f32[256,10] parameter(0)
  p0_init = f32[] constant(-inf)
  p1 = s32[256,10] parameter(1)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init), dimensions={0}, to_apply=max
}
`

func TestIndexingOutputsOfMultiOutputOps(t *testing.T) {
	path := writeHLO(t, indexingVariadicReduceHLO)
	code, out, errOut := runIndexingTool(t, path, "--output", "1", "--operand", "3")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	if want := "operand id = 3\n(d0) -> (),\ndomain:\nd0 in [0, 9]\n"; out != want {
		t.Errorf("--output 1 --operand 3:\n%s\nwant:\n%s", out, want)
	}
	// With --inverse, the maps are listed by output.
	code, out, errOut = runIndexingTool(t, path, "--inverse", "--operand", "2", "--output", "1")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	if want := "operand id = 1\n()[s0] -> (s0),\ndomain:\ns0 in [0, 9]\n"; out != want {
		t.Errorf("--inverse --operand 2 --output 1:\n%s\nwant:\n%s", out, want)
	}
	code, out, _ = runIndexingTool(t, path, "--inverse", "--operand", "1")
	if code != 0 || strings.Count(out, "operand id = ") != 2 || !strings.Contains(out, "operand id = 1\n(d0, d1) -> (d1),") {
		t.Errorf("--inverse --operand 1: exit %d, stdout:\n%s", code, out)
	}
}

func TestIndexingFusionComposesThroughBody(t *testing.T) {
	src := strings.Replace(indexingSoftmaxHLO, "\n", "\n", -1)
	code, out, errOut := runIndexingTool(t, writeHLO(t, src))
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	for _, want := range []string{
		"(d0, d1, d2)[s0] -> (d0, d1, s0),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124],\ns0 in [0, 124]\n",
		"(d0, d1, d2) -> (d0, d1, d2),\ndomain:\nd0 in [0, 1],\nd1 in [0, 64],\nd2 in [0, 124]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks\n%s\nstdout:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "operand id = 0\n") || strings.Count(out, "operand id") != 1 {
		t.Errorf("stdout:\n%s", out)
	}
}

const indexingSoftmaxHLO = `HloModule m

add_computation {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT add = f32[] add(p0, p1)
}

max_computation {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT max = f32[] maximum(p0, p1)
}

softmax {
  p0 = f32[2,65,125]{2,1,0} parameter(0)
  bitcast0 = f32[65,2,125]{2,1,0} bitcast(f32[2,65,125]{2,1,0} p0)
  constant_neg_inf_1 = f32[] constant(-inf)
  reduce0 = f32[2,65]{1,0} reduce(f32[2,65,125]{2,1,0} p0, f32[] constant_neg_inf_1), dimensions={2}, to_apply=max_computation
  bitcast1 = f32[130]{0} bitcast(f32[2,65]{1,0} reduce0)
  bcast = f32[130,125]{1,0} broadcast(f32[130]{0} bitcast1), dimensions={0}
  bitcast2 = f32[65,2,125]{2,1,0} bitcast(f32[130,125]{1,0} bcast)
  subtract0 = f32[65,2,125]{2,1,0} subtract(f32[65,2,125]{2,1,0} bitcast0, f32[65,2,125]{2,1,0} bitcast2)
  exponential0 = f32[65,2,125]{2,1,0} exponential(f32[65,2,125]{2,1,0} subtract0)
  bitcast3 = f32[130,125]{1,0} bitcast(f32[65,2,125]{2,1,0} exponential0)
  constant_zero_1 = f32[] constant(0)
  reduce1 = f32[130]{0} reduce(f32[130,125]{1,0} bitcast3, f32[] constant_zero_1), dimensions={1}, to_apply=add_computation
  bcast.1 = f32[130,125]{1,0} broadcast(f32[130]{0} reduce1), dimensions={0}
  divide = f32[130,125]{1,0} divide(f32[130,125]{1,0} bitcast3, f32[130,125]{1,0} bcast.1)
  ROOT bitcast4 = f32[2,65,125]{2,1,0} bitcast(f32[130,125]{1,0} divide)
}

ENTRY e {
  p0 = f32[2,65,125]{2,1,0} parameter(0)
  ROOT fusion = f32[2,65,125]{2,1,0} fusion(f32[2,65,125]{2,1,0} p0), kind=kLoop, calls=softmax
}
`

func TestIndexingUnknownAndKnownEmpty(t *testing.T) {
	// The slice keeps only the part of the concatenation that comes from p1:
	// p0's composed map has an empty domain. The custom-call's indexing is
	// unknown.
	src := `HloModule m

f {
  a = f32[4] parameter(0)
  b = f32[6] parameter(1)
  c = f32[10] concatenate(a, b), dimensions={0}
  ROOT s = f32[3] slice(c), slice={[5:8]}
}

ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[6] parameter(1)
  fu = f32[3] fusion(p0, p1), kind=kLoop, calls=f
  ROOT cc = f32[3] custom-call(fu), custom_call_target="something"
}
`
	path := writeHLO(t, src)
	code, out, errOut := runIndexingTool(t, path)
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	if want := "operand id = 0 unknown indexing\n"; out != want {
		t.Errorf("custom-call:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = runIndexingTool(t, path, "--instr", "fu")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	want := "operand id = 0\nKNOWN EMPTY\noperand id = 1\n(d0) -> (d0 + 1),\ndomain:\nd0 in [0, 2]\n"
	if out != want {
		t.Errorf("fusion:\n%s\nwant:\n%s", out, want)
	}
}

func TestIndexingErrors(t *testing.T) {
	path := writeHLO(t, indexingPadHLO)
	bad := writeHLO(t, "HloModule m\n\nENTRY e {\n  p0 = f32[4,] parameter(0)\n}\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no module file"},
		{[]string{filepath.Join(t.TempDir(), "none.hlo")}, "no such file"},
		{[]string{bad}, bad + ":4:14: "},
		{[]string{path, "--instr", "nothing"}, `no instruction named "nothing"`},
		{[]string{path, "--output", "1"}, "--output 1: pad has 1 outputs"},
		{[]string{path, "--operand", "2"}, "--operand 2: pad has 2 operands"},
		{[]string{path, "--inverse", "--operand", "5"}, "--operand 5: pad has 2 operands"},
		{[]string{path, "--output", "x"}, `--output expects a non-negative integer, found "x"`},
		{[]string{path, "--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{path, path}, "more than one module file"},
	} {
		code, out, errOut := runIndexingTool(t, c.args...)
		if code != 1 {
			t.Errorf("%v: exit status %d, want 1", c.args, code)
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr = %q, want it to contain %q", c.args, errOut, c.want)
		}
		if out != "" {
			t.Errorf("%v: unexpected stdout %q", c.args, out)
		}
	}
}

func TestIndexingSyntax(t *testing.T) {
	path := writeHLO(t, indexingPadHLO)
	code, out, errOut := runIndexingTool(t, path, "--operand", "0", "--syntax=mlir")
	if code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, errOut)
	}
	if !strings.Contains(out, "(d0 - 1) floordiv 2") || strings.Contains(out, " / ") {
		t.Errorf("--syntax=mlir printed:\n%s", out)
	}
	code, _, errOut = runIndexingTool(t, path, "--syntax=lisp")
	if code != 1 || !strings.Contains(errOut, "expected xla or mlir") {
		t.Errorf("--syntax=lisp: status %d, stderr %q", code, errOut)
	}
}
