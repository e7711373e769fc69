package ops

// Combiners and selectors: called computations applied element by element
// in place (scatter's and select-and-scatter's update computations) or as a
// predicate on two elements (select-and-scatter's select computation). The
// common forms — keep the current value, overwrite it, one binary op of the
// two values, one compare of the two elements — run as direct loops that
// compute exactly what the computation does.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

type combineKind uint8

const (
	combineKeep      combineKind = iota // f(cur, upd) = cur
	combineOverwrite                    // f(cur, upd) = upd
	combineAddF32                       // float32 add
	combineBinary                       // one binary op on wide values
	combineFunc                         // the function
)

// Combiner applies an update computation of 2N scalar parameters (N
// current values, then N update values) returning N values, in place:
// cur[j][ci] = f(cur…[ci], upd…[ui])[j].
type Combiner struct {
	N     int
	Types []ir.ElementType
	kind  combineKind
	swap  bool // binary: the root reads (update, current)
	fl    func(a, b float64) float64
	in    func(a, b int64) int64
	cx    func(a, b complex128) complex128
	Fn    *Func
}

// NewCombiner prepares update computation f for operands of types ts.
func NewCombiner(f *Func, ts []ir.ElementType) (*Combiner, error) {
	n := len(ts)
	if f == nil {
		return nil, fmt.Errorf("no update computation")
	}
	if len(f.ParamT) != 2*n || len(f.ResultT) != n {
		return nil, fmt.Errorf("computation %s takes %d parameters and returns %d values, expected %d and %d for %d operands",
			f.Name, len(f.ParamT), len(f.ResultT), 2*n, n, n)
	}
	for i, t := range f.ParamT {
		if t != ts[i%n] {
			return nil, fmt.Errorf("computation %s: parameter %d has shape %v[], the operand has element type %v", f.Name, i, t, ts[i%n])
		}
	}
	for j, t := range f.ResultT {
		if t != ts[j] {
			return nil, fmt.Errorf("computation %s returns %v[] as value %d, expected %v[]", f.Name, t, j, ts[j])
		}
	}
	c := &Combiner{N: n, Types: ts, Fn: f, kind: combineFunc}
	if n == 1 {
		c.fast()
	}
	return c, nil
}

// fast recognises a root that is one of the two parameters, or one binary
// elementwise op of both.
func (c *Combiner) fast() {
	comp := c.Fn.Computation()
	if comp == nil || len(comp.Params) != 2 {
		return
	}
	switch comp.Root {
	case comp.Params[0]:
		c.kind = combineKeep
		return
	case comp.Params[1]:
		c.kind = combineOverwrite
		return
	}
	op, swapped, ok := comp.BinaryRoot()
	if !ok {
		return
	}
	t := c.Types[0]
	switch {
	case t.IsFloat():
		if c.fl = FloatBinary(op); c.fl == nil {
			return
		}
		c.kind = combineBinary
		if op == ir.OpAdd && t == ir.F32 {
			c.kind = combineAddF32
		}
	case t.IsComplex():
		if c.cx = ComplexBinary(op); c.cx == nil {
			return
		}
		c.kind = combineBinary
	case t == ir.PRED && !PredBinary(op):
		return
	default:
		if c.in = IntBinary(op, t); c.in == nil {
			return
		}
		c.kind = combineBinary
	}
	c.swap = swapped
}

// ScratchBytes is the scratch Apply needs.
func (c *Combiner) ScratchBytes() int { return c.Fn.RegBytes() }

// Begin prepares a run of updates (the function's constants).
func (c *Combiner) Begin(scratch []byte) {
	if c.kind == combineFunc {
		c.Fn.LoadConsts(scratch)
	}
}

// Apply combines update element ui into current element ci.
func (c *Combiner) Apply(scratch []byte, cur [][]byte, ci int, upd [][]byte, ui int) error {
	t := c.Types[0]
	switch c.kind {
	case combineKeep:
	case combineOverwrite:
		es := t.ByteSize()
		copy(cur[0][ci*es:ci*es+es], upd[0][ui*es:ui*es+es])
	case combineAddF32:
		Elems[float32](cur[0])[ci] += Elems[float32](upd[0])[ui]
	case combineBinary:
		switch {
		case c.fl != nil:
			x, y := FloatAt(cur[0], t, ci), FloatAt(upd[0], t, ui)
			if c.swap {
				x, y = y, x
			}
			SetFloatAt(cur[0], t, ci, c.fl(x, y))
		case c.cx != nil:
			x, y := ComplexAt(cur[0], t, ci), ComplexAt(upd[0], t, ui)
			if c.swap {
				x, y = y, x
			}
			SetComplexAt(cur[0], t, ci, c.cx(x, y))
		default:
			x, y := IntAt(cur[0], t, ci), IntAt(upd[0], t, ui)
			if c.swap {
				x, y = y, x
			}
			SetIntAt(cur[0], t, ci, c.in(x, y))
		}
	default:
		for j := 0; j < c.N; j++ {
			c.Fn.Load(scratch, j, cur[j], ci)
			c.Fn.Load(scratch, c.N+j, upd[j], ui)
		}
		if err := c.Fn.Run(scratch); err != nil {
			return err
		}
		for j := 0; j < c.N; j++ {
			c.Fn.Store(scratch, j, cur[j], ci)
		}
	}
	return nil
}

