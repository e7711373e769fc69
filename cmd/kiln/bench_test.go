package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// denseHLO is y = relu(x·W + b) with the parameter metadata JAX writes.
const denseHLO = `HloModule dense
ENTRY main {
  x = f32[1,3] parameter(0), metadata={op_name="x"}
  w = f32[3,2] parameter(1), metadata={op_name="params['Dense_0']['kernel']"}
  b = f32[2] parameter(2), metadata={op_name="params['Dense_0']['bias']"}
  d = f32[1,2] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[1,2] broadcast(b), dimensions={1}
  s = f32[1,2] add(d, bb)
  z = f32[] constant(0)
  zb = f32[1,2] broadcast(z), dimensions={}
  ROOT r = f32[1,2] maximum(s, zb)
}
`

// writeSafetensors writes named f32 tensors to a .safetensors file in dir.
func writeSafetensors(t *testing.T, dir string, tensors map[string]*runtime.Tensor) string {
	t.Helper()
	p := filepath.Join(dir, "weights.safetensors")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := runtime.WriteSafetensors(f, tensors); err != nil {
		t.Fatal(err)
	}
	return p
}

func f32Tensor(t *testing.T, v []float32, dims ...int) *runtime.Tensor {
	t.Helper()
	x, err := runtime.TensorFromSlice(v, dims...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// denseWeights are W = [[1, -1], [2, 0], [0, 3]] and b = [0.5, -10] under
// the names given.
func denseWeights(t *testing.T, kernel, bias string) map[string]*runtime.Tensor {
	return map[string]*runtime.Tensor{
		kernel: f32Tensor(t, []float32{1, -1, 2, 0, 0, 3}, 3, 2),
		bias:   f32Tensor(t, []float32{0.5, -10}, 2),
	}
}

// decodeOneObject decodes out as exactly one JSON object.
func decodeOneObject(t *testing.T, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout %q is not a JSON object: %v", out, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout %q holds more than one JSON value", out)
	}
	return obj
}

func TestBenchJSONHasNumericKeys(t *testing.T) {
	f := writeTemp(t, "dense.hlo", denseHLO)
	code, out, errs := runKiln("bench", f, "--json", "--runs", "7", "--threads=1")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	obj := decodeOneObject(t, out)
	num := map[string]float64{}
	for _, k := range []string{"compile_ms", "p50_us", "p90_us", "p99_us", "allocs_per_run", "runs", "runs_per_s", "threads", "arguments"} {
		v, ok := obj[k].(float64)
		if !ok {
			t.Fatalf("key %q = %#v, want a number (object %v)", k, obj[k], obj)
		}
		num[k] = v
	}
	if num["runs"] != 7 || num["threads"] != 1 || num["arguments"] != 3 {
		t.Errorf("runs %v, threads %v, arguments %v; want 7, 1, 3", num["runs"], num["threads"], num["arguments"])
	}
	if !(num["compile_ms"] > 0 && num["p50_us"] > 0 && num["p50_us"] <= num["p90_us"] && num["p90_us"] <= num["p99_us"]) {
		t.Errorf("timings not positive and ordered: %v", num)
	}
	if num["allocs_per_run"] < 0 || num["runs_per_s"] <= 0 {
		t.Errorf("allocs_per_run %v, runs_per_s %v", num["allocs_per_run"], num["runs_per_s"])
	}
}

