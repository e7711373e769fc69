package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

const mlpPath = "../mlp/mlp_b1.hlo"

func readModule(t *testing.T, path string) *ir.Module {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exampleWeights are the demonstration values the service binds to the
// MLP's parameters 1… when no weights file is given.
func exampleWeights(t *testing.T, m *ir.Module) []*ir.Literal {
	args := make([]*ir.Literal, len(m.Entry.Parameters))
	for i, p := range m.Entry.Parameters[1:] {
		args[i+1] = demoLiteral(t, p.Shape, uint64(i+1))
	}
	return args
}

func demoLiteral(t testing.TB, s ir.Shape, seed uint64) *ir.Literal {
	tn, err := demoTensor(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	return tn.Literal()
}

// input is a request's input for the MLP.
func input(t testing.TB, seed uint64) []float32 {
	return demoLiteral(t, ir.MakeShape(ir.F32, 1, 784), seed).Float32s()
}

// mlpServer starts the service's handler for the MLP with demonstration
// weights on a loopback test server.
func mlpServer(t *testing.T, c config) (*server, *httptest.Server) {
	t.Helper()
	c.model = mlpPath
	if c.maxConcurrent == 0 {
		c.maxConcurrent = 4
	}
	if c.timeout == 0 {
		c.timeout = 10 * time.Second
	}
	s, err := newServer(c)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// predict posts body and decodes the answer.
func predict(url string, body []byte) (int, response, string, error) {
	r, err := http.Post(url+"/v1/predict", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, response{}, "", err
	}
	defer r.Body.Close()
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return 0, response{}, "", err
	}
	var resp response
	if r.StatusCode == http.StatusOK {
		err = json.Unmarshal(raw, &resp)
	}
	return r.StatusCode, resp, string(raw), err
}

// checkAgainstEval compares the service's logits for x with the reference
// evaluator's on the same weights: |diff| ≤ 1e-5 + 1e-4·|want|, room for
// the float32 sums of 784- and 512-term dot products taken in other orders.
func checkAgainstEval(t *testing.T, m *ir.Module, args []*ir.Literal, x []float32, got response) {
	t.Helper()
	args = append([]*ir.Literal(nil), args...)
	args[0] = ir.MustLiteralFromSlice(x, 1, 784)
	ref, err := eval.Run(m, args...)
	if err != nil {
		t.Fatal(err)
	}
	want := ref[0].Float32s()
	if len(got.Outputs) != 1 || len(got.Outputs[0]) != len(want) {
		t.Fatalf("outputs %v, want one array of %d", got.Outputs, len(want))
	}
	if len(got.Shapes) != 1 || fmt.Sprint(got.Shapes[0]) != "[1 10]" {
		t.Errorf("shapes %v, want [[1 10]]", got.Shapes)
	}
	for j, w := range want {
		if d := math.Abs(float64(got.Outputs[0][j] - w)); d > 1e-5+1e-4*math.Abs(float64(w)) {
			t.Errorf("logit %d = %v, reference %v", j, got.Outputs[0][j], w)
		}
	}
}

func TestConcurrentRequestsMatchEvaluator(t *testing.T) {
	_, ts := mlpServer(t, config{})
	m := readModule(t, mlpPath)
	weights := exampleWeights(t, m)

	const clients, perClient = 8, 4
	type answer struct {
		x    []float32
		resp response
	}
	answers := make(chan answer, clients*perClient)
	errs := make(chan error, clients*perClient)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < perClient; r++ {
				x := input(t, uint64(100*c+r+1000))
				body, _ := json.Marshal(request{Inputs: [][]float32{x}})
				code, resp, raw, err := predict(ts.URL, body)
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("status %d: %s", code, raw)
				}
				if err != nil {
					errs <- err
					return
				}
				answers <- answer{x, resp}
			}
		}()
	}
	wg.Wait()
	close(answers)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	for a := range answers {
		checkAgainstEval(t, m, weights, a.x, a.resp)
		n++
	}
	if n != clients*perClient {
		t.Errorf("%d answers, want %d", n, clients*perClient)
	}
}

