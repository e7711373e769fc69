package runtime

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
)

// mlpModule parses the batch-1 example MLP.
func mlpModule(t testing.TB) *ir.Module {
	t.Helper()
	text, err := os.ReadFile("../examples/mlp/mlp_b1.hlo")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mlpWeights returns deterministic weights for the MLP's parameters 1…6
// under the names a flax exporter gives them ("Dense_0/kernel", …), and the
// input for parameter 0.
func mlpWeights(t testing.TB, m *ir.Module) (map[string]*Tensor, *Tensor) {
	t.Helper()
	w := map[string]*Tensor{}
	var x *Tensor
	for i, p := range m.Entry.Parameters {
		tn := TensorFromLiteral(detrand.Literal(p.Shape, detrand.Seed("mlp-weights", i)))
		if i == 0 {
			x = tn
			continue
		}
		// op_name="params['Dense_0']['kernel']" → "Dense_0/kernel".
		w[ParameterNames(p)[2]] = tn
	}
	if len(w) != 6 || w["Dense_0/kernel"] == nil {
		t.Fatalf("weights named %v, want Dense_0/kernel … Dense_2/bias", keys(w))
	}
	return w, x
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// boundRun compiles m with the weights w bound (tensors of this test's own,
// which nothing else touches) and runs it on x.
func boundRun(t testing.TB, m *ir.Module, w map[string]*Tensor, x *Tensor) []float32 {
	t.Helper()
	e, err := Compile(m, WithWeights(w))
	if err != nil {
		t.Fatal(err)
	}
	outs, err := e.Run(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	return outs[0].Float32s()
}

func writeSafetensorsFile(t testing.TB, path string, w map[string]*Tensor) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, w); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeNPZFile(t testing.TB, path string, w map[string]*Tensor) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, tn := range w {
		f, err := zw.Create(name + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		if err := npy.Write(f, tn.Literal()); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sameTensors(t *testing.T, what string, got *Weights, want map[string]*Tensor) {
	t.Helper()
	g := got.Tensors()
	if len(g) != len(want) {
		t.Fatalf("%s: %d tensors (%v), want %d", what, len(g), keys(g), len(want))
	}
	for name, w := range want {
		x, ok := g[name]
		if !ok {
			t.Fatalf("%s: no tensor %q", what, name)
		}
		if !x.Shape().EqualIgnoringLayout(w.Shape()) || !bytes.Equal(x.Bytes(), w.Bytes()) {
			t.Fatalf("%s: tensor %q is %v, want %v with the written bytes", what, name, x.Shape(), w.Shape())
		}
	}
}

// readerOnlyFS serves files that cannot read at an offset, as an object
// store's streaming reader.
type readerOnlyFS struct{ fs.FS }

type readerOnlyFile struct{ f fs.File }

func (r readerOnlyFS) Open(name string) (fs.File, error) {
	f, err := r.FS.Open(name)
	return readerOnlyFile{f}, err
}
func (f readerOnlyFile) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f readerOnlyFile) Read(b []byte) (int, error) { return f.f.Read(b) }
func (f readerOnlyFile) Close() error               { return f.f.Close() }

func TestLoadEveryFormatFromPathsReadersAndFS(t *testing.T) {
	m := mlpModule(t)
	w, _ := mlpWeights(t, m)
	dir := t.TempDir()
	st, npz := filepath.Join(dir, "mlp.safetensors"), filepath.Join(dir, "mlp.npz")
	writeSafetensorsFile(t, st, w)
	writeNPZFile(t, npz, w)
	stBytes, _ := os.ReadFile(st)
	npzBytes, _ := os.ReadFile(npz)
	mapFS := fstest.MapFS{"w/mlp.safetensors": {Data: stBytes}, "w/mlp.npz": {Data: npzBytes}}
	load := map[string]func() (*Weights, error){
		"LoadSafetensors":                func() (*Weights, error) { return LoadSafetensors(st) },
		"LoadWeights(.safetensors)":      func() (*Weights, error) { return LoadWeights(st) },
		"ReadSafetensors":                func() (*Weights, error) { return ReadSafetensors(bytes.NewReader(stBytes), int64(len(stBytes))) },
		"LoadSafetensorsFS":              func() (*Weights, error) { return LoadSafetensorsFS(mapFS, "w/mlp.safetensors") },
		"LoadSafetensorsFS(os.DirFS)":    func() (*Weights, error) { return LoadSafetensorsFS(os.DirFS(dir), "mlp.safetensors") },
		"LoadSafetensorsFS(no ReaderAt)": func() (*Weights, error) { return LoadSafetensorsFS(readerOnlyFS{mapFS}, "w/mlp.safetensors") },
		"LoadWeightsFS(.safetensors)":    func() (*Weights, error) { return LoadWeightsFS(mapFS, "w/mlp.safetensors") },
		"LoadNPZ":                        func() (*Weights, error) { return LoadNPZ(npz) },
		"LoadWeights(.npz)":              func() (*Weights, error) { return LoadWeights(npz) },
		"ReadNPZ":                        func() (*Weights, error) { return ReadNPZ(bytes.NewReader(npzBytes), int64(len(npzBytes))) },
		"LoadNPZFS":                      func() (*Weights, error) { return LoadNPZFS(mapFS, "w/mlp.npz") },
		"LoadNPZFS(no ReaderAt)":         func() (*Weights, error) { return LoadNPZFS(readerOnlyFS{mapFS}, "w/mlp.npz") },
	}
	for name, f := range load {
		got, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameTensors(t, name, got, w)
		if err := got.Close(); err != nil || got.Tensors() != nil {
			t.Fatalf("%s: Close: %v, tensors after Close: %v", name, err, got.Tensors())
		}
	}
}

func TestLoadNPYNamesItsTensor(t *testing.T) {
	l := ir.MustLiteralFromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	var buf bytes.Buffer
	if err := npy.Write(&buf, l); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "Dense_0.kernel.npy")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for what, c := range map[string]struct {
		load func() (*Weights, error)
		name string
	}{
		"LoadNPY":   {func() (*Weights, error) { return LoadNPY(path) }, "Dense_0.kernel"},
		"LoadNPYFS": {func() (*Weights, error) { return LoadNPYFS(os.DirFS(dir), "Dense_0.kernel.npy") }, "Dense_0.kernel"},
		"ReadNPY":   {func() (*Weights, error) { return ReadNPY(bytes.NewReader(buf.Bytes())) }, NPYName},
	} {
		w, err := c.load()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		tn := w.Tensors()[c.name]
		if tn == nil || !bytes.Equal(tn.Bytes(), l.Bytes()) || w.Names()[0] != c.name {
			t.Fatalf("%s: tensors %v, want one named %q holding the array", what, w.Names(), c.name)
		}
	}
}

// lyingFiles writes a 128-byte .npy, .npz and .safetensors file each of
// whose headers claims 3 GB of float32 data, and returns their paths.
func lyingFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	hdr := "{'descr': '<f4', 'fortran_order': False, 'shape': (750000000,), }"
	npyData := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), 0)
	npyData = append(npyData, hdr...)
	npyData = append(npyData, make([]byte, 128-len(npyData))...)

	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	f, _ := zw.CreateHeader(&zip.FileHeader{Name: "w.npy", Method: zip.Store})
	f.Write(npyData)
	zw.Close()

	js := `{"w":{"dtype":"F32","shape":[750000000],"data_offsets":[0,3000000000]}}`
	st := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	st = append(st, js...)
	st = append(st, make([]byte, 128-len(st))...)

	paths := map[string]string{}
	for ext, data := range map[string][]byte{".npy": npyData, ".npz": zbuf.Bytes(), ".safetensors": st} {
		p := filepath.Join(dir, "lie"+ext)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths[ext] = p
	}
	return paths
}

