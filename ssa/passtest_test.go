package ssa

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// Helpers of the pass tests: HLO text in, run named passes with the
// verifier after each, HLO text out (through Raise and the ir printer), and
// evaluation of the original module against the raised program.

// lowerText parses an HLO module and lowers it.
func lowerText(t *testing.T, text string) (*ir.Module, *Program) {
	t.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("input does not verify: %v", err)
	}
	p, err := Lower(m)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	return m, p
}

// runPasses runs the named passes of the pipeline in the order given, with
// Verify after each.
func runPasses(t *testing.T, p *Program, names ...string) {
	t.Helper()
	for _, name := range names {
		found := false
		for _, ps := range passes {
			if ps.name != name {
				continue
			}
			found = true
			if err := ps.fn(p); err != nil {
				t.Fatalf("pass %s: %v", name, err)
			}
			if err := Verify(p); err != nil {
				t.Fatalf("after pass %s: %v\n%s", name, err, p)
			}
			break
		}
		if !found {
			t.Fatalf("no pass named %q", name)
		}
	}
}

// raiseChecked raises p and checks the module with ir's verifier (shape
// inference of every instruction).
func raiseChecked(t *testing.T, p *Program) *ir.Module {
	t.Helper()
	m, err := Raise(p)
	if err != nil {
		t.Fatalf("raise: %v", err)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("raised module does not verify: %v\n%s", err, m)
	}
	return m
}

// entryText prints the entry computation of p's raised module as HLO
// instructions in the short form the tests write: one instruction a line,
// operands by name without their shapes, no metadata, and the names Raise
// gives to values a pass created (`transpose.v17`) renumbered per opcode in
// order of appearance (`transpose.1`).
func entryText(t *testing.T, p *Program) string {
	t.Helper()
	m := raiseChecked(t, p)
	var lines []string
	for _, in := range m.Entry.Instructions {
		lines = append(lines, shortInstruction(t, in))
	}
	s := strings.Join(lines, "\n")
	counts := map[string]int{}
	renamed := map[string]string{}
	return generatedName.ReplaceAllStringFunc(s, func(n string) string {
		if r, ok := renamed[n]; ok {
			return r
		}
		base := n[:strings.LastIndex(n, ".v")]
		counts[base]++
		renamed[n] = fmt.Sprintf("%s.%d", base, counts[base])
		return renamed[n]
	})
}

var generatedName = regexp.MustCompile(`\b[a-z][a-z0-9-]*\.v[0-9]+\b`)

func shortInstruction(t *testing.T, in *ir.Instruction) string {
	t.Helper()
	s := in.String()
	head := fmt.Sprintf("%%%s = %s %s(", in.Name, in.Shape, in.Opcode)
	if !strings.HasPrefix(s, head) {
		t.Fatalf("unexpected instruction text %q (want prefix %q)", s, head)
	}
	depth, end := 1, -1
	for i := len(head); i < len(s) && end < 0; i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				end = i
			}
		}
	}
	if end < 0 {
		t.Fatalf("unbalanced instruction text %q", s)
	}
	names := make([]string, len(in.Operands))
	for i, o := range in.Operands {
		names[i] = o.Name
	}
	inside := strings.Join(names, ", ")
	if len(in.Operands) == 0 {
		inside = s[len(head):end] // parameter(0), constant({1, 2})
	}
	out := fmt.Sprintf("%s = %s %s(%s)", in.Name, in.Shape, in.Opcode, inside)
	if in.IsRoot() {
		out = "ROOT " + out
	}
	rest := strings.TrimPrefix(s[end+1:], ", ")
	rest = strings.ReplaceAll(stripAttr(rest, "metadata={"), "%", "")
	if rest != "" {
		out += ", " + rest
	}
	return out
}

// stripAttr removes an attribute `name{…}` with balanced braces and quoted
// strings from an attribute list.
func stripAttr(s, name string) string {
	i := strings.Index(s, name)
	if i < 0 {
		return s
	}
	depth, quoted := 0, false
	j := i + len(name) - 1
	for ; j < len(s); j++ {
		c := s[j]
		if quoted {
			if c == '\\' {
				j++
			} else if c == '"' {
				quoted = false
			}
			continue
		}
		if c == '"' {
			quoted = true
		} else if c == '{' {
			depth++
		} else if c == '}' {
			depth--
			if depth == 0 {
				break
			}
		}
	}
	out := strings.TrimSuffix(strings.TrimSuffix(s[:i], " "), ",")
	tail := strings.TrimPrefix(s[j+1:], ", ")
	if out != "" && tail != "" {
		return out + ", " + tail
	}
	return out + tail
}

