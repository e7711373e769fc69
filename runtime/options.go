package runtime

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"

	kiln "github.com/kilnml/kiln"
)

// Option configures Compile.
type Option func(*config)

type config struct {
	elided   func(*ir.Instruction) (*ir.Literal, error)
	params   map[int]*Tensor
	weights  *weightSet
	threads  int
	noFusion bool
	passes   ssa.Options
}

func defaultConfig() *config {
	return &config{params: map[int]*Tensor{}, threads: kiln.Threads(), passes: ssa.OptionsFromEnv()}
}

// WithParameter binds entry parameter i to t: the value is fixed at compile
// time (folded, and prepacked where a kernel wants it), and Run no longer
// takes it. The tensor must not change afterwards.
func WithParameter(i int, t *Tensor) Option {
	return func(c *config) { c.params[i] = t }
}

// WithWeights binds every entry parameter whose name matches a tensor's name
// (see weightSet.lookup for the matching rules), as WithParameter does.
func WithWeights(tensors map[string]*Tensor) Option {
	return func(c *config) { c.weights = &weightSet{tensors: tensors} }
}

// WithElidedConstants supplies the values of the module's constants printed
// as `constant({...})`, which Compile otherwise refuses: fill is called once
// per such constant, in module order, and Compile writes the values it
// returns into the module. ir.NewElidedConstantFiller gives XLA's
// deterministic fill (its fill_shortform_constants_with_random_values).
func WithElidedConstants(fill func(c *ir.Instruction) (*ir.Literal, error)) Option {
	return func(c *config) { c.elided = fill }
}

// WithThreads sets how many cores big kernels are split across (default:
// kiln.Threads(), which is GOMAXPROCS unless kiln.SetThreads changed it).
func WithThreads(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.threads = n
		}
	}
}

// WithoutFusion compiles every value into a kernel of its own (for
// debugging, and to test fusion against the unfused plan).
func WithoutFusion() Option { return func(c *config) { c.noFusion = true } }

// WithPassOptions replaces the SSA pass options (by default read from
// KILN_DISABLE_PASS and KILN_DUMP).
func WithPassOptions(o ssa.Options) Option { return func(c *config) { c.passes = o } }

// weightSet matches named tensors to parameters.
type weightSet struct {
	tensors map[string]*Tensor
}

var quotedPath = regexp.MustCompile(`\['([^']*)'\]|\["([^"]*)"\]|\[(\d+)\]`)

// lookup finds the tensor for parameter p. A tensor matches when its name
// equals the parameter's instruction name, its metadata op_name, or the
// op_name's path with `/` or `.` separators: op_name="params['Dense_0']['kernel']"
// matches "params['Dense_0']['kernel']", "Dense_0/kernel", "Dense_0.kernel",
// "params/Dense_0/kernel" and "params.Dense_0.kernel".
func (w *weightSet) lookup(p *ir.Instruction) (*Tensor, bool) {
	for _, name := range parameterNames(p) {
		if t, ok := w.tensors[name]; ok {
			return t, true
		}
	}
	return nil, false
}

func parameterNames(p *ir.Instruction) []string {
	names := []string{p.Name}
	meta, ok := p.RawAttr("metadata")
	if !ok {
		return names
	}
	i := strings.Index(meta, `op_name="`)
	if i < 0 {
		return names
	}
	rest := meta[i+len(`op_name="`):]
	j := strings.Index(rest, `"`)
	if j < 0 {
		return names
	}
	op := strings.ReplaceAll(rest[:j], `\'`, `'`)
	names = append(names, op)
	head := op
	if k := strings.IndexByte(op, '['); k >= 0 {
		head = op[:k]
	}
	var parts []string
	for _, m := range quotedPath.FindAllStringSubmatch(op, -1) {
		parts = append(parts, m[1]+m[2]+m[3])
	}
	if len(parts) > 0 {
		for _, sep := range []string{"/", "."} {
			names = append(names, strings.Join(parts, sep))
			if head != "" {
				names = append(names, head+sep+strings.Join(parts, sep))
			}
		}
	}
	return names
}

func (w *weightSet) String() string { return fmt.Sprintf("%d tensors", len(w.tensors)) }