// TestLyingFilesAreRefusedBeforeAllocating loads each lying file through
// every loader and checks the error (the path, the tensor, the declared
// bytes and what the file holds) and that the refusal allocated little.
func TestLyingFilesAreRefusedBeforeAllocating(t *testing.T) {
	paths := lyingFiles(t, t.TempDir())
	read := func(ext string) (*Weights, error) {
		data, err := os.ReadFile(paths[ext])
		if err != nil {
			t.Fatal(err)
		}
		switch ext {
		case ".safetensors":
			return ReadSafetensors(bytes.NewReader(data), int64(len(data)))
		case ".npz":
			return ReadNPZ(bytes.NewReader(data), int64(len(data)))
		}
		return ReadNPY(bytes.NewReader(data))
	}
	for _, ext := range []string{".npy", ".npz", ".safetensors"} {
		for _, how := range []string{"path", "reader"} {
			var err error
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			if how == "path" {
				_, err = LoadWeights(paths[ext])
			} else {
				_, err = read(ext)
			}
			goruntime.ReadMemStats(&after)
			if err == nil {
				t.Fatalf("%s by %s: a 3 GB claim was accepted", ext, how)
			}
			msg := err.Error()
			want := []string{"3000000000"}
			if how == "path" {
				want = append(want, paths[ext])
			}
			switch ext {
			case ".safetensors":
				js := `{"w":{"dtype":"F32","shape":[750000000],"data_offsets":[0,3000000000]}}`
				want = append(want, `tensor "w"`, fmt.Sprintf("within the %d bytes of data", 128-8-len(js)))
			case ".npz":
				want = append(want, "member w.npy", "holds 53 bytes")
			default:
				if how == "path" {
					want = append(want, `tensor "lie"`, "holds 53 bytes")
				} else {
					want = append(want, `tensor "arr_0"`, "only 53 bytes")
					if bits.UintSize == 32 {
						// Beyond what a literal may hold: refused before reading.
						want[len(want)-1] = "above the limit"
					}
				}
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s by %s: error %q does not contain %q", ext, how, msg, w)
				}
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("%s by %s: allocated %d bytes before refusing", ext, how, n)
			}
		}
	}
}