func TestBenchTextReport(t *testing.T) {
	f := writeTemp(t, "dense.hlo", denseHLO)
	code, out, errs := runKiln("bench", f, "--runs", "3")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"compiled in", "latency over 3 runs: p50 ", "p90 ", "p99 ", "runs/s", "GFLOP/s", "allocations: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchWeightsBindByName(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "dense.hlo")
	if err := os.WriteFile(f, []byte(denseHLO), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, names := range [][2]string{
		{"Dense_0/kernel", "Dense_0/bias"},
		{"params.Dense_0.kernel", "params.Dense_0.bias"},
		{"params['Dense_0']['kernel']", "b"}, // the op_name, and the instruction name
	} {
		wf := writeSafetensors(t, dir, denseWeights(t, names[0], names[1]))
		code, out, errs := runKiln("bench", f, "--weights", wf, "--json", "--runs", "2")
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", names, code, errs)
		}
		obj := decodeOneObject(t, out)
		if obj["arguments"] != 1.0 {
			t.Errorf("%v: arguments %v, want 1 (x; w and b bound)", names, obj["arguments"])
		}
		bound, _ := obj["bound_parameters"].([]any)
		if len(bound) != 2 || bound[0] != "w" || bound[1] != "b" {
			t.Errorf("%v: bound_parameters %v, want [w b]", names, obj["bound_parameters"])
		}

		// kiln run binds the same tensors: relu(x·W + b) for x = [1, 2, 3]
		// is relu([1+4+0+0.5, -1+0+9-10]) = [5.5, 0].
		code, out, errs = runKiln("run", f, "--weights", wf, "--arg", "f32[1,3] {{1, 2, 3}}")
		if code != 0 {
			t.Fatalf("%v: run: exit %d, stderr %q", names, code, errs)
		}
		if want := "f32[1,2] {{5.5, 0}}\n"; out != want {
			t.Errorf("%v: run printed %q, want %q", names, out, want)
		}
	}
}

func TestRunWeightsFromNpyAndNpz(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "dense.hlo")
	if err := os.WriteFile(f, []byte(denseHLO), 0o644); err != nil {
		t.Fatal(err)
	}
	// A .npy file is one tensor named after the file: w.npy binds w, and
	// b then comes from --arg after x.
	wp := filepath.Join(dir, "w.npy")
	fh, err := os.Create(wp)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(fh, ir.MustLiteralFromSlice([]float32{1, -1, 2, 0, 0, 3}, 3, 2)); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	code, out, errs := runKiln("run", f, "--reference", "--weights", wp, "--arg", "f32[1,3] {{1, 2, 3}}", "--arg", "f32[2] {0.5, -10}")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if want := "f32[1,2] {{5.5, 0}}\n"; out != want {
		t.Errorf("run printed %q, want %q", out, want)
	}
}

func TestBenchInputsBindsTheRest(t *testing.T) {
	f := writeTemp(t, "dense.hlo", denseHLO)
	code, out, errs := runKiln("bench", f, "--inputs", "1", "--json", "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	obj := decodeOneObject(t, out)
	bound, _ := obj["bound_parameters"].([]any)
	if obj["arguments"] != 1.0 || len(bound) != 2 {
		t.Errorf("arguments %v, bound %v; want 1 argument (x) and w, b bound", obj["arguments"], bound)
	}
}

func TestBenchErrors(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "dense.hlo")
	if err := os.WriteFile(f, []byte(denseHLO), 0o644); err != nil {
		t.Fatal(err)
	}
	wrongShape := writeSafetensors(t, t.TempDir(), map[string]*runtime.Tensor{"Dense_0/kernel": f32Tensor(t, []float32{1, 2}, 2)})
	noMatch := writeSafetensors(t, t.TempDir(), map[string]*runtime.Tensor{"Encoder/kernel": f32Tensor(t, []float32{1, 2}, 2)})
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"bench", "--json"}, "no module file"},
		{"missing file", []string{"bench", filepath.Join(dir, "nope.hlo")}, "no such file"},
		{"zero runs", []string{"bench", f, "--runs", "0"}, "--runs wants an integer ≥ 1"},
		{"bad threads", []string{"bench", f, "--threads=two"}, "--threads wants an integer"},
		{"json with value", []string{"bench", f, "--json=yes"}, "--json takes no value"},
		{"unknown flag", []string{"bench", f, "--reference"}, "unknown flag --reference"},
		{"too many args", []string{"bench", f, "--arg", "f32[1,3] {{1,2,3}}", "--arg", "f32[3,2] {{1,2},{3,4},{5,6}}", "--arg", "f32[2] {1,2}", "--arg", "f32[] 1"}, "takes 3 arguments"},
		{"wrong arg shape", []string{"bench", f, "--arg", "f32[3] {1,2,3}"}, "parameter 0 (x)"},
		{"weights shape", []string{"bench", f, "--weights", wrongShape}, `tensor "Dense_0/kernel" has shape f32[2], parameter 1 (w) is f32[3,2]`},
		{"weights match nothing", []string{"bench", f, "--weights", noMatch}, "none of its 1 tensors (Encoder/kernel) matches a parameter"},
		{"weights format", []string{"bench", f, "--weights", f}, "unknown weights format"},
		{"inputs too many", []string{"bench", f, "--inputs", "4"}, "has only 3 parameters"},
		{"run weights shape", []string{"run", f, "--weights", wrongShape, "--arg", "f32[1,3] {{1,2,3}}"}, "parameter 1 (w)"},
		{"run weights args", []string{"run", f, "--weights", writeSafetensors(t, t.TempDir(), denseWeights(t, "Dense_0/kernel", "Dense_0/bias"))}, "takes 1 arguments besides the 2 bound by name"},
		{"run weights twice", []string{"run", f, "--weights", "a.npz", "--weights", "b.npz"}, "--weights given twice"},
	} {
		code, out, errs := runKiln(c.args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.name, code, errs, c.want)
		}
		if out != "" {
			t.Errorf("%s: stdout %q, want nothing", c.name, out)
		}
	}
}

