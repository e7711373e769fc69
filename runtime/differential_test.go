package runtime_test

// The differential test: for every op of the operation-semantics seed and
// every element type the op takes, random modules (random shapes with
// size-0 and size-1 dimensions, shapes that cross the loop tile and the
// thread split, random valid attributes, operands reached through fusable
// transposes, broadcasts, slices and reshapes, random inputs with NaNs,
// infinities, signed zeros and subnormals) are compiled with runtime.Compile
// (fused, and without fusion for the first cases and for every elementwise
// op), run, and each output is compared with the reference evaluator
// ir/eval, the oracle. Every case runs three times (Run, then RunInto over
// outputs filled with 0xff and 0x5a, so an element no kernel writes shows),
// one case per op and type also from four goroutines at once, and the
// arguments must come back unmodified. The three example models are
// compared in differential_models_test.go.
//
// The type list of each op is checked against the builder: every other
// element type must be refused when the module is built. A module ir/eval
// does not define (it reports the op unsupported for the type, or the op
// needs a host: infeed, outfeed, send, recv) must be refused by the
// compiled path too, by Compile or Run, with an error naming the op.
//
// Bounds, compiled result against ir/eval, element by element:
//
//	exact      bit-for-bit equal. A NaN must meet a NaN (sign and payload may
//	           differ); everything else, ±0 included, must have the same bits.
//	ulp(n)     floats within n units in the last place of the result type,
//	           counted along the ordered list of the type's values (+0 and −0
//	           count as one value); NaN meets NaN, ±Inf must match exactly.
//	           For results narrower than f32 the bound is max(n, 1): an
//	           implementation may round through f32 where ir/eval rounds
//	           through f64.
//	accum      sums of K terms (dot, convolution, add-reductions, scatter-add,
//	           select-and-scatter): |got − want| ≤ (K+1)·ε·M, where
//	           ε = 2^−mantissa of the result type and M is the same module
//	           evaluated on the absolute values of its inputs (Σ|terms|; for
//	           complex inputs |re|+|im|), or one ULP for results narrower than
//	           f32. Any summation order and any FMA use stays inside it.
//	rel(c)     complex results: |got − want| ≤ c·ε·|want| per part (|want|
//	           the modulus), or within c ULPs part by part.
//	norm(c)    composite ops: |got − want| ≤ c·n·ε·max(1, max|want|), n the
//	           problem size (matrix order, transform length, row length,
//	           elements per feature), on well-conditioned inputs.
//
// Per op (opBounds and complexBounds below are what the test uses):
//
//	exact:    every op on integer and PRED types; every data-movement op
//	          (broadcast, reshape, transpose, reverse, slice, dynamic-slice,
//	          dynamic-update-slice, concatenate, pad, gather, scatter with
//	          overwrite, sort, top-k, tuple, get-tuple-element, copy, iota,
//	          constant, bitcast-convert, while/conditional/call plumbing,
//	          the collectives on one replica); on floats add, subtract,
//	          multiply, divide, remainder, sqrt, negate, abs, sign, maximum,
//	          minimum, clamp, select, compare, floor, ceil, the roundings,
//	          convert, reduce-precision, is-finite, real, imag, complex;
//	          maximum/minimum reductions and windows.
//	ulp(2):   rsqrt, cbrt, exponential, exponential-minus-one, log,
//	          log-plus-one, tanh, erf; ulp(3): logistic — the vector kernels'
//	          stated bounds against exact results (0.8 to 2.3 ULP) plus the
//	          half ULP of ir/eval's correctly rounded one.
//	ulp(4):   sine, cosine, atan2; ulp(8): tan, power (no vector kernels yet:
//	          room for them).
//	ulp(2K):  multiply reductions over K terms.
//	rel(8):   complex multiply, divide, sqrt, rsqrt, abs, sign.
//	rel(32):  complex transcendental ops and power.
//	accum:    dot, dot_general, convolution, reduce and reduce-window with an
//	          add reducer, scatter with add, select-and-scatter, map.
//	norm(8):  softmax (row length n); norm(16): layer norm (row length n);
//	norm(32): GELU (n = 1), cholesky, triangular-solve (n the order), fft
//	          (n the transform size), batch-norm-* (n the elements per
//	          feature).
//	range:    rng with the uniform and normal distributions has no reference
//	          stream; values must lie in [a, b) (uniform) or not be NaN.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

// casesPerType is how many random modules each op gets per element type:
// one with a size-0 dimension, one with size-1 dimensions, and random ones
// (the last of which may be large enough to cross the loop tile size).
const casesPerType = 4

