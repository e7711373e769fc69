package ops

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// UnsupportedError reports a form of an op that XLA does not define (an
// elementwise op on an element type it has no meaning for) or that Kiln
// does not implement; Detail says which form.
type UnsupportedError struct {
	Op     ir.Opcode
	Detail string
}

func (e *UnsupportedError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("op %q is not supported", e.Op.String())
	}
	return fmt.Sprintf("%s: %s", e.Op, e.Detail)
}

// notDefined reports an op applied to an element type it is not defined for.
func notDefined(op ir.Opcode, t ir.ElementType) error {
	return &UnsupportedError{Op: op, Detail: fmt.Sprintf("not defined for element type %v", t)}
}