// trimLines trims every line of a test's expected text and drops blank ones.
func trimLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// passCase is a text-in, text-out test of a list of passes.
type passCase struct {
	name   string
	passes []string
	in     string // the entry computation's body (and regions) of an HLO module
	want   string // the entry's instructions afterwards, as entryText prints them
}

// moduleText wraps a test body into a module: lines before a line `ENTRY`
// belong to region computations written in full by the test.
func moduleText(body string) string {
	if strings.Contains(body, "ENTRY") {
		return "HloModule test\n\n" + body
	}
	return "HloModule test\n\nENTRY main {\n" + body + "\n}\n"
}

func runPassCases(t *testing.T, cases []passCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, p := lowerText(t, moduleText(c.in))
			runPasses(t, p, c.passes...)
			if got, want := entryText(t, p), trimLines(c.want); got != want {
				t.Errorf("after %v:\n%s\nwant:\n%s", c.passes, got, want)
			}
			checkEquivalent(t, m, p, exact)
		})
	}
}

// ---- evaluation -------------------------------------------------------------

// tolerance says how close two results must be: exact compares bits.
type tolerance struct{ abs, rel float64 }

var exact = tolerance{}

// randomLiteral fills an array of shape s with deterministic random values:
// normal floats, small integers, random booleans.
func randomLiteral(s ir.Shape, r *rand.Rand) *ir.Literal {
	if s.IsTuple() {
		elems := make([]*ir.Literal, len(s.Tuple))
		for i, e := range s.Tuple {
			elems[i] = randomLiteral(e, r)
		}
		return ir.NewTupleLiteral(elems...)
	}
	l := ir.MustNewLiteral(s.WithoutLayout())
	n := l.ElementCount()
	for i := 0; i < n; i++ {
		switch t := s.Elem; {
		case t.IsFloat() || t.IsComplex():
			l.SetFloat64At(i, r.NormFloat64())
		case t == ir.PRED:
			l.SetInt64At(i, int64(r.IntN(2)))
		case t == ir.U4 || t == ir.S4:
			l.SetInt64At(i, int64(r.IntN(8)))
		case t.IsInteger() && t.ByteSize() == 1:
			l.SetInt64At(i, int64(r.IntN(100)))
		default:
			l.SetInt64At(i, int64(r.IntN(2000)-1000))
		}
	}
	return l
}

func randomArgs(m *ir.Module, seed uint64) []*ir.Literal {
	r := rand.New(rand.NewPCG(seed, 7))
	var args []*ir.Literal
	for _, prm := range m.Entry.Parameters {
		args = append(args, randomLiteral(prm.Shape, r))
	}
	return args
}

// kilnCalls evaluates Kiln's ops by their definitions, in float64, rounded
// once to the result type: the reference the patterns are compared with.
var kilnCalls = func() *eval.CustomCallRegistry {
	r := eval.NewCustomCallRegistry()
	r.Register("kiln.softmax", func(in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
		x := ops[0]
		out := ir.MustNewLiteral(in.Shape.WithoutLayout())
		n := x.Shape().Dims[x.Shape().Rank()-1]
		for row := 0; row*n < x.ElementCount(); row++ {
			mx := math.Inf(-1)
			for j := 0; j < n; j++ {
				mx = math.Max(mx, x.Float64At(row*n+j))
			}
			sum := 0.0
			for j := 0; j < n; j++ {
				sum += math.Exp(x.Float64At(row*n+j) - mx)
			}
			for j := 0; j < n; j++ {
				out.SetFloat64At(row*n+j, math.Exp(x.Float64At(row*n+j)-mx)/sum)
			}
		}
		return out, nil
	})
	r.Register("kiln.layer-norm", func(in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
		x, scale, bias := ops[0], ops[1], ops[2]
		out := ir.MustNewLiteral(in.Shape.WithoutLayout())
		n := x.Shape().Dims[x.Shape().Rank()-1]
		for row := 0; row*n < x.ElementCount(); row++ {
			mean, sq := 0.0, 0.0
			for j := 0; j < n; j++ {
				mean += x.Float64At(row*n + j)
			}
			mean /= float64(n)
			for j := 0; j < n; j++ {
				d := x.Float64At(row*n+j) - mean
				sq += d * d
			}
			r := 1 / math.Sqrt(sq/float64(n)+float64(in.Epsilon))
			for j := 0; j < n; j++ {
				out.SetFloat64At(row*n+j, (x.Float64At(row*n+j)-mean)*r*scale.Float64At(j)+bias.Float64At(j))
			}
		}
		return out, nil
	})
	r.Register("kiln.gelu", func(in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
		x := ops[0]
		out := ir.MustNewLiteral(in.Shape.WithoutLayout())
		tanhForm := in.BackendConfig == fmt.Sprintf("%q", fmt.Sprint(GeluTanh))
		for i := 0; i < x.ElementCount(); i++ {
			v := x.Float64At(i)
			if tanhForm {
				out.SetFloat64At(i, 0.5*v*(1+math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v))))
			} else {
				out.SetFloat64At(i, 0.5*v*(1+math.Erf(v/math.Sqrt2)))
			}
		}
		return out, nil
	})
	return r
}()

