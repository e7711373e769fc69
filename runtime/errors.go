package runtime

import (
	"errors"

	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/ir/ops"
)

// Errors a caller can branch on with errors.Is. The errors Compile and Run
// return wrap one of them where it applies, keeping their own message; a
// run stopped by its context returns the context's error (context.Canceled
// or context.DeadlineExceeded), which errors.Is recognises too.
var (
	// ErrArgument: the arguments or options do not fit the module — the
	// wrong number of arguments, a shape or element type that differs from
	// the parameter's, a weights tensor that binds to nothing or to a
	// parameter of another shape.
	ErrArgument = errors.New("runtime: invalid argument")
	// ErrUnsupported: the module uses an op, a form of an op or a feature
	// Kiln does not run (the error names it), such as a custom-call target
	// nothing registered.
	ErrUnsupported = errors.New("runtime: unsupported")
	// ErrMemoryLimit: a plan, an argument or a result needs more memory than
	// WithMemoryLimit allows (the error gives both figures).
	ErrMemoryLimit = errors.New("runtime: memory limit exceeded")
)

// kindError is an error of one of the kinds above: its message is err's,
// and errors.Is finds both the kind and what err wraps.
type kindError struct {
	kind, err error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

func argumentError(err error) error    { return &kindError{ErrArgument, err} }
func unsupportedError(err error) error { return &kindError{ErrUnsupported, err} }
func memoryError(err error) error      { return &kindError{ErrMemoryLimit, err} }

// classify marks an error of the compiler or evaluator that reports an
// unsupported op as ErrUnsupported.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrUnsupported) {
		return err
	}
	var ue *eval.UnsupportedError
	var oe *ops.UnsupportedError
	if errors.As(err, &ue) || errors.As(err, &oe) {
		return unsupportedError(err)
	}
	return err
}
