package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// examplesDir is where the bundled models are, relative to this package.
var examplesDir = "../examples"

// modelFiles maps a model name to its HLO file under examplesDir, by batch.
var modelFiles = map[string]string{
	"mlp":     "mlp/mlp_b%d.hlo",
	"cnn":     "cnn/cnn_b%d.hlo",
	"encoder": "transformer/encoder_b%d.hlo",
}

// model is one bundled example model at one batch size with deterministic
// values for every parameter: the values `kiln examples` (make run) and
// `kiln bench` use, seeded by the file's base name.
type model struct {
	Name   string // mlp, cnn or encoder
	Batch  int
	Module *ir.Module
	// Args are the values of the entry parameters in order; parameter 0 is
	// the model's input, the others its weights.
	Args []*ir.Literal
	// ByPath holds the same values by the parameter's JAX path joined with
	// "/" ("x", "Dense_0/kernel", "attention/query/bias", …).
	ByPath map[string]*ir.Literal
}

// loadModel reads and verifies a bundled model and fills its parameters.
func loadModel(name string, batch int) (*model, error) {
	rel, ok := modelFiles[name]
	if !ok {
		return nil, fmt.Errorf("bench: no example model %q (want mlp, cnn or encoder)", name)
	}
	path := filepath.Join(examplesDir, fmt.Sprintf(rel, batch))
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	if err := m.Verify(); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	seed := strings.TrimSuffix(filepath.Base(path), ".hlo")
	md := &model{Name: name, Batch: batch, Module: m, ByPath: map[string]*ir.Literal{}}
	for i, p := range m.Entry.Parameters {
		l := detrand.Literal(p.Shape, detrand.Seed(seed, i))
		md.Args = append(md.Args, l)
		md.ByPath[jaxPath(p)] = l
	}
	return md, nil
}

var quotedElem = regexp.MustCompile(`\['([^']*)'\]`)

// jaxPath is a parameter's op_name metadata as a "/"-joined path:
// params['Dense_0']['kernel'] → Dense_0/kernel; x → x.
func jaxPath(p *ir.Instruction) string {
	meta, _ := p.RawAttr("metadata")
	_, op, ok := strings.Cut(meta, `op_name="`)
	if !ok {
		return p.Name
	}
	op, _, _ = strings.Cut(op, `"`)
	var parts []string
	for _, m := range quotedElem.FindAllStringSubmatch(op, -1) {
		parts = append(parts, m[1])
	}
	if len(parts) == 0 {
		return op
	}
	return strings.Join(parts, "/")
}

// f32 returns the float32 values of the parameter at path, or panics: the
// models are fixed, so a missing path is a bug in this package.
func (m *model) f32(path string) []float32 {
	l, ok := m.ByPath[path]
	if !ok {
		panic(fmt.Sprintf("bench: model %s has no parameter %q", m.Name, path))
	}
	return l.Float32s()
}

// input is the model's input (parameter 0).
func (m *model) input() []float32 { return m.Args[0].Float32s() }

// kilnModel is a model compiled by Kiln with its weights bound at compile time
// (so they are packed once), taking the input at run time.
type kilnModel struct {
	Exe  *runtime.Executable
	In   *runtime.Tensor
	Outs []*runtime.Tensor
}

// compileOptions bind every parameter but the input to its deterministic
// value, plus extra options.
func (m *model) compileOptions(extra ...runtime.Option) []runtime.Option {
	opts := append([]runtime.Option(nil), extra...)
	for i := 1; i < len(m.Args); i++ {
		opts = append(opts, runtime.WithParameter(i, runtime.TensorFromLiteral(m.Args[i])))
	}
	return opts
}

// compileKiln compiles the model with its weights bound and prepares the
// input and output tensors for RunInto.
func (m *model) compileKiln(extra ...runtime.Option) (*kilnModel, error) {
	exe, err := runtime.Compile(m.Module, m.compileOptions(extra...)...)
	if err != nil {
		return nil, err
	}
	k := &kilnModel{Exe: exe, In: runtime.TensorFromLiteral(m.Args[0])}
	for _, s := range exe.ResultShapes() {
		t, err := runtime.NewTensor(s)
		if err != nil {
			return nil, err
		}
		k.Outs = append(k.Outs, t)
	}
	return k, nil
}

// Run runs the model once on its input; the result is in Outs[0].
func (k *kilnModel) Run() error {
	return k.Exe.RunInto(context.Background(), k.Outs, k.In)
}

// modelFLOPs is one forward pass's work in dots and convolutions (two per
// multiply-add; the convolutions' padding taps included).
func modelFLOPs(name string, batch int) float64 {
	b := float64(batch)
	switch name {
	case "mlp":
		return b * 2 * (784*512 + 512*512 + 512*10)
	case "cnn":
		return b * 2 * (32*32*16*9*3 + 16*16*32*9*16 + 8*8*64*9*32 + 1024*10)
	case "encoder":
		const s, h = encSeq, encHidden
		return b * (2*s*(4*h*h+2*h*encFFN) + 4*s*s*h)
	}
	panic("bench: unknown model " + name)
}