// checkEquivalent evaluates the original module and p (raised) on the same
// random arguments, for a few seeds, and compares every result.
func checkEquivalent(t *testing.T, orig *ir.Module, p *Program, tol tolerance) {
	t.Helper()
	checkEquivalentSeeds(t, orig, p, tol, 3)
}

// checkEquivalentSeeds is checkEquivalent with n sets of random arguments.
func checkEquivalentSeeds(t *testing.T, orig *ir.Module, p *Program, tol tolerance, n int) {
	t.Helper()
	raised := raiseChecked(t, p)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		args := randomArgs(orig, seed)
		want, err := eval.Run(orig, args...)
		if err != nil {
			t.Fatalf("evaluating the original: %v", err)
		}
		got, err := eval.RunWithOptions(raised, eval.Options{CustomCalls: kilnCalls}, args...)
		if err != nil {
			t.Fatalf("evaluating the optimised program: %v\n%s", err, raised)
		}
		if len(got) != len(want) {
			t.Fatalf("%d results, want %d", len(got), len(want))
		}
		for i := range want {
			if msg := compareLiterals(got[i], want[i], tol); msg != "" {
				t.Fatalf("seed %d, result %d: %s\nprogram:\n%s", seed, i, msg, raised)
			}
		}
	}
}

func compareLiterals(got, want *ir.Literal, tol tolerance) string {
	if !got.Shape().EqualIgnoringLayout(want.Shape()) {
		return fmt.Sprintf("shape %v, want %v", got.Shape(), want.Shape())
	}
	if want.Shape().IsTuple() {
		for i := range want.Elements() {
			if msg := compareLiterals(got.Element(i), want.Element(i), tol); msg != "" {
				return fmt.Sprintf("element %d: %s", i, msg)
			}
		}
		return ""
	}
	if !want.Shape().Elem.IsFloat() {
		if !got.Equal(want) {
			return fmt.Sprintf("values differ:\ngot  %v\nwant %v", got, want)
		}
		return ""
	}
	if tol == exact {
		// Bit for bit (so -0 and +0 differ), except that any NaN equals any
		// NaN: IEEE leaves NaN payloads and signs to the implementation.
		es := want.Shape().Elem.ByteSize()
		gb, wb := got.Bytes(), want.Bytes()
		for i := 0; i < want.ElementCount(); i++ {
			g, w := got.Float64At(i), want.Float64At(i)
			if math.IsNaN(g) && math.IsNaN(w) {
				continue
			}
			if string(gb[i*es:(i+1)*es]) != string(wb[i*es:(i+1)*es]) {
				return fmt.Sprintf("element %d is %g, want %g (bit for bit)", i, g, w)
			}
		}
		return ""
	}
	for i := 0; i < want.ElementCount(); i++ {
		g, w := got.Float64At(i), want.Float64At(i)
		if math.IsNaN(g) != math.IsNaN(w) || math.Abs(g-w) > tol.abs+tol.rel*math.Abs(w) {
			return fmt.Sprintf("element %d is %g, want %g (tolerance %g + %g·|want|)", i, g, w, tol.abs, tol.rel)
		}
	}
	return ""
}
