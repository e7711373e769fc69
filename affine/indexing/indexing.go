package indexing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kilnml/kiln/affine"
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
}

// newIndexing returns an Indexing for n operands with no maps yet.
func newIndexing(n int) *Indexing {
	return &Indexing{Operands: make([][]*affine.IndexingMap, n), Unknown: make([]bool, n)}
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
		x.Operands[k] = []*affine.IndexingMap{m}
	}
	return x
}

// add inserts m among the maps of operand k unless an equal map is there.
func (x *Indexing) add(k int, m *affine.IndexingMap) {
	if x.Unknown[k] {
		return
	}
	for _, o := range x.Operands[k] {
		if o == m || o.Equal(*m) {
			return
		}
	}
	x.Operands[k] = append(x.Operands[k], m)
}

// setUnknown marks operand k as unknown and drops its maps.
func (x *Indexing) setUnknown(k int) {
	x.Unknown[k] = true
	x.Operands[k] = nil
}

// NumOperands is the number of operands (or outputs) the indexing covers.
func (x *Indexing) NumOperands() int { return len(x.Operands) }

// IsUnknown reports whether the indexing of operand k cannot be expressed.
func (x *Indexing) IsUnknown(k int) bool { return x.Unknown[k] }

// String prints the indexing as XLA's HloInstructionIndexing::ToString lays
// it out: for each operand a line "operand id = K", then each of its maps in
// the multi-line text format; an operand whose indexing cannot be expressed
// prints "operand id = K unknown indexing".
func (x *Indexing) String() string {
	var b strings.Builder
	x.write(&b, 0)
	return b.String()
}

// write prints x as String does, numbering operands from first.
func (x *Indexing) write(b *strings.Builder, first int) {
	for k, maps := range x.Operands {
		b.WriteString("operand id = ")
		b.WriteString(strconv.Itoa(first + k))
		if x.Unknown[k] {
			b.WriteString(" unknown indexing\n")
			continue
		}
		b.WriteByte('\n')
		for _, m := range maps {
			b.WriteString(m.MultilineString())
			b.WriteByte('\n')
		}
	}
}

// OperandString prints the maps of operand k alone, laid out as String lays
// them out, with the operand numbered as id.
func (x *Indexing) OperandString(k, id int) string {
	one := Indexing{Operands: x.Operands[k : k+1], Unknown: x.Unknown[k : k+1]}
	var b strings.Builder
	one.write(&b, id)
	return b.String()
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