// seedOffset, from KILN_DIFFERENTIAL_SEED, varies every case's seed for
// exploratory runs (the default 0 gives the cases CI runs; a failure report
// names the seed it used).
var seedOffset = func() uint64 {
	v, _ := strconv.ParseUint(os.Getenv("KILN_DIFFERENTIAL_SEED"), 0, 64)
	return v
}()

// caseTimeout is how long one case may take before the watchdog reports it.
const caseTimeout = 20 * time.Second

// boundKind says how a float output is compared.
type boundKind uint8

const (
	boundExact boundKind = iota
	boundULP
	boundAccum
	boundRel
	boundNorm
	boundRange // rng: range and shape only
)

// bound is how closely an op's compiled float results must match ir/eval.
type bound struct {
	kind boundKind
	n    float64 // ULPs (ulp), or the constant c (rel, norm)
}

var (
	exact = bound{kind: boundExact}
	accum = bound{kind: boundAccum}
)

func ulp(n float64) bound  { return bound{kind: boundULP, n: n} }
func rel(c float64) bound  { return bound{kind: boundRel, n: c} }
func norm(c float64) bound { return bound{kind: boundNorm, n: c} }

func (b bound) String() string {
	switch b.kind {
	case boundExact:
		return "exact"
	case boundULP:
		return fmt.Sprintf("%g ULP", b.n)
	case boundAccum:
		return "(K+1)·ε·Σ|terms|"
	case boundRel:
		return fmt.Sprintf("%g·ε·|want|", b.n)
	case boundNorm:
		return fmt.Sprintf("%g·n·ε·max|want|", b.n)
	}
	return "range"
}

// opBounds are the bounds of the ops whose float results may differ from
// ir/eval's; every other op is exact. Complex results use complexBounds.
var opBounds = map[string]bound{
	"rsqrt": ulp(2), "cbrt": ulp(2),
	"exponential": ulp(2), "exponential-minus-one": ulp(2), "log": ulp(2), "log-plus-one": ulp(2),
	"tanh": ulp(2), "erf": ulp(2), "logistic": ulp(3),
	"sine": ulp(4), "cosine": ulp(4), "atan2": ulp(4), "tan": ulp(8), "power": ulp(8),
	"cosh": ulp(4), "sinh": ulp(4), "asin": ulp(4), "acos": ulp(4), "atan": ulp(4),
	"asinh": ulp(4), "acosh": ulp(4), "atanh": ulp(4), "scaled-dot": accum,
	"dot": accum, "convolution": accum, "reduce-add": accum, "reduce-window-add": accum,
	"all-reduce": accum, "cross-replica-sum": accum, "reduce-scatter": accum, "map": accum,
	"scatter-add": accum, "select-and-scatter": accum,
	"cholesky": norm(32), "triangular-solve": norm(32), "fft": norm(32),
	"softmax": norm(8), "layer-norm": norm(16), "gelu": norm(32),
	"batch-norm-training": norm(32), "batch-norm-inference": norm(32), "batch-norm-grad": norm(32),
	"rng-normal": {kind: boundRange}, "rng-uniform": {kind: boundRange},
}

// complexBounds are the bounds of ops on complex values (per real part).
var complexBounds = map[string]bound{
	"multiply": rel(8), "divide": rel(8), "sqrt": rel(8), "rsqrt": rel(8), "abs": rel(8), "sign": rel(8),
	"exponential": rel(32), "exponential-minus-one": rel(32), "log": rel(32), "log-plus-one": rel(32),
	"logistic": rel(32), "tanh": rel(32), "sine": rel(32), "cosine": rel(32), "tan": rel(32),
	"cbrt": rel(32), "power": rel(32), "atan2": rel(32),
	"cosh": rel(32), "sinh": rel(32), "asin": rel(32), "acos": rel(32), "atan": rel(32),
	"asinh": rel(32), "acosh": rel(32), "atanh": rel(32),
}

// boundFor is the bound of the op named by a generator for element type t.
func boundFor(op string, t ir.ElementType) bound {
	if t.IsComplex() {
		if b, ok := complexBounds[op]; ok {
			return b
		}
	}
	if b, ok := opBounds[op]; ok {
		return b
	}
	return exact
}

// knownFailures lists the cases that fail today, with their cause, keyed
// "op/type" (every case of the type), "op/*" (every type) or
// "op/type@seed=S,case=I" (one pinned case). A listed case still runs;
// when every failure of an op and type is listed the subtest is skipped
// with the reasons and the reports, and when a listed case passes the log
// says so (the entry can then be removed).
var knownFailures = map[string]string{
	"rng-normal/f8e5m2":   "the compiled plan and ir/eval both give NaN: Box-Muller clamps u at 1e-7, which rounds to 0 in f8, and log(0)·sin(0) is NaN",
	"rng-normal/f8e4m3fn": "the compiled plan and ir/eval both give NaN: Box-Muller clamps u at 1e-7, which rounds to 0 in f8, and log(0)·sin(0) is NaN",
	"clamp/c64":           "clamp on complex, which ir/eval does not define, is decomposed into maximum and minimum and refused only when run, by an error naming maximum",
	"clamp/c128":          "clamp on complex, which ir/eval does not define, is decomposed into maximum and minimum and refused only when run, by an error naming maximum",
}