// TestLyingFilesPeakRSS measures the whole process: a child process loads
// each lying file ten times by each loader and reports its peak resident
// set (VmHWM), which must stay under 50 MB.
func TestLyingFilesPeakRSS(t *testing.T) {
	if os.Getenv("KILN_LYING_FILES_CHILD") != "" {
		paths := lyingFiles(t, t.TempDir())
		for range 10 {
			for _, p := range paths {
				if _, err := LoadWeights(p); err == nil {
					t.Fatalf("%s accepted", p)
				}
				data, _ := os.ReadFile(p)
				ReadSafetensors(bytes.NewReader(data), int64(len(data)))
				ReadNPZ(bytes.NewReader(data), int64(len(data)))
				ReadNPY(bytes.NewReader(data))
			}
		}
		fmt.Printf("peak-rss-kb %d\n", statusKB(t, "VmHWM"))
		return
	}
	if goruntime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc/self/status")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestLyingFilesPeakRSS$", "-test.count=1")
	cmd.Env = append(os.Environ(), "KILN_LYING_FILES_CHILD=1")
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skip("the test binary cannot run itself here (an emulated architecture)")
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var kb int
	for _, line := range strings.Split(string(out), "\n") {
		if _, err := fmt.Sscanf(line, "peak-rss-kb %d", &kb); err == nil {
			break
		}
	}
	if kb == 0 {
		t.Fatalf("child reported no peak RSS:\n%s", out)
	}
	t.Logf("peak RSS loading each lying file 10 times by every loader: %.1f MB", float64(kb)/1024)
	if kb > 50*1024 {
		t.Errorf("peak RSS %d kB, want under 50 MB", kb)
	}
}

// statusKB reads a kB figure of /proc/self/status.
func statusKB(t testing.TB, field string) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// TestLoadedWeightsCannotFaultTheProcess writes to every byte of every
// loaded tensor and truncates and rewrites the file, before and after
// Compile and after Close: nothing faults, and the executable's results do
// not change.
func TestLoadedWeightsCannotFaultTheProcess(t *testing.T) {
	m := mlpModule(t)
	w, x := mlpWeights(t, m)
	want := boundRun(t, m, w, x)
	path := filepath.Join(t.TempDir(), "mlp.safetensors")
	writeSafetensorsFile(t, path, w)

	loaded, err := LoadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	// Rewriting the file under loaded tensors, before Compile.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	e, err := Compile(m, WithWeights(loaded.Tensors()))
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		outs, err := e.Run(context.Background(), x)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for i, v := range outs[0].Float32s() {
			if v != want[i] {
				t.Fatalf("%s: output %d is %v, want %v", when, i, v, want[i])
			}
		}
	}
	check("after Compile")
	for _, tn := range loaded.Tensors() {
		b := tn.Bytes()
		for i := range b {
			b[i] = 0xff
		}
	}
	check("after writing every loaded tensor")
	if err := loaded.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a weights file"), 0o644); err != nil {
		t.Fatal(err)
	}
	goruntime.GC()
	check("after Close, a collection and a rewrite of the file")
}

