package runtime

import (
	"log/slog"
	"time"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"

	kiln "github.com/kilnml/kiln"
)

// Option configures Compile.
type Option func(*config)

type config struct {
	elided      func(*ir.Instruction) (*ir.Literal, error)
	params      map[int]*Tensor
	weights     map[string]*Tensor
	allowUnused bool
	threads     int
	noFusion    bool
	passes      ssa.Options
	maxRuns     int           // 0: no bound
	idleFrames  int           // negative: keep every frame
	idleAfter   time.Duration // how long a frame beyond idleFrames may idle
	memoryLimit int64         // 0: no limit
	logger      *slog.Logger
	// dynamicDims are the dimensions WithDynamicDim relaxes; keepDynamic
	// compiles dynamic shapes op by op (options_dynamic.go).
	dynamicDims []ir.DynamicDimension
	keepDynamic bool
}

func defaultConfig() *config {
	return &config{params: map[int]*Tensor{}, threads: kiln.Threads(), passes: ssa.OptionsFromEnv(),
		idleFrames: -1, idleAfter: DefaultIdleTimeout}
}

// WithParameter binds entry parameter i to t: the value is fixed at compile
// time (folded, and prepacked where a kernel wants it), and Run no longer
// takes it. Compile keeps a copy of its own: t may change or be dropped
// afterwards.
func WithParameter(i int, t *Tensor) Option {
	return func(c *config) { c.params[i] = t }
}

// WithWeights binds every entry parameter that one of the tensors names (see
// ParameterNames for the rule), as WithParameter does. Binding is strict: a
// tensor that binds to no parameter fails Compile with an error (wrapping
// ErrArgument) that names it and lists the parameters left unbound, unless
// AllowUnusedWeights is given; so does a tensor whose shape differs from its
// parameter's. Given more than once, the maps are merged (later ones win).
func WithWeights(tensors map[string]*Tensor) Option {
	return func(c *config) {
		if c.weights == nil {
			c.weights = map[string]*Tensor{}
		}
		for name, t := range tensors {
			c.weights[name] = t
		}
	}
}

// AllowUnusedWeights lets WithWeights carry tensors that bind to no
// parameter (a checkpoint holding more than one function's weights).
func AllowUnusedWeights() Option { return func(c *config) { c.allowUnused = true } }

// WithMaxConcurrentRuns bounds the runs in flight at once to n: at most n
// frames (each Stats().FrameBytes) exist, and a run beyond them waits for
// one to finish, or for its context, instead of allocating. n ≤ 0 removes
// the bound (the default: as many frames as runs ever in flight at once).
func WithMaxConcurrentRuns(n int) Option {
	return func(c *config) { c.maxRuns = max(n, 0) }
}

// DefaultIdleTimeout is how long a frame beyond WithIdleFrames may stay
// unused before it is released, unless WithIdleTimeout says otherwise.
const DefaultIdleTimeout = 5 * time.Second

// WithIdleFrames keeps k frames however long they are unused and releases
// the others once they have been idle for the idle timeout (see
// WithIdleTimeout), so that a burst of concurrent runs does not hold its
// memory for ever. Without it every frame is kept, so a steady state never
// allocates; with it, a burst beyond k after an idle period allocates its
// frames again.
func WithIdleFrames(k int) Option {
	return func(c *config) { c.idleFrames = max(k, 0) }
}

// WithIdleTimeout sets how long a frame beyond WithIdleFrames may stay unused
// before it is released (default DefaultIdleTimeout).
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.idleAfter = d
		}
	}
}

// WithMemoryLimit bounds the memory an executable uses to bytes. Compile
// refuses a plan whose constants (folded and packed weights) and one run —
// a frame (arena and scratch), the arguments and the results — need more,
// and bounds the frames to what the limit leaves room for after the
// constants (runs beyond wait, as with WithMaxConcurrentRuns); Run refuses
// an argument or result tensor larger than the limit. Each refusal wraps
// ErrMemoryLimit and says how much was needed and how much is allowed.
// bytes ≤ 0 removes the limit.
func WithMemoryLimit(bytes int64) Option {
	return func(c *config) { c.memoryLimit = max(bytes, 0) }
}

// WithLogger reports compile progress to l: one line per stage (verify,
// lower, bind, optimize, schedule, steps) with its duration, at debug level,
// and a summary at the end.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

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