func TestModuleFLOPs(t *testing.T) {
	read := func(path string) *ir.Module {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("bundled model: %v", err)
		}
		m, err := ir.ParseModule(string(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	const s, h = 128, 768
	for _, c := range []struct {
		path string
		want float64
	}{
		{"../../examples/mlp/mlp_b1.hlo", 2 * (784*512 + 512*512 + 512*10)},
		{"../../examples/mlp/mlp_b32.hlo", 32 * 2 * (784*512 + 512*512 + 512*10)},
		// Three 3×3 SAME convolutions (32², 3→16; 16², 16→32; 8², 32→64)
		// and a 1024→10 dense layer.
		{"../../examples/cnn/cnn_b1.hlo", 2 * (32*32*16*9*3 + 16*16*32*9*16 + 8*8*64*9*32 + 1024*10)},
		// Four h×h projections, two h×4h feed-forward GEMMs, and the two
		// attention products (s×s×h each).
		{"../../examples/transformer/encoder_b1.hlo", 2*s*(4*h*h+8*h*h) + 4*s*s*h},
	} {
		got, ok := moduleFLOPs(read(c.path))
		if !ok || got != c.want {
			t.Errorf("%s: %v FLOPs (known %v), want %v", c.path, got, ok, c.want)
		}
	}
	// A dot inside a while body runs an unknown number of times.
	const loop = `HloModule loop
cond {
  p = (s32[], f32[2,2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[2,2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2,2] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[2,2] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (s32[], f32[2,2]) tuple(j, y)
}
ENTRY main {
  x = f32[2,2] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[2,2]) tuple(z, x)
  ROOT w = (s32[], f32[2,2]) while(t), condition=cond, body=body
}
`
	m, err := ir.ParseModule(loop)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := moduleFLOPs(m); ok {
		t.Errorf("dot in a while body: %v FLOPs reported as known", f)
	}
}

func TestBenchSeedsLikeExamples(t *testing.T) {
	// Parameters left unset get exactly the values kiln examples uses, so
	// kiln bench and make run see the same model.
	const path = "../../examples/mlp/mlp_b1.hlo"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("bundled model: %v", err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		t.Fatal(err)
	}
	want := exampleArgs(m, "mlp_b1")
	fill := deterministicFill(m, path)
	for i := range m.Entry.Parameters {
		if l, err := fill(i); err != nil || !l.Equal(want[i]) {
			t.Errorf("parameter %d: kiln bench fills other values than kiln examples", i)
		}
	}
}
