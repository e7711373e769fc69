package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
)

// runKiln runs the tool and returns its exit status, stdout and stderr.
func runKiln(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeTemp writes a file into the test's temporary directory.
func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const axpyHLO = `HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[2,2] parameter(1)
  y = f32[2,2] parameter(2)
  ab = f32[2,2] broadcast(a), dimensions={}
  ax = f32[2,2] multiply(ab, x)
  ROOT r = f32[2,2] add(ax, y)
}
`

func TestRunReferencePrintsLiteral(t *testing.T) {
	f := writeTemp(t, "axpy.hlo", axpyHLO)
	code, out, errs := runKiln("run", f, "--reference", "--arg", "f32[] 2", "--arg", "f32[2,2] {{1, 2}, {3, 4}}", "--arg=f32[2,2] {{0.5, 0}, {0, -1}}")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if want := "f32[2,2] {{2.5, 4}, {6, 7}}\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if errs != "" {
		t.Errorf("stderr %q, want nothing with --reference", errs)
	}
	// Without --reference the compiled plan runs and prints the same.
	code, out2, errs := runKiln("run", f, "--arg", "f32[] 2", "--arg", "f32[2,2] {{1, 2}, {3, 4}}", "--arg", "f32[2,2] {{0.5, 0}, {0, -1}}")
	if code != 0 || out2 != out || errs != "" {
		t.Errorf("without --reference: exit %d, stdout %q, stderr %q", code, out2, errs)
	}
}

func TestRunNpyArgumentsAndTupleOutput(t *testing.T) {
	const hlo = `HloModule two
ENTRY main {
  x = f64[3] parameter(0)
  b = pred[3] parameter(1)
  n = f64[3] negate(x)
  nb = pred[3] not(b)
  ROOT t = (f64[3], pred[3]) tuple(n, nb)
}
`
	dir := t.TempDir()
	f := filepath.Join(dir, "two.hlo")
	if err := os.WriteFile(f, []byte(hlo), 0o644); err != nil {
		t.Fatal(err)
	}
	xp := filepath.Join(dir, "x.npy")
	fh, err := os.Create(xp)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(fh, ir.MustLiteralFromSlice([]float64{1.5, -2, 0})); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	code, out, errs := runKiln("run", f, "--reference", "--npy", xp, "--arg", "pred[3] {true, false, true}")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	want := "f64[3] {-1.5, 2, -0}\npred[3] {false, true, false}\n"
	if out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
}

func TestRunErrors(t *testing.T) {
	f := writeTemp(t, "axpy.hlo", axpyHLO)
	bad := writeTemp(t, "bad.hlo", "HloModule bad\nENTRY main {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] frobnicate(x)\n}\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"run", "--reference"}, "no module file"},
		{"missing file", []string{"run", filepath.Join(t.TempDir(), "nope.hlo")}, "no such file"},
		{"parse error", []string{"run", bad, "--arg", "f32[2] {1, 2}"}, "bad.hlo"},
		{"too few args", []string{"run", f, "--arg", "f32[] 2"}, "takes 3 arguments"},
		{"wrong shape", []string{"run", f, "--arg", "f32[] 2", "--arg", "f32[2,3] {{1,2,3},{4,5,6}}", "--arg", "f32[2,2] {{1,2},{3,4}}"}, "parameter 1"},
		{"bad literal", []string{"run", f, "--arg", "f32[] two", "--arg", "f32[2,2] {{1,2},{3,4}}", "--arg", "f32[2,2] {{1,2},{3,4}}"}, "argument 0"},
		{"missing npy", []string{"run", f, "--npy", "/nonexistent.npy", "--arg", "f32[2,2] {{1,2},{3,4}}", "--arg", "f32[2,2] {{1,2},{3,4}}"}, "nonexistent.npy"},
		{"unknown flag", []string{"run", f, "--fast"}, "unknown flag --fast"},
		{"flag without value", []string{"run", f, "--arg"}, "needs a value"},
	} {
		code, _, errs := runKiln(c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.name, code, errs, c.want)
		}
	}
}

func TestRunBundledMLPWithNpyWeights(t *testing.T) {
	// The bundled MLP (x·W1+b1 → relu → ·W2+b2 → relu → ·W3+b3) with
	// deterministic weights, checked against the same network computed
	// here in float64.
	const model = "../../examples/mlp/mlp_b1.hlo"
	if _, err := os.Stat(model); err != nil {
		t.Skipf("bundled model: %v", err)
	}
	shapes := [][]int{{1, 784}, {784, 512}, {512}, {512, 512}, {512}, {512, 10}, {10}}
	dir := t.TempDir()
	args := []string{"run", model, "--reference"}
	vals := make([][]float32, len(shapes))
	for k, s := range shapes {
		n := 1
		for _, d := range s {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			// A fixed pseudo-random pattern in [-0.05, 0.05).
			v[i] = float32((i*7919+k*104729)%1000-500) / 10000
		}
		vals[k] = v
		p := filepath.Join(dir, "w"+string(rune('0'+k))+".npy")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := npy.Write(f, ir.MustLiteralFromSlice(v, s...)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		args = append(args, "--npy", p)
	}
	code, out, errs := runKiln(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, err := ir.ParseLiteral(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	layer := func(x []float64, w []float32, b []float32, in, outN int, relu bool) []float64 {
		y := make([]float64, outN)
		for j := 0; j < outN; j++ {
			s := float64(b[j])
			for i := 0; i < in; i++ {
				s += x[i] * float64(w[i*outN+j])
			}
			if relu && s < 0 {
				s = 0
			}
			y[j] = s
		}
		return y
	}
	x := make([]float64, 784)
	for i, v := range vals[0] {
		x[i] = float64(v)
	}
	h := layer(x, vals[1], vals[2], 784, 512, true)
	h = layer(h, vals[3], vals[4], 512, 512, true)
	want := layer(h, vals[5], vals[6], 512, 10, false)
	for j, w := range want {
		if g := got.Float64At(j); g-w > 1e-4 || w-g > 1e-4 {
			t.Errorf("logit %d = %v, want %v", j, g, w)
		}
	}
}