// compilerUnsupported lists ops the compiler documents as unsupported:
// Compile must fail with an error naming the op.
var compilerUnsupported = map[string]string{}

// TestDifferential runs every generator of opTable over every element type.
func TestDifferential(t *testing.T) {
	impls := &implLog{seen: map[string]map[string]bool{}}
	t.Cleanup(func() { t.Logf("implementations the plans used, by op:\n%s", impls) })
	for _, og := range opTable {
		t.Run(og.name, func(t *testing.T) {
			t.Parallel()
			for _, et := range ir.ElementTypes {
				if !og.types(et) {
					if !og.variant {
						checkRejected(t, og, et)
					}
					continue
				}
				t.Run(et.String(), func(t *testing.T) {
					var failures []caseFailure
					for i := range og.caseCount() {
						failures = append(failures, runCase(t, og, et, i, 0, impls)...)
					}
					for _, p := range pinnedCases {
						if p.op == og.name && p.t == et {
							failures = append(failures, runCase(t, og, et, p.idx, p.seed, impls)...)
						}
					}
					reportFailures(t, og, et, failures)
				})
			}
		})
	}
}

// checkRejected asserts that the builder refuses an op for an element type
// the table says the op does not take, so that the table's type lists cover
// every type each op accepts.
func checkRejected(t *testing.T, og *opGen, et ir.ElementType) {
	t.Helper()
	g := newGen(detrand.Seed(t.Name()+"/"+et.String(), 0), modeRandom)
	c, err := g.build(og, et)
	if err == nil && c != nil {
		t.Errorf("%s accepts element type %s, which the differential table does not cover:\n%s", og.name, et, c.m)
	}
}

// runCase builds case i of generator og for element type et (its seed
// derived from the test name, the case and offset), compiles it (fused,
// unfused for the first cases, with parameters bound for the random ones),
// runs it and compares with ir/eval; it returns the case's failure, if any.
func runCase(t *testing.T, og *opGen, et ir.ElementType, i int, offset uint64, impls *implLog) []caseFailure {
	t.Helper()
	seed := detrand.Seed(t.Name(), i) ^ offset ^ seedOffset
	g := newGen(seed, caseMode(i))
	c, err := g.build(og, et)
	if err != nil {
		t.Fatalf("case %d (seed %#x): the generator built an invalid module: %v", i, seed, err)
	}
	r := &reporter{t: t, og: og, et: et, idx: i, seed: seed, c: c, impls: impls}
	// A compiler that loops forever would only show as the test binary's
	// timeout; the watchdog names the case and prints its module first.
	watchdog := time.AfterFunc(caseTimeout, func() {
		fmt.Fprintf(os.Stderr, "%s: case %d (seed %#x) has run for %v:\n%s\n", t.Name(), i, seed, caseTimeout, c.m)
	})
	defer watchdog.Stop()
	want, err := evalFlat(c.m, c.args)
	var unsupported *eval.UnsupportedError
	switch {
	case og.needsHost && err == nil:
		r.failf("ir/eval ran an op that needs a host on the other side, with none given")
	case og.needsHost:
		impls.mark(og.name, et, "refused")
		r.expectRefusal(err.Error(), og.hloName())
	case errors.As(err, &unsupported):
		impls.mark(og.name, et, "refused")
		r.expectRefusal(unsupported.Error(), unsupported.Op.String())
	case err != nil:
		r.failf("ir/eval fails on the module: %v", err)
	default:
		impls.mark(og.name, et, "compared")
		r.compileAndCompare(want, c.bound(og, et), compileMode{})
		if i < 2 || og.fusion && caseMode(i) != modeHuge {
			r.compileAndCompare(want, c.bound(og, et), compileMode{unfused: true})
		}
		if caseMode(i) == modeRandom {
			r.compileAndCompare(want, c.bound(og, et), compileMode{bound: true})
		}
	}
	if !r.failed {
		return nil
	}
	id := fmt.Sprintf("case=%d", i)
	if offset != 0 {
		id = fmt.Sprintf("seed=%d,case=%d", offset, i)
	}
	return []caseFailure{{id: id, msg: r.msg.String()}}
}