// TestLoadCompileCloseCyclesKeepRSSFlat runs 100 load–compile–run–close
// cycles of the encoder layer's 28 MB of weights, keeping the last
// executable as a service would: the resident set after the last cycle is
// within 10 % of that after the tenth. (A mapping or copy kept per cycle
// would add its 28 MB each time.)
func TestLoadCompileCloseCyclesKeepRSSFlat(t *testing.T) {
	if testing.Short() || os.Getenv("KILN_ISA") != "" || purego {
		t.Skip("100 compiles of the encoder: run once, in the default configuration")
	}
	if goruntime.GOOS != "linux" {
		t.Skip("RSS is read from /proc/self/status")
	}
	text, err := os.ReadFile("../examples/transformer/encoder_b1.hlo")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		t.Fatal(err)
	}
	w := map[string]*Tensor{}
	var x *Tensor
	for i, p := range m.Entry.Parameters {
		tn := TensorFromLiteral(detrand.Literal(p.Shape, detrand.Seed("encoder-weights", i)))
		if i == 0 {
			x = tn
			continue
		}
		w[ParameterNames(p)[2]] = tn
	}
	path := filepath.Join(t.TempDir(), "encoder.safetensors")
	writeSafetensorsFile(t, path, w)
	w = nil
	var serving *Executable
	cycle := func() {
		loaded, err := LoadSafetensors(path)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Compile(m, WithWeights(loaded.Tensors()))
		if err != nil {
			t.Fatal(err)
		}
		loaded.Close()
		if _, err := e.Run(context.Background(), x); err != nil {
			t.Fatal(err)
		}
		serving = e
	}
	rss := func() int {
		goruntime.GC()
		debug.FreeOSMemory()
		return statusKB(t, "VmRSS")
	}
	for range 10 {
		cycle()
	}
	base := rss()
	for range 90 {
		cycle()
	}
	end := rss()
	goruntime.KeepAlive(serving)
	t.Logf("RSS after 10 cycles %.1f MB, after 100 %.1f MB", float64(base)/1024, float64(end)/1024)
	if float64(end) > 1.1*float64(base) {
		t.Errorf("RSS grew from %d kB to %d kB over 90 load–compile–close cycles (more than 10 %%)", base, end)
	}
}

// FuzzReadSafetensors checks that no input makes ReadSafetensors panic or
// allocate what its header claims, and that what it accepts writes back to
// the same tensors.
func FuzzReadSafetensors(f *testing.F) {
	small := map[string]*Tensor{
		"a": TensorFromLiteral(ir.MustLiteralFromSlice([]float32{1, 2, 3, 4}, 2, 2)),
		"b": TensorFromLiteral(ir.MustLiteralFromSlice([]int64{-1, 7})),
	}
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, small); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// The file that claimed 3 GB in 128 bytes, overlapping tensors, a
	// header length beyond the file.
	lie := lyingFiles(f, f.TempDir())
	data, err := os.ReadFile(lie[".safetensors"])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	js := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	f.Add(append(append(binary.LittleEndian.AppendUint64(nil, uint64(len(js))), js...), make([]byte, 8)...))
	f.Add(binary.LittleEndian.AppendUint64(nil, 1<<40))
	// A negative dimension, as the .npy reader's probe had.
	neg := `{"a":{"dtype":"F32","shape":[2,-3],"data_offsets":[0,8]}}`
	f.Add(append(append(binary.LittleEndian.AppendUint64(nil, uint64(len(neg))), neg...), make([]byte, 8)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ReadSafetensors(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		total := 0
		for _, tn := range w.Tensors() {
			total += len(tn.Bytes())
		}
		if total > len(data) {
			t.Fatalf("%d bytes of tensors from a %d-byte input", total, len(data))
		}
		var out bytes.Buffer
		if err := WriteSafetensors(&out, w.Tensors()); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSafetensors(bytes.NewReader(out.Bytes()), int64(out.Len()))
		if err != nil {
			t.Fatalf("reading back what was accepted: %v", err)
		}
		for name, tn := range w.Tensors() {
			if b := back.Tensors()[name]; b == nil || !bytes.Equal(b.Bytes(), tn.Bytes()) {
				t.Fatalf("tensor %q changed in the round trip", name)
			}
		}
	})
}
