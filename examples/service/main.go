// Command service serves one of Kiln's example models over HTTP.
//
// It compiles the model once at start-up, with its weights bound (read by
// parameter name from a .safetensors, .npz or .npy file, or else the
// deterministic values `make run` uses for every parameter but the input,
// parameter 0), and answers each request by running that one Executable:
// from many goroutines at once, each with input and output tensors taken
// from a pool, so that running the model allocates nothing.
//
//	go run ./examples/service -model examples/mlp/mlp_b1.hlo [-weights FILE] [-addr localhost:8080]
//	curl localhost:8080/v1/model
//	curl -d '{"inputs": [[0.1, 0.2, …]]}' localhost:8080/v1/predict
//
// A request holds one flat, row-major array of numbers per model input; the
// answer holds one per output, with the shapes. SIGINT or SIGTERM stops the
// server after the requests in flight are answered.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

func main() {
	model := flag.String("model", "examples/mlp/mlp_b1.hlo", "HLO file of the model to serve")
	weights := flag.String("weights", "", "weights bound by parameter name (.safetensors, .npz or .npy); default: deterministic values")
	addr := flag.String("addr", "localhost:8080", "address to listen on")
	flag.Parse()

	s, err := newServer(*model, *weights)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Printf("serving %s on http://%s (inputs %s)", *model, ln.Addr(), shapeList(s.exe.ParameterShapes()))
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

// server runs one compiled model for every request.
type server struct {
	exe     *runtime.Executable
	inputs  []ir.Shape
	outputs [][]int // result dimensions, as answered
	pool    sync.Pool
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

// newServer compiles the model at path with its weights bound: by name
// from weightsPath, or, when that is empty, every parameter but parameter 0
// to deterministic values. The parameters left are the model's inputs and
// must be float32 arrays, as must its results.
func newServer(path, weightsPath string) (*server, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var opts []runtime.Option
	if weightsPath != "" {
		tensors, err := runtime.LoadWeights(weightsPath)
		if err != nil {
			return nil, err
		}
		opts = append(opts, runtime.WithWeights(tensors.Tensors()))
	} else {
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		for i, p := range m.Entry.Parameters[min(1, len(m.Entry.Parameters)):] {
			l := detrand.Literal(p.Shape, detrand.Seed(name, i+1))
			opts = append(opts, runtime.WithParameter(i+1, runtime.TensorFromLiteral(l)))
		}
	}
	exe, err := runtime.Compile(m, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &server{exe: exe, inputs: exe.ParameterShapes()}
	for i, sh := range s.inputs {
		if sh.Elem != ir.F32 {
			return nil, fmt.Errorf("%s: input %d is %v; this service takes f32 inputs only", path, i, sh)
		}
	}
	for i, sh := range exe.ResultShapes() {
		if sh.Elem != ir.F32 {
			return nil, fmt.Errorf("%s: result %d is %v; this service answers f32 results only", path, i, sh)
		}
		s.outputs = append(s.outputs, sh.Dims)
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
	return mux
}

// describe answers the shapes the model takes and returns.
func (s *server) describe(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]string{
		"inputs":  shapeStrings(s.inputs),
		"outputs": shapeStrings(s.exe.ResultShapes()),
	})
}

// predict decodes the inputs straight into pooled input tensors, runs the
// model into pooled output tensors, and encodes the outputs from them.
func (s *server) predict(w http.ResponseWriter, r *http.Request) {
	b := s.pool.Get().(*buffers)
	defer s.pool.Put(b)
	limit := int64(1 << 10)
	for _, v := range b.views {
		limit += 32 * int64(len(v)) // room for any float32 in decimal
	}
	b.req.Inputs = append(b.req.Inputs[:0], b.views...)
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit)).Decode(&b.req); err != nil {
		writeError(w, http.StatusBadRequest, "request body: %v", err)
		return
	}
	if len(b.req.Inputs) != len(b.views) {
		writeError(w, http.StatusBadRequest, "want %d input arrays (%s), found %d", len(b.views), shapeList(s.inputs), len(b.req.Inputs))
		return
	}
	for i, in := range b.req.Inputs {
		// Decoding fills the tensor in place unless the array is longer.
		if len(in) != len(b.views[i]) || len(in) > 0 && &in[0] != &b.views[i][0] {
			writeError(w, http.StatusBadRequest, "input %d: want %d numbers (%v, row-major), found %d", i, len(b.views[i]), s.inputs[i], len(in))
			return
		}
	}
	if err := s.run(r.Context(), b); err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, &b.resp)
}

// run is the model run of a request: RunInto over pooled tensors, which
// allocates nothing.
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

func shapeStrings(shapes []ir.Shape) []string {
	s := make([]string, len(shapes))
	for i, sh := range shapes {
		s[i] = sh.StringWithoutLayout()
	}
	return s
}

func shapeList(shapes []ir.Shape) string { return strings.Join(shapeStrings(shapes), ", ") }
