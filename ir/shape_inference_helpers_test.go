package ir

import (
	"errors"
	"strings"
	"testing"
)

// inferCase is one row of a table of shape-inference tests: infer returns the
// inferred shape; want is the expected shape printed without layout, or err
// a fragment the error must contain (and then want is empty).
type inferCase struct {
	name  string
	infer func() (Shape, error)
	want  string
	err   string
}

func runInferCases(t *testing.T, cases []inferCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.infer()
			if c.err != "" {
				if err == nil {
					t.Fatalf("got shape %s, want an error containing %q", human(got), c.err)
				}
				if !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %q does not contain %q", err, c.err)
				}
				var se *ShapeError
				if !errors.As(err, &se) && !strings.Contains(err.Error(), ":") {
					t.Fatalf("error %q does not name its op", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if s := human(got); s != c.want {
				t.Fatalf("got %s, want %s", s, c.want)
			}
			if err := got.CheckValid(); err != nil {
				t.Fatalf("inferred shape %s is invalid: %v", human(got), err)
			}
		})
	}
}

// sh is MakeShape, short for the tables.
func sh(t ElementType, dims ...int) Shape { return MakeShape(t, dims...) }

// dyn returns s with the given dimensions marked dynamic.
func dyn(s Shape, dims ...int) Shape {
	flags := make([]bool, s.Rank())
	for _, d := range dims {
		flags[d] = true
	}
	return MakeDynamicShape(s.Elem, s.Dims, flags)
}

// prog is a computation signature.
func prog(result Shape, params ...Shape) ProgramShape {
	return ProgramShape{Parameters: params, Result: result}
}

// scalarReducer is the signature (T, T) -> T.
func scalarReducer(t ElementType) ProgramShape {
	return prog(Scalar(t), Scalar(t), Scalar(t))
}