// Selector evaluates a predicate computation of two scalars of one type on
// elements of an array: select(x[a], x[b]).
type Selector struct {
	T     ir.ElementType
	Fn    *Func
	std   bool
	dir   ir.ComparisonDirection
	total bool
	swap  bool
}

// NewSelector prepares predicate f on elements of type t.
func NewSelector(f *Func, t ir.ElementType) (*Selector, error) {
	if f == nil {
		return nil, fmt.Errorf("no select computation")
	}
	if len(f.ParamT) != 2 || f.ParamT[0] != t || f.ParamT[1] != t || len(f.ResultT) != 1 || f.ResultT[0] != ir.PRED {
		return nil, fmt.Errorf("computation %s has parameters %v and results %v, expected (%v, %v) -> pred", f.Name, f.ParamT, f.ResultT, t, t)
	}
	s := &Selector{T: t, Fn: f}
	s.standard()
	return s, nil
}

// standard recognises a computation that is one compare of its two
// parameters.
func (s *Selector) standard() {
	c := s.Fn.Computation()
	if c == nil || len(c.Params) != 2 {
		return
	}
	r := c.Nodes[c.Root]
	if r.Op != ir.OpCompare || len(r.Args) != 2 || r.Attrs == nil || r.Attrs.Direction == ir.CmpInvalid {
		return
	}
	switch {
	case r.Args[0] == c.Params[0] && r.Args[1] == c.Params[1]:
	case r.Args[0] == c.Params[1] && r.Args[1] == c.Params[0]:
		s.swap = true
	default:
		return
	}
	t := s.T
	ct := r.Attrs.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	switch {
	case t.IsFloat():
		if ct != ir.CmpTypeFloat && ct != ir.CmpTypeTotalOrder {
			return
		}
	case t.IsSigned():
		if ct != ir.CmpTypeSigned {
			return
		}
	case t.IsUnsigned() || t == ir.PRED:
		// PRED's 0 and 1 order alike either way; unsigned types must
		// compare unsigned for the wide form to order as the values do.
		if ct != ir.CmpTypeUnsigned && t != ir.PRED {
			return
		}
	default:
		return
	}
	s.std, s.dir, s.total = true, r.Attrs.Direction, ct == ir.CmpTypeTotalOrder
}

// ScratchBytes is the scratch Select needs.
func (s *Selector) ScratchBytes() int { return s.Fn.RegBytes() }

// Begin prepares a run of selections (the function's constants).
func (s *Selector) Begin(scratch []byte) {
	if !s.std {
		s.Fn.LoadConsts(scratch)
	}
}

// Select evaluates select(x[a], x[b]).
func (s *Selector) Select(scratch, x []byte, a, b int) (bool, error) {
	if !s.std {
		s.Fn.Load(scratch, 0, x, a)
		s.Fn.Load(scratch, 1, x, b)
		if err := s.Fn.Run(scratch); err != nil {
			return false, err
		}
		return s.Fn.Truth(scratch, 0), nil
	}
	if s.swap {
		a, b = b, a
	}
	t := s.T
	switch {
	case s.total:
		var u, v [1]uint64
		LoadBits(u[:], x, t, a)
		LoadBits(v[:], x, t, b)
		w := t.BitWidth()
		return CompareResult(s.dir, Cmp3(TotalOrderKey(u[0], w), TotalOrderKey(v[0], w))), nil
	case t.IsFloat():
		return CompareResult(s.dir, Cmp3(FloatAt(x, t, a), FloatAt(x, t, b))), nil
	case t.IsUnsigned():
		return CompareResult(s.dir, Cmp3(uint64(IntAt(x, t, a)), uint64(IntAt(x, t, b)))), nil
	}
	return CompareResult(s.dir, Cmp3(IntAt(x, t, a), IntAt(x, t, b))), nil
}