func TestWeightsFileBindsByName(t *testing.T) {
	// The same MLP with weights from a safetensors file named as a flax
	// checkpoint would name them, all different from the built-in values.
	m := readModule(t, mlpPath)
	args := make([]*ir.Literal, len(m.Entry.Parameters))
	tensors := map[string]*runtime.Tensor{}
	// Parameters 1… in order, as their op_name metadata says
	// (params['Dense_0']['kernel'] and so on).
	names := []string{"Dense_0/kernel", "Dense_0/bias", "Dense_1/kernel", "Dense_1/bias", "Dense_2/kernel", "Dense_2/bias"}
	for i, p := range m.Entry.Parameters[1:] {
		args[i+1] = demoLiteral(t, p.Shape, uint64(7000+i))
		tensors[names[i]] = runtime.TensorFromLiteral(args[i+1])
	}
	file := filepath.Join(t.TempDir(), "mlp.safetensors")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.WriteSafetensors(f, tensors); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, ts := mlpServer(t, config{weights: file})
	if n := len(s.inputs); n != 1 {
		t.Fatalf("%d inputs after binding %d tensors by name, want 1", n, len(tensors))
	}
	x := input(t, 1)
	body, _ := json.Marshal(request{Inputs: [][]float32{x}})
	code, resp, raw, err := predict(ts.URL, body)
	if err != nil || code != http.StatusOK {
		t.Fatalf("status %d, %v: %s", code, err, raw)
	}
	checkAgainstEval(t, m, args, x, resp)
}

func TestBadRequests(t *testing.T) {
	_, ts := mlpServer(t, config{})
	short := `{"inputs": [[1, 2, 3]]}`
	long := `{"inputs": [[` + strings.Repeat("1,", 784) + `1]]}`
	for _, c := range []struct{ body, want string }{
		{`{"inputs": [`, "request body"},
		{`{"inputs": []}`, "want 1 input arrays (Arg_0.1: f32[1,784]), found 0"},
		{`{"inputs": [[1], [2]]}`, "want 1 input arrays (Arg_0.1: f32[1,784]), found 2"},
		{short, "input 0: want 784 numbers"},
		{long, "input 0: want 784 numbers (f32[1,784], row-major), found 785"},
		{`{"inputs": [["a"]]}`, "request body"},
	} {
		code, _, raw, err := predict(ts.URL, []byte(c.body))
		if err != nil || code != http.StatusBadRequest || !strings.Contains(raw, c.want) {
			t.Errorf("body %.40q: status %d, %v, answer %q; want 400 and %q", c.body, code, err, raw, c.want)
		}
	}
	// A good request after the bad ones: the pooled tensors are intact.
	x := make([]float32, 784)
	body, _ := json.Marshal(request{Inputs: [][]float32{x}})
	if code, _, raw, err := predict(ts.URL, body); err != nil || code != http.StatusOK {
		t.Errorf("good request after bad ones: status %d, %v: %s", code, err, raw)
	}
	r, err := http.Get(ts.URL + "/v1/model")
	if err != nil {
		t.Fatal(err)
	}
	var desc map[string][]string
	err = json.NewDecoder(r.Body).Decode(&desc)
	r.Body.Close()
	if err != nil || fmt.Sprint(desc) != "map[inputs:[f32[1,784]] outputs:[f32[1,10]]]" {
		t.Errorf("GET /v1/model: %v, %v", desc, err)
	}
	r, err = http.Get(ts.URL + "/v1/predict")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/predict: status %d, want 405", r.StatusCode)
	}
}

func TestRunPathAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	s, _ := mlpServer(t, config{})
	ctx := context.Background()
	allocs := testing.AllocsPerRun(50, func() {
		b := s.pool.Get().(*buffers)
		if err := s.run(ctx, b); err != nil {
			t.Fatal(err)
		}
		s.pool.Put(b)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

func TestServeShutsDownGracefully(t *testing.T) {
	s, _ := mlpServer(t, config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, ln, s.handler()) }()
	url := "http://" + ln.Addr().String()
	body, _ := json.Marshal(request{Inputs: [][]float32{make([]float32, 784)}})
	if code, _, raw, err := predict(url, body); err != nil || code != http.StatusOK {
		t.Fatalf("status %d, %v: %s", code, err, raw)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serve returned %v after shutdown, want nil", err)
	}
	if _, _, _, err := predict(url, body); err == nil {
		t.Error("the server still answers after shutdown")
	}
}
