// Command service serves a model compiled by Kiln over HTTP, as JSON. It uses
// only Kiln's public packages (ir, runtime) and the standard library, so it
// can be copied out of the repository and changed.
//
// It compiles the model once at start-up, with its weights bound (read by
// parameter name from a .safetensors, .npz or .npy file, or else, for a
// demonstration, deterministic pseudo-random values for every parameter but
// the input, parameter 0), and answers each request by running that one
// Executable from many goroutines at once, each with input and output
// tensors taken from a pool, so that running the model allocates nothing.
//
//	go run ./examples/service -model examples/mlp/mlp_b1.hlo [-weights FILE] [-addr localhost:8080]
//	curl localhost:8080/v1/model
//	curl -d '{"inputs": [[0.1, 0.2, …]]}' localhost:8080/v1/predict
//	curl localhost:8080/debug/vars
//
// A request holds one flat, row-major array of numbers per model input; the
// answer holds one per output, with the shapes. At most -max-concurrent
// requests run at once (the executable holds that many frames, no more); a
// request waits for its turn and its run for at most -timeout, and is
// answered 503 or 504 when that passes. Counters (requests, answers by kind,
// requests in flight, time spent running the model) are published with
// expvar at /debug/vars. SIGINT or SIGTERM stops the server after the
// requests in flight are answered.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

func main() {
	model := flag.String("model", "examples/mlp/mlp_b1.hlo", "HLO text file of the model to serve")
	weights := flag.String("weights", "", "weights bound by parameter name (.safetensors, .npz or .npy); default: deterministic demonstration values")
	addr := flag.String("addr", "localhost:8080", "address to listen on")
	maxConcurrent := flag.Int("max-concurrent", goruntime.GOMAXPROCS(0), "requests run at once; the others wait")
	timeout := flag.Duration("timeout", 2*time.Second, "how long a request may wait for its turn and run")
	flag.Parse()

	s, err := newServer(config{model: *model, weights: *weights, maxConcurrent: *maxConcurrent, timeout: *timeout})
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("serving %s on http://%s (inputs %s; %d at once, %v each)", *model, ln.Addr(), infoList(s.exe.Parameters()), *maxConcurrent, *timeout)
	if err := serve(ctx, ln, s.handler()); err != nil {
		log.Fatal(err)
	}
}

// serve answers HTTP requests on ln until ctx is done, then shuts down
// gracefully: it stops accepting and waits (up to ten seconds) for the
// requests in flight.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-done
}

// config is what the server is started with.
type config struct {
	model, weights string
	maxConcurrent  int           // requests run at once (≥ 1)
	timeout        time.Duration // per request: waiting for a turn and running
}

// counters are the server's expvar counters, published at /debug/vars
// under "service".
var counters = expvar.NewMap("service")

// server runs one compiled model for every request.
type server struct {
	exe     *runtime.Executable
	inputs  []ir.Shape
	outputs [][]int // result dimensions, as answered
	pool    sync.Pool
	slots   chan struct{} // one token per request running
	timeout time.Duration
}

// buffers are the tensors of one run and the JSON values that alias them.
type buffers struct {
	ins, outs []*runtime.Tensor
	views     [][]float32 // the inputs' elements, where requests decode to
	req       request
	resp      response
}

type request struct {
	Inputs [][]float32 `json:"inputs"`
}

type response struct {
	Outputs [][]float32 `json:"outputs"`
	Shapes  [][]int     `json:"shapes"`
}

// newServer compiles the model with its weights bound: by name from
// c.weights, or, when that is empty, every parameter but parameter 0 to
// demonstration values. The parameters left are the model's inputs and
// must be float32 arrays, as must its results.
func newServer(c config) (*server, error) {
	text, err := os.ReadFile(c.model)
	if err != nil {
		return nil, err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.model, err)
	}
	c.maxConcurrent = max(c.maxConcurrent, 1)
	opts := []runtime.Option{runtime.WithMaxConcurrentRuns(c.maxConcurrent)}
	if c.weights != "" {
		w, err := runtime.LoadWeights(c.weights)
		if err != nil {
			return nil, err
		}
		// Compile copies what it binds: the file's tensors can go after it.
		defer w.Close()
		opts = append(opts, runtime.WithWeights(w.Tensors()))
	} else {
		for i, p := range m.Entry.Parameters[min(1, len(m.Entry.Parameters)):] {
			t, err := demoTensor(p.Shape, uint64(i+1))
			if err != nil {
				return nil, fmt.Errorf("%s: parameter %d: %w", c.model, i+1, err)
			}
			opts = append(opts, runtime.WithParameter(i+1, t))
		}
	}
	exe, err := runtime.Compile(m, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.model, err)
	}
	s := &server{exe: exe, slots: make(chan struct{}, c.maxConcurrent), timeout: c.timeout}
	for _, p := range exe.Parameters() {
		if p.Shape.Elem != ir.F32 {
			return nil, fmt.Errorf("%s: input %s is %v; this service takes f32 inputs only", c.model, p.Name, p.Shape)
		}
		s.inputs = append(s.inputs, p.Shape)
	}
	for _, r := range exe.Results() {
		if r.Shape.Elem != ir.F32 {
			return nil, fmt.Errorf("%s: result %s is %v; this service answers f32 results only", c.model, r.Name, r.Shape)
		}
		s.outputs = append(s.outputs, r.Shape.Dims)
	}
	first, err := s.newBuffers()
	if err != nil {
		return nil, err
	}
	// Once one set of tensors is allocated, the same shapes cannot fail.
	s.pool.New = func() any { b, _ := s.newBuffers(); return b }
	s.pool.Put(first)
	return s, nil
}

