package indexing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// Indexing is the result of the analysis of one op in one direction, XLA's
// HloInstructionIndexing: for each operand (output to input) or each output
// (input to output), the set of maps that relate the tensor analysed to it.
type Indexing struct {
	// Operands holds the maps of each operand — or, for input-to-output
	// indexing, of each output — without duplicates, in the order found.
	// An operand that is not read has no maps.
	Operands [][]*affine.IndexingMap
	// Unknown marks the operands whose indexing cannot be expressed; their
	// Operands entry is empty.
	Unknown []bool
	// Extras holds what accompanies each map of Operands (same indices):
	// where its runtime variables come from, and the replica each element is
	// read from. It is nil for a map that has neither.
	Extras [][]*Extras
}

// Extras is what XLA's OperandIndexing adds to a map: the origin of each of
// its runtime variables, and for a collective the map from the analysed
// tensor's elements to the replica they read.
type Extras struct {
	// RuntimeVars describes the runtime variables, in the order XLA lists
	// them (which after a composition is not the order of the map's
	// runtime variables: XLA lists the consumer's first).
	RuntimeVars []RuntimeVar
	// ReplicaID maps the analysed tensor's elements to the replica whose
	// operand they read (all-gather); nil otherwise.
	ReplicaID *affine.IndexingMap
}

// RuntimeVar is the origin of one runtime variable (XLA's
// RuntimeVarIndexing): the value it stands for is the element of an index
// operand that Map gives.
type RuntimeVar struct {
	// Map relates the analysed tensor's elements to the element of the
	// index operand that holds the variable's value.
	Map *affine.IndexingMap
	// Operand is where the value comes from: for the maps of one op, the
	// op's operand; for the maps of a group, a node or an input of the group
	// (as Node.Args numbers them).
	Operand int
	// Origin is the instruction that holds the value, when the analysis
	// started from instructions; it names the variable when printed.
	Origin *ir.Instruction
}

// newIndexing returns an Indexing for n operands with no maps yet.
func newIndexing(n int) *Indexing {
	return &Indexing{Operands: make([][]*affine.IndexingMap, n), Unknown: make([]bool, n), Extras: make([][]*Extras, n)}
}

// unknownIndexing returns the indexing of n operands that cannot be
// expressed, XLA's CreateUnknownIndexing.
func unknownIndexing(n int) *Indexing {
	x := newIndexing(n)
	for k := range x.Unknown {
		x.Unknown[k] = true
	}
	return x
}

// fromMaps returns the indexing with one map for each operand.
func fromMaps(maps ...*affine.IndexingMap) *Indexing {
	x := newIndexing(len(maps))
	for k, m := range maps {
		x.set(k, m, nil)
	}
	return x
}

// set makes m, with its extras, the one map of operand k.
func (x *Indexing) set(k int, m *affine.IndexingMap, e *Extras) {
	x.Operands[k] = []*affine.IndexingMap{m}
	x.extras(k)[0] = e
}

// extras returns the extras of operand k, one per map, growing the slice to
// match the maps.
func (x *Indexing) extras(k int) []*Extras {
	if x.Extras == nil {
		x.Extras = make([][]*Extras, len(x.Operands))
	}
	for len(x.Extras[k]) < len(x.Operands[k]) {
		x.Extras[k] = append(x.Extras[k], nil)
	}
	return x.Extras[k]
}

// ExtrasOf returns the extras of map i of operand k, or nil.
func (x *Indexing) ExtrasOf(k, i int) *Extras {
	if x.Extras == nil || i >= len(x.Extras[k]) {
		return nil
	}
	return x.Extras[k][i]
}

// add inserts m with its extras among the maps of operand k unless an equal
// map with equal extras is there.
func (x *Indexing) add(k int, m *affine.IndexingMap, e *Extras) {
	if x.Unknown[k] {
		return
	}
	ex := x.extras(k)
	for i, o := range x.Operands[k] {
		if (o == m || o.Equal(*m)) && e.equal(ex[i]) {
			return
		}
	}
	x.Operands[k] = append(x.Operands[k], m)
	x.Extras[k] = append(ex, e)
}

// setUnknown marks operand k as unknown and drops its maps.
func (x *Indexing) setUnknown(k int) {
	x.Unknown[k] = true
	x.Operands[k] = nil
	if x.Extras != nil {
		x.Extras[k] = nil
	}
}

func (e *Extras) equal(o *Extras) bool {
	if e == nil || o == nil {
		return e.empty() && o.empty()
	}
	if len(e.RuntimeVars) != len(o.RuntimeVars) || (e.ReplicaID == nil) != (o.ReplicaID == nil) ||
		(e.ReplicaID != nil && !e.ReplicaID.Equal(*o.ReplicaID)) {
		return false
	}
	for i, v := range e.RuntimeVars {
		w := o.RuntimeVars[i]
		if v.Operand != w.Operand || v.Origin != w.Origin || !v.Map.Equal(*w.Map) {
			return false
		}
	}
	return true
}

func (e *Extras) empty() bool { return e == nil || (len(e.RuntimeVars) == 0 && e.ReplicaID == nil) }