// caseFailure is the report of one failed case; id names the case in
// knownFailures keys ("case=2", or "seed=1,case=4" for a pinned case).
type caseFailure struct {
	id, msg string
}

// reportFailures fails the test for the failures knownFailures does not
// list, or skips it with the reasons when it lists them all.
func reportFailures(t *testing.T, og *opGen, et ir.ElementType, failures []caseFailure) {
	t.Helper()
	key := og.name + "/" + et.String()
	lookup := func(id string) (string, bool) {
		for _, k := range []string{key + "@" + id, key, og.name + "/*"} {
			if why, ok := knownFailures[k]; ok {
				return why, true
			}
		}
		return "", false
	}
	var known []string
	unknown := false
	for _, f := range failures {
		if why, ok := lookup(f.id); ok {
			known = append(known, fmt.Sprintf("known failure (%s):\n%s", why, f.msg))
			continue
		}
		unknown = true
		t.Error(f.msg)
	}
	switch {
	case unknown && len(known) > 0:
		t.Log(strings.Join(known, "\n"))
	case len(known) > 0:
		t.Skip(strings.Join(known, "\n"))
	default:
		for k, why := range knownFailures {
			if k == key || strings.HasPrefix(k, key+"@") || k == og.name+"/*" {
				t.Logf("%s is listed as a known failure (%s), but every case passed", k, why)
			}
		}
	}
}

// pinnedCase is a case an exploratory run (KILN_DIFFERENTIAL_SEED=seed)
// found failing, kept so that CI runs it too.
type pinnedCase struct {
	op   string
	t    ir.ElementType
	idx  int
	seed uint64
}

var pinnedCases = []pinnedCase{
	{"convolution", ir.F32, 4, 1},
	{"convolution-client", ir.F32, 4, 1},
	{"slice", ir.U4, 2, 1},
	{"slice", ir.S32, 2, 2},
	{"clamp", ir.F8E4M3FN, 2, 1},
	{"fused-dag", ir.F32, 3, 8},
	{"dot-epilogue", ir.F32, 0, 7},
	{"reduce-variadic", ir.F32, 3, 12},
	{"layer-norm", ir.F32, 4, 14},
	{"reduce-variadic", ir.F8E5M2, 2, 35},
	{"reduce", ir.F32, 4, 24},
	{"layer-norm", ir.F32, 2, 61},
	{"dot-epilogue", ir.F32, 0, 73},
	{"dot-epilogue", ir.F32, 5, 122},
	{"reduce-window", ir.F32, 5, 105},
	{"reduce-window", ir.F8E5M2, 3, 101},
}

// reporter runs one case and collects its failure report.
type reporter struct {
	t      *testing.T
	og     *opGen
	et     ir.ElementType
	idx    int
	seed   uint64
	c      *dcase
	failed bool
	msg    strings.Builder
	stats  string
	impls  *implLog
}

// implLog records, per op, the kernel implementations its plans used
// ("loop", "gemm", "reference", …), for the test log.
type implLog struct {
	mu   sync.Mutex
	seen map[string]map[string]bool
	uses map[string]boundUse // by op/type: the most of its bound a case took
	// kinds: by op, by "compared" (with ir/eval) or "refused" (by both
	// sides), the element types with such cases.
	kinds map[string]map[string]map[ir.ElementType]bool
}

func (l *implLog) mark(op string, t ir.ElementType, kind string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kinds == nil {
		l.kinds = map[string]map[string]map[ir.ElementType]bool{}
	}
	if l.kinds[op] == nil {
		l.kinds[op] = map[string]map[ir.ElementType]bool{}
	}
	if l.kinds[op][kind] == nil {
		l.kinds[op][kind] = map[ir.ElementType]bool{}
	}
	l.kinds[op][kind][t] = true
}

func (l *implLog) use(op string, t ir.ElementType, u boundUse) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if u == (boundUse{}) {
		return
	}
	if l.uses == nil {
		l.uses = map[string]boundUse{}
	}
	k := op + "/" + t.String()
	w := l.uses[k]
	l.uses[k] = boundUse{ulps: math.Max(w.ulps, u.ulps), used: math.Max(w.used, u.used)}
}

func (l *implLog) add(op string, s runtime.Stats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[op] == nil {
		l.seen[op] = map[string]bool{}
	}
	for _, k := range s.Kernels {
		l.seen[op][k.Impl] = true
	}
}

