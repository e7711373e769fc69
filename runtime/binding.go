package runtime

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/kilnml/kiln/ir"
)

// ValueInfo describes one argument Run takes or one result it returns.
type ValueInfo struct {
	// Name is the parameter's instruction name (for a leaf of a tuple
	// parameter, the name followed by the leaf's tuple indices: "state.0.1"),
	// or the name of the instruction that computes the result.
	Name string
	// Shape is the argument's or result's shape.
	Shape ir.Shape
}

func (v ValueInfo) String() string { return v.Name + ": " + v.Shape.StringWithoutLayout() }

var quotedPath = regexp.MustCompile(`\['([^']*)'\]|\["([^"]*)"\]|\[(\d+)\]`)

// ParameterNames lists the names under which a weights tensor binds entry
// parameter p (WithWeights, and the command line's --weights): the rule is
// exact, case-sensitive equality with one of
//
//   - the parameter's instruction name (p.Name, as in `Arg_1.2 = f32[784,512] parameter(1)`);
//   - its metadata op_name, as JAX writes it: op_name="params['Dense_0']['kernel']";
//   - that op_name's path, its bracketed keys joined with "/" or ".", with
//     and without the leading name: "Dense_0/kernel", "Dense_0.kernel",
//     "params/Dense_0/kernel" and "params.Dense_0.kernel".
//
// So the flattened names flax and safetensors exporters give a parameter
// tree bind without renaming. The first name in the list that a tensor has
// binds it.
func ParameterNames(p *ir.Instruction) []string {
	names := []string{p.Name}
	meta, ok := p.RawAttr("metadata")
	if !ok {
		return names
	}
	_, rest, ok := strings.Cut(meta, `op_name="`)
	if !ok {
		return names
	}
	op, _, ok := strings.Cut(rest, `"`)
	if !ok {
		return names
	}
	op = strings.ReplaceAll(op, `\'`, `'`)
	names = append(names, op)
	head, _, _ := strings.Cut(op, "[")
	var parts []string
	for _, m := range quotedPath.FindAllStringSubmatch(op, -1) {
		parts = append(parts, m[1]+m[2]+m[3])
	}
	if len(parts) > 0 {
		for _, sep := range []string{"/", "."} {
			path := strings.Join(parts, sep)
			names = append(names, path)
			if head != "" {
				names = append(names, head+sep+path)
			}
		}
	}
	return dedupe(names)
}

func dedupe(names []string) []string {
	out := names[:0]
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// matchWeights binds tensors to the array parameters of the entry
// computation by ParameterNames, skipping the parameters in skip (bound by
// WithParameter). Unless allowUnused, a tensor that binds to nothing is an
// error naming it and listing the parameters left unbound.
func matchWeights(entry *ir.Computation, tensors map[string]*Tensor, skip map[int]*Tensor, allowUnused bool) (map[int]string, error) {
	bound := map[int]string{}
	used := map[string]int{} // tensor name → parameter it binds
	shadowed := map[string]int{}
	for i, p := range entry.Parameters {
		if !p.Shape.IsArray() {
			continue
		}
		for _, name := range ParameterNames(p) {
			if _, ok := tensors[name]; !ok {
				continue
			}
			if _, byOption := skip[i]; byOption {
				shadowed[name] = i
				continue
			}
			if _, done := bound[i]; done {
				shadowed[name] = i
				continue
			}
			bound[i] = name
			used[name] = i
		}
	}
	if allowUnused {
		return bound, nil
	}
	var unused []string
	for name := range tensors {
		if _, ok := used[name]; !ok {
			unused = append(unused, name)
		}
	}
	if len(unused) == 0 {
		return bound, nil
	}
	sort.Strings(unused)
	var b strings.Builder
	for k, name := range unused {
		if k == 8 {
			fmt.Fprintf(&b, "; and %d more", len(unused)-k)
			break
		}
		if k > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "tensor %q %v ", name, tensors[name].Shape().StringWithoutLayout())
		if i, ok := shadowed[name]; ok {
			p := entry.Parameters[i]
			if _, byOption := skip[i]; byOption {
				fmt.Fprintf(&b, "names parameter %d (%s), which WithParameter binds", i, p.Name)
			} else {
				fmt.Fprintf(&b, "names parameter %d (%s), which tensor %q already binds", i, p.Name, bound[i])
			}
			continue
		}
		b.WriteString("binds to no parameter")
		if hint := closeName(entry, name); hint != "" {
			fmt.Fprintf(&b, " (did you mean %q? names must match exactly)", hint)
		}
	}
	var left []string
	for i, p := range entry.Parameters {
		if _, ok := bound[i]; ok {
			continue
		}
		if _, ok := skip[i]; ok {
			continue
		}
		desc := fmt.Sprintf("%s %v", p.Name, p.Shape.StringWithoutLayout())
		if names := ParameterNames(p); len(names) > 1 {
			desc += fmt.Sprintf(" (bound by a tensor named %s)", quoteList(names))
		}
		left = append(left, desc)
	}
	unbound := "none"
	if len(left) > 0 {
		unbound = strings.Join(left, ", ")
	}
	return nil, argumentError(fmt.Errorf("runtime: WithWeights: %s. Parameters left unbound: %s (runtime.AllowUnusedWeights() accepts tensors that bind nothing; runtime.ParameterNames gives the matching rule)",
		b.String(), unbound))
}

// closeName returns a parameter name that equals name but for case or
// separators, as a hint for a misnamed tensor.
func closeName(entry *ir.Computation, name string) string {
	norm := func(s string) string {
		return strings.NewReplacer("/", ".", "_", "", "-", "").Replace(strings.ToLower(s))
	}
	want := norm(name)
	for _, p := range entry.Parameters {
		for _, n := range ParameterNames(p) {
			if norm(n) == want {
				return n
			}
		}
	}
	return ""
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}

// leafInfos lists the array leaves of a value named name with shape s:
// the value itself, or name.i.j… for the leaves of a tuple.
func leafInfos(name string, s ir.Shape) []ValueInfo {
	if !s.IsTuple() {
		return []ValueInfo{{Name: name, Shape: s}}
	}
	var out []ValueInfo
	for i, e := range s.Tuple {
		out = append(out, leafInfos(fmt.Sprintf("%s.%d", name, i), e)...)
	}
	return out
}

// resultInfos names the leaves of the entry computation's result: the
// operands of a root tuple by their instruction names (recursively), other
// roots by theirs.
func resultInfos(root *ir.Instruction, s ir.Shape) []ValueInfo {
	if s.IsTuple() && root.Opcode == ir.OpTuple && len(root.Operands) == len(s.Tuple) {
		var out []ValueInfo
		for i, e := range s.Tuple {
			out = append(out, resultInfos(root.Operands[i], e)...)
		}
		return out
	}
	return leafInfos(root.Name, s)
}

// infoList prints values as "name: shape, …".
func infoList(vs []ValueInfo) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, ", ")
}