// demoTensor fills a float32 tensor of shape s with deterministic values in
// [-a, a), a = 1/√(fan-in), so that a demonstration model's activations stay
// of order one. A real service loads trained weights instead (-weights).
func demoTensor(s ir.Shape, seed uint64) (*runtime.Tensor, error) {
	t, err := runtime.NewTensor(s.WithoutLayout())
	if err != nil {
		return nil, err
	}
	if s.Elem != ir.F32 {
		return nil, fmt.Errorf("demonstration values are f32, the parameter is %v", s)
	}
	fan := 1
	for _, d := range s.Dims[:max(len(s.Dims)-1, 0)] {
		fan *= d
	}
	a := 1 / math.Sqrt(float64(max(fan, 1)))
	state := seed*0x9e3779b97f4a7c15 + 1
	for i := range t.Float32s() {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		t.Float32s()[i] = float32(a * (2*float64(state>>11)/(1<<53) - 1))
	}
	return t, nil
}

// newBuffers allocates the tensors of one run.
func (s *server) newBuffers() (*buffers, error) {
	b := &buffers{resp: response{Shapes: s.outputs}}
	for _, sh := range s.inputs {
		t, err := runtime.NewTensor(sh)
		if err != nil {
			return nil, err
		}
		b.ins = append(b.ins, t)
		b.views = append(b.views, t.Float32s())
	}
	for _, sh := range s.exe.ResultShapes() {
		t, err := runtime.NewTensor(sh)
		if err != nil {
			return nil, err
		}
		b.outs = append(b.outs, t)
		b.resp.Outputs = append(b.resp.Outputs, t.Float32s())
	}
	return b, nil
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/predict", s.predict)
	mux.HandleFunc("GET /v1/model", s.describe)
	mux.Handle("GET /debug/vars", expvar.Handler())
	return mux
}

// describe answers the inputs the model takes and the outputs it returns.
func (s *server) describe(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]string{
		"inputs":  infoStrings(s.exe.Parameters()),
		"outputs": infoStrings(s.exe.Results()),
	})
}

// predict waits for a turn (at most s.timeout, with the run), decodes the
// inputs straight into pooled input tensors, runs the model into pooled
// output tensors, and encodes the outputs from them.
func (s *server) predict(w http.ResponseWriter, r *http.Request) {
	counters.Add("requests", 1)
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		counters.Add("busy", 1)
		writeError(w, http.StatusServiceUnavailable, "busy: %d requests running, none finished within %v", cap(s.slots), s.timeout)
		return
	}
	defer func() { <-s.slots }()
	counters.Add("in_flight", 1)
	defer counters.Add("in_flight", -1)

	b := s.pool.Get().(*buffers)
	defer s.pool.Put(b)
	limit := int64(1 << 10)
	for _, v := range b.views {
		limit += 32 * int64(len(v)) // room for any float32 in decimal
	}
	b.req.Inputs = append(b.req.Inputs[:0], b.views...)
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit)).Decode(&b.req); err != nil {
		counters.Add("bad_requests", 1)
		writeError(w, http.StatusBadRequest, "request body: %v", err)
		return
	}
	if len(b.req.Inputs) != len(b.views) {
		counters.Add("bad_requests", 1)
		writeError(w, http.StatusBadRequest, "want %d input arrays (%s), found %d", len(b.views), infoList(s.exe.Parameters()), len(b.req.Inputs))
		return
	}
	for i, in := range b.req.Inputs {
		// Decoding fills the tensor in place unless the array is longer.
		if len(in) != len(b.views[i]) || len(in) > 0 && &in[0] != &b.views[i][0] {
			counters.Add("bad_requests", 1)
			writeError(w, http.StatusBadRequest, "input %d: want %d numbers (%v, row-major), found %d", i, len(b.views[i]), s.inputs[i].StringWithoutLayout(), len(in))
			return
		}
	}
	start := time.Now()
	err := s.run(ctx, b)
	counters.Add("run_ns", time.Since(start).Nanoseconds())
	switch {
	case err == nil:
		counters.Add("ok", 1)
		writeJSON(w, http.StatusOK, &b.resp)
	case errors.Is(err, context.DeadlineExceeded):
		counters.Add("timeouts", 1)
		writeError(w, http.StatusGatewayTimeout, "the model did not answer within %v", s.timeout)
	case errors.Is(err, context.Canceled):
		counters.Add("cancelled", 1) // the client went away: nobody to answer
	case errors.Is(err, runtime.ErrArgument):
		counters.Add("bad_requests", 1)
		writeError(w, http.StatusBadRequest, "%v", err)
	default:
		counters.Add("errors", 1)
		writeError(w, http.StatusInternalServerError, "%v", err)
	}
}

// run is the model run of a request: RunInto over pooled tensors, which
// allocates nothing. It waits for a frame while the executable's
// WithMaxConcurrentRuns runs are in flight, and stops at ctx's deadline.
func (s *server) run(ctx context.Context, b *buffers) error {
	return s.exe.RunInto(ctx, b.outs, b.ins...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("writing the answer: %v", err)
	}
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

func infoStrings(vs []runtime.ValueInfo) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.Shape.StringWithoutLayout()
	}
	return s
}

func infoList(vs []runtime.ValueInfo) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}