func (l *implLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var sb strings.Builder
	for _, op := range slices.Sorted(maps.Keys(l.seen)) {
		fmt.Fprintf(&sb, "  %-28s %s\n", op, strings.Join(slices.Sorted(maps.Keys(l.seen[op])), " "))
	}
	sb.WriteString("element types compared with ir/eval, and refused by both sides, by op:\n")
	for _, op := range slices.Sorted(maps.Keys(l.kinds)) {
		fmt.Fprintf(&sb, "  %-28s", op)
		for _, kind := range []string{"compared", "refused"} {
			var names []string
			for _, t := range ir.ElementTypes {
				if l.kinds[op][kind][t] {
					names = append(names, t.String())
				}
			}
			if len(names) > 0 {
				fmt.Fprintf(&sb, " %s %d: %s;", kind, len(names), strings.Join(names, " "))
			}
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("largest difference from ir/eval seen, in ULPs, and the fraction of its bound it took, by op/type:\n")
	for _, k := range slices.Sorted(maps.Keys(l.uses)) {
		fmt.Fprintf(&sb, "  %-40s %8.3g ULP  %5.3f of the bound\n", k, l.uses[k].ulps, l.uses[k].used)
	}
	return sb.String()
}

func (r *reporter) failf(format string, args ...any) {
	if r.failed {
		return // the first failure of a case is the one worth reading
	}
	r.failed = true
	fmt.Fprintf(&r.msg, "op %s, element type %s, case %d (seed %#x): ", r.og.name, r.et, r.idx, r.seed)
	fmt.Fprintf(&r.msg, format, args...)
	r.msg.WriteString("\n  parameters:")
	for _, a := range r.c.args {
		fmt.Fprintf(&r.msg, " %s", a.Shape().StringWithoutLayout())
	}
	if r.c.note != "" {
		fmt.Fprintf(&r.msg, "\n  attributes: %s", r.c.note)
	}
	if r.stats != "" {
		fmt.Fprintf(&r.msg, "\n  plan: %s", strings.ReplaceAll(strings.TrimSpace(r.stats), "\n", "\n  "))
	}
	fmt.Fprintf(&r.msg, "\n  module:\n    %s", strings.ReplaceAll(strings.TrimSpace(r.c.m.String()), "\n", "\n    "))
}

// compileAndCompare compiles the case (without fusion if unfused), runs it
// three times (Run on fresh outputs, then RunInto twice on outputs filled
// with garbage, so that an element a kernel forgets to write shows), checks
// the arguments were not modified, and compares the outputs with want.
func (r *reporter) compileAndCompare(want []*ir.Literal, b bound, mode compileMode) {
	how := "compiled"
	var opts []runtime.Option
	if mode.unfused {
		how = "compiled without fusion"
		opts = append(opts, runtime.WithoutFusion())
	}
	all := r.tensors()
	args := all
	if mode.bound {
		// Every parameter but the first (or the only one) becomes a
		// constant: folded, simplified, prepacked.
		how += " with parameters bound"
		args = nil
		for j, t := range all {
			if j == 0 && len(all) > 1 {
				args = append(args, t)
				continue
			}
			opts = append(opts, runtime.WithParameter(j, t))
		}
	}
	if caseMode(r.idx) == modeHuge {
		how += " for 4 threads"
		opts = append(opts, runtime.WithThreads(4))
	}
	exe, err := compileSafely(r.c.m, opts...)
	if err != nil {
		if why, ok := compilerUnsupported[r.og.name]; ok {
			if !strings.Contains(err.Error(), r.og.hloName()) {
				r.failf("Compile refuses the op (documented: %s) with an error that does not name %q: %v", why, r.og.hloName(), err)
			}
			return
		}
		r.failf("Compile (%s) fails: %v", how, err)
		return
	}
	if why, ok := compilerUnsupported[r.og.name]; ok {
		r.failf("Compile accepts the op, documented as unsupported (%s)", why)
		return
	}
	r.stats = exe.Stats().String()
	r.impls.add(r.og.name, exe.Stats())
	if pshapes := exe.ParameterShapes(); len(pshapes) != len(args) {
		r.failf("%s: the executable takes %d arguments, %d are given", how, len(pshapes), len(args))
		return
	}
	if shapes := exe.ResultShapes(); len(shapes) != len(want) {
		r.failf("%s: %d results, ir/eval returns %d", how, len(shapes), len(want))
		return
	}
	for run, poison := range []int{-1, 0xff, 0x5a} {
		var outs []*runtime.Tensor
		if poison < 0 {
			outs, err = runSafely(func() ([]*runtime.Tensor, error) { return exe.Run(context.Background(), args...) })
		} else {
			outs = make([]*runtime.Tensor, len(want))
			for i, s := range exe.ResultShapes() {
				outs[i], err = runtime.NewTensor(s)
				if err != nil {
					r.failf("NewTensor(%v): %v", s, err)
					return
				}
				for j := range outs[i].Bytes() {
					outs[i].Bytes()[j] = byte(poison)
				}
			}
			_, err = runSafely(func() ([]*runtime.Tensor, error) {
				return nil, exe.RunInto(context.Background(), outs, args...)
			})
		}
		if err != nil {
			r.failf("%s: run %d fails: %v", how, run+1, err)
			return
		}
		for i, o := range outs {
			if want[i].Shape().IsToken() {
				if !o.Shape().IsToken() {
					r.failf("%s: output %d has shape %v, ir/eval's is a token", how, i, o.Shape())
					return
				}
				continue
			}
			got := o.Literal()
			if got.Shape().Elem != want[i].Shape().Elem || !ir.SameDimensions(got.Shape(), want[i].Shape()) {
				r.failf("%s: output %d has shape %v, ir/eval's has %v", how, i, got.Shape(), want[i].Shape())
				return
			}
			msg, use := compareLiteral(got, want[i], b, r.c, i)
			r.impls.use(r.og.name, r.et, use)
			if msg != "" {
				r.failf("%s, run %d (%s): output %d (%s): %s", how, run+1, []string{"Run", "RunInto over 0xff", "RunInto over 0x5a"}[run],
					i, want[i].Shape().StringWithoutLayout(), msg)
				return
			}
		}
	}
	for i, a := range r.c.args {
		if got := all[i].Literal(); !sameBits(got, a) {
			r.failf("%s: argument %d was modified by the run", how, i)
			return
		}
	}
	if r.idx == 2 {
		r.runConcurrently(exe, args, want, b, how)
	}
}

// runConcurrently runs the executable from several goroutines at once, each
// into its own outputs (per-call arenas must not be shared), and compares
// every result.
func (r *reporter) runConcurrently(exe *runtime.Executable, args []*runtime.Tensor, want []*ir.Literal, b bound, how string) {
	const goroutines = 4
	outs := make([][]*runtime.Tensor, goroutines)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for gi := range goroutines {
		outs[gi] = make([]*runtime.Tensor, len(want))
		for i, s := range exe.ResultShapes() {
			outs[gi][i], errs[gi] = runtime.NewTensor(s)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[gi] != nil {
				return
			}
			for range 3 {
				_, errs[gi] = runSafely(func() ([]*runtime.Tensor, error) {
					return nil, exe.RunInto(context.Background(), outs[gi], args...)
				})
				if errs[gi] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for gi := range goroutines {
		if errs[gi] != nil {
			r.failf("%s: concurrent run %d fails: %v", how, gi, errs[gi])
			return
		}
		for i, o := range outs[gi] {
			if want[i].Shape().IsToken() {
				continue
			}
			if msg, _ := compareLiteral(o.Literal(), want[i], b, r.c, i); msg != "" {
				r.failf("%s, concurrent run %d: output %d (%s): %s", how, gi, i, want[i].Shape().StringWithoutLayout(), msg)
				return
			}
		}
	}
}

// expectRefusal checks a module ir/eval does not define (an op or type it
// reports unsupported, or an op that needs a host): the compiled path has
// no reference to match, so it must refuse too — Compile or Run fails with
// an error naming the op — and never return values.
func (r *reporter) expectRefusal(why, name string) {
	exe, err := compileSafely(r.c.m)
	if err == nil {
		r.stats = exe.Stats().String()
		_, err = runSafely(func() ([]*runtime.Tensor, error) { return exe.Run(context.Background(), r.tensors()...) })
	}
	switch {
	case err == nil:
		r.failf("ir/eval does not define the module (%s), but the compiled plan runs it and returns values", why)
	case !strings.Contains(err.Error(), name):
		r.failf("ir/eval does not define the module (%s); the compiled path refuses it with an error that does not name %q: %v", why, name, err)
	}
}

// tensors returns the case's arguments as tensors over copies of their
// storage, laid out as the entry parameters' layouts say.
func (r *reporter) tensors() []*runtime.Tensor {
	args := make([]*runtime.Tensor, len(r.c.args))
	for i, a := range r.c.args {
		s := r.c.m.Entry.Parameters[i].Shape
		if s.Layout == nil || s.HasDefaultLayout() {
			args[i] = runtime.TensorFromLiteral(a.Clone())
			continue
		}
		t, err := runtime.NewTensor(s)
		if err != nil {
			panic(err)
		}
		size := s.Elem.ByteSize()
		idx := make([]int, s.Rank())
		for j := range a.ElementCount() {
			p := s.LinearIndex(idx)
			copy(t.Bytes()[p*size:(p+1)*size], a.Bytes()[j*size:(j+1)*size])
			ir.NextIndex(s.Dims, idx)
		}
		args[i] = t
	}
	return args
}

// compileMode is how a case is compiled: with or without fusion, with its
// parameters as arguments or bound at compile time.
type compileMode struct {
	unfused, bound bool
}

// compileSafely is runtime.Compile with a panic turned into an error, so
// that one broken op does not stop the whole table.
func compileSafely(m *ir.Module, opts ...runtime.Option) (exe *runtime.Executable, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return runtime.Compile(m, opts...)
}

func runSafely(f func() ([]*runtime.Tensor, error)) (out []*runtime.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}

// evalFlat runs the module on ir/eval and returns its array results, tuples
// flattened depth first as runtime.Executable returns them.
func evalFlat(m *ir.Module, args []*ir.Literal) ([]*ir.Literal, error) {
	out, err := eval.Run(m, args...)
	if err != nil {
		return nil, err
	}
	var flat []*ir.Literal
	for _, l := range out {
		flat = flattenLiteral(l, flat)
	}
	return flat, nil
}

func flattenLiteral(l *ir.Literal, out []*ir.Literal) []*ir.Literal {
	if l.Shape().IsTuple() {
		for _, e := range l.Elements() {
			out = flattenLiteral(e, out)
		}
		return out
	}
	return append(out, l)
}

func sameBits(a, b *ir.Literal) bool {
	ab, bb := a.Bytes(), b.Bytes()
	if len(ab) != len(bb) {
		return false
	}
	for i := range ab {
		if ab[i] != bb[i] {
			return false
		}
	}
	return true
}

// compareLiteral compares output i of a case, got against want, under bound
// b; it returns "" when they agree, or a description of the first element
// that does not.
func compareLiteral(got, want *ir.Literal, b bound, c *dcase, out int) (msg string, worst boundUse) {
	t := want.Shape().Elem
	n := want.ElementCount()
	if got.ElementCount() != n {
		return fmt.Sprintf("%d elements, want %d", got.ElementCount(), n), worst
	}
	if !t.IsFloatOrComplex() || b.kind == boundExact {
		for i := range n {
			if !sameElement(got, want, t, i) && !c.ignored(out, i, want.Shape()) {
				return describe(got, want, t, i, "bit-exact"), worst
			}
		}
		return "", worst
	}
	if b.kind == boundRange {
		return c.checkRange(got), worst
	}
	var mag []float64
	if b.kind == boundAccum {
		var err error
		if mag, err = c.magnitudes(out); err != nil {
			return fmt.Sprintf("cannot evaluate the magnitude bound: %v", err), worst
		}
	}
	maxWant := 1.0
	if b.kind == boundNorm {
		for i := range n {
			if c.ignored(out, i, want.Shape()) {
				continue
			}
			for _, v := range parts(want, i) {
				if !math.IsInf(v, 0) && !math.IsNaN(v) {
					maxWant = math.Max(maxWant, math.Abs(v))
				}
			}
		}
	}
	pt := t
	if t.IsComplex() {
		pt = t.ComplexComponent()
	}
	eps := math.Ldexp(1, -pt.MantissaBits())
	narrow := pt.BitWidth() < 32
	for i := range n {
		if c.ignored(out, i, want.Shape()) {
			continue
		}
		g, w := parts(got, i), parts(want, i)
		modulus := 0.0
		if t.IsComplex() {
			modulus = math.Hypot(w[0], w[1])
		}
		for p := range g {
			gv, wv := g[p], w[p]
			if math.IsNaN(gv) || math.IsNaN(wv) {
				if math.IsNaN(gv) != math.IsNaN(wv) {
					return describe(got, want, t, i, b.String()), worst
				}
				continue
			}
			if math.IsInf(gv, 0) || math.IsInf(wv, 0) {
				if gv != wv {
					return describe(got, want, t, i, b.String()), worst
				}
				continue
			}
			if gv == wv && math.Signbit(gv) == math.Signbit(wv) {
				continue
			}
			d := math.Abs(gv - wv)
			u := ulpDistance(pt, gv, wv)
			// used is the fraction of the bound the element takes.
			var used float64
			switch b.kind {
			case boundULP:
				lim := b.n
				if narrow {
					lim = math.Max(lim, 1)
				}
				used = u / lim
			case boundAccum:
				// A NaN among the terms makes M NaN: no bound to apply.
				if !math.IsNaN(mag[i]) {
					used = d / (float64(c.terms+1) * eps * mag[i])
				}
			case boundRel:
				used = math.Min(d/(b.n*eps*modulus), u/b.n)
			case boundNorm:
				used = d / (b.n * float64(max(c.terms, 1)) * eps * maxWant)
			}
			if narrow && u <= 1 {
				used = math.Min(used, 1)
			}
			if math.IsNaN(used) {
				used = math.Inf(1)
			}
			worst.ulps = math.Max(worst.ulps, u)
			worst.used = math.Max(worst.used, used)
			if used > 1 {
				return describe(got, want, t, i, b.String()), worst
			}
		}
	}
	return "", worst
}

// boundUse is how much of its bound an output took: the largest distance
// in ULPs and the largest fraction of the bound, over its elements.
type boundUse struct{ ulps, used float64 }

// parts returns element i as float64 parts: one for a real type, two for
// complex.
func parts(l *ir.Literal, i int) []float64 {
	if l.Shape().Elem.IsComplex() {
		c := l.Complex128At(i)
		return []float64{real(c), imag(c)}
	}
	return []float64{l.Float64At(i)}
}

// sameElement compares element i bit for bit, NaN matching any NaN.
func sameElement(got, want *ir.Literal, t ir.ElementType, i int) bool {
	size := t.ByteSize()
	gb, wb := got.Bytes()[i*size:(i+1)*size], want.Bytes()[i*size:(i+1)*size]
	if string(gb) == string(wb) {
		return true
	}
	if t.IsFloatOrComplex() {
		g, w := parts(got, i), parts(want, i)
		for p := range g {
			if math.IsNaN(g[p]) != math.IsNaN(w[p]) {
				return false
			}
			if !math.IsNaN(g[p]) && math.Float64bits(g[p]) != math.Float64bits(w[p]) {
				return false
			}
		}
		return true
	}
	return false
}

// ulpDistance is the number of representable values of float type t between
// a and b (both finite, exactly representable in t), +0 and −0 counting once.
func ulpDistance(t ir.ElementType, a, b float64) float64 {
	return math.Abs(float64(orderedKey(t, a) - orderedKey(t, b)))
}

// orderedKey maps a value of float type t to an integer that orders like
// the values: consecutive representable values get consecutive keys.
func orderedKey(t ir.ElementType, v float64) int64 {
	l := ir.MustNewLiteral(ir.Scalar(t))
	l.SetFloat64At(0, v)
	raw := l.Bytes()
	var u uint64
	switch len(raw) {
	case 1:
		u = uint64(raw[0])
	case 2:
		u = uint64(binary.NativeEndian.Uint16(raw))
	case 4:
		u = uint64(binary.NativeEndian.Uint32(raw))
	default:
		u = binary.NativeEndian.Uint64(raw)
	}
	w := t.BitWidth()
	sign := uint64(1) << (w - 1)
	mag := int64(u &^ sign)
	if u&sign != 0 {
		return -mag
	}
	return mag
}

// describe reports element i of got and want: index, values and bits.
func describe(got, want *ir.Literal, t ir.ElementType, i int, what string) string {
	idx := want.Shape().MultiIndex(i)
	size := t.ByteSize()
	gb, wb := got.Bytes()[i*size:(i+1)*size], want.Bytes()[i*size:(i+1)*size]
	var extra string
	if t.IsFloat() {
		g, w := got.Float64At(i), want.Float64At(i)
		if !math.IsNaN(g) && !math.IsNaN(w) && !math.IsInf(g, 0) && !math.IsInf(w, 0) {
			extra = fmt.Sprintf(", %g ULP apart", ulpDistance(t, g, w))
		}
	}
	return fmt.Sprintf("first difference at element %d %v: compiled %s (%s), ir/eval %s (%s)%s; bound %s",
		i, idx, elemString(got, i), hexBytes(gb), elemString(want, i), hexBytes(wb), extra, what)
}

func elemString(l *ir.Literal, i int) string {
	t := l.Shape().Elem
	switch {
	case t.IsComplex():
		return fmt.Sprint(l.Complex128At(i))
	case t.IsFloat():
		return fmt.Sprint(l.Float64At(i))
	case t.IsUnsigned():
		return fmt.Sprint(l.Uint64At(i))
	}
	return fmt.Sprint(l.Int64At(i))
}

// hexBytes prints an element's storage as one hex number (little-endian
// machines store the low byte first).
func hexBytes(b []byte) string {
	var sb strings.Builder
	sb.WriteString("0x")
	for i := len(b) - 1; i >= 0; i-- {
		fmt.Fprintf(&sb, "%02x", b[i])
	}
	return sb.String()
}

// opTable is every generator, by op family.
var opTable = concatGens(elementwiseGens(), movementGens(), reduceGens(), controlGens(), collectiveGens(),
	linalgGens(), ioGens(), patternGens(), fusionGens(), newOpGens())

func concatGens(lists ...[]*opGen) []*opGen {
	var all []*opGen
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}