// NumOperands is the number of operands (or outputs) the indexing covers.
func (x *Indexing) NumOperands() int { return len(x.Operands) }

// IsUnknown reports whether the indexing of operand k cannot be expressed.
func (x *Indexing) IsUnknown(k int) bool { return x.Unknown[k] }

// String prints the indexing as XLA's HloInstructionIndexing::ToString lays
// it out: for each operand a line "operand id = K", then each of its maps in
// the multi-line text format, each followed by its runtime variables and
// replica map; an operand whose indexing cannot be expressed prints
// "operand id = K unknown indexing".
func (x *Indexing) String() string { return x.Format(affine.PrintOptions{}) }

// Format prints x as String does, in the given syntax.
func (x *Indexing) Format(opts affine.PrintOptions) string {
	var b strings.Builder
	x.write(&b, 0, opts)
	return b.String()
}

// write prints x as String does, numbering operands from first.
func (x *Indexing) write(b *strings.Builder, first int, opts affine.PrintOptions) {
	for k, maps := range x.Operands {
		b.WriteString("operand id = ")
		b.WriteString(strconv.Itoa(first + k))
		if x.Unknown[k] {
			b.WriteString(" unknown indexing\n")
			continue
		}
		b.WriteByte('\n')
		for i, m := range maps {
			b.WriteString(m.MultilineFormat(opts))
			b.WriteByte('\n')
			x.ExtrasOf(k, i).write(b, opts)
		}
	}
}

// write prints the runtime variables and the replica map as XLA's
// OperandIndexing::ToString does.
func (e *Extras) write(b *strings.Builder, opts affine.PrintOptions) {
	if e == nil {
		return
	}
	if len(e.RuntimeVars) > 0 {
		b.WriteString("runtime variables:\n")
		for i, v := range e.RuntimeVars {
			fmt.Fprintf(b, "rt%d: %s; %s\n", i, originName(v.Origin), v.Map.Format(opts))
		}
	}
	if e.ReplicaID != nil {
		b.WriteString("replica id:\n")
		b.WriteString(e.ReplicaID.Format(opts))
		b.WriteByte('\n')
	}
}

// originName names the instruction a runtime variable reads as XLA prints
// it: parameter(N) for a parameter, the opcode and operands otherwise.
func originName(in *ir.Instruction) string {
	if in == nil {
		return "unknown"
	}
	if in.Opcode == ir.OpParameter {
		return "parameter(" + strconv.Itoa(in.ParameterNumber) + ")"
	}
	names := make([]string, len(in.Operands))
	for i, o := range in.Operands {
		names[i] = o.Name
	}
	return in.Opcode.String() + "(" + strings.Join(names, ", ") + ")"
}

// OperandString prints the maps of operand k alone, laid out as String lays
// them out, with the operand numbered as id.
func (x *Indexing) OperandString(k, id int) string {
	return x.OperandFormat(k, id, affine.PrintOptions{})
}

// OperandFormat prints the maps of operand k alone, as OperandString does,
// in the given syntax.
func (x *Indexing) OperandFormat(k, id int, opts affine.PrintOptions) string {
	one := Indexing{Operands: x.Operands[k : k+1], Unknown: x.Unknown[k : k+1]}
	if x.Extras != nil {
		one.Extras = x.Extras[k : k+1]
	}
	var b strings.Builder
	one.write(&b, id, opts)
	return b.String()
}

// simplifyAll simplifies every map as XLA's HloInstructionIndexing::Simplify
// does: a map that changes has its unused symbols removed, and with them the
// runtime variables they stood for.
func (x *Indexing) simplifyAll() {
	for k, maps := range x.Operands {
		ex := x.extras(k)
		for i, m := range maps {
			s, changed := affine.SimplifyMap(*m, affine.SimplifyOptions{})
			if !changed {
				continue
			}
			s, e := removeUnusedSymbols(s, ex[i])
			maps[i], ex[i] = &s, e
		}
	}
}

// removeUnusedSymbols is XLA's OperandIndexing::RemoveUnusedSymbols: the
// map's unused range and runtime variables go, and so do the descriptions of
// the runtime variables at the positions removed.
func removeUnusedSymbols(m affine.IndexingMap, e *Extras) (affine.IndexingMap, *Extras) {
	r, removed := m.RemoveUnusedSymbols()
	if e == nil || len(e.RuntimeVars) == 0 || !slices.Contains(removed.Runtime, true) {
		return r, e
	}
	out := &Extras{ReplicaID: e.ReplicaID}
	for i, v := range e.RuntimeVars {
		if i < len(removed.Runtime) && removed.Runtime[i] {
			continue
		}
		out.RuntimeVars = append(out.RuntimeVars, v)
	}
	return r, out
}

// UnsupportedError reports an op, or a form of an op, whose indexing the
// analysis does not express.
type UnsupportedError struct {
	Op     string // the op's name as HLO prints it
	Reason string
}

// Error says which op, or form of it, is not analysed and why.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("indexing of %s: %s", e.Op, e.Reason)
}
