package ir

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Shape describes an array (element type, dimensions, layout), a tuple of
// shapes, or a token — XLA's Shape.
//
// For arrays, Dims holds the size of each dimension, dimension 0 first. A
// dimension marked in Dynamic is a bounded dynamic dimension: Dims holds its
// bound (printed `<=10`). A nil Layout means the default layout, major-to-minor
// (minor_to_major = {rank-1, …, 1, 0}).
type Shape struct {
	Elem    ElementType
	Dims    []int
	Dynamic []bool  // nil when every dimension is static; otherwise len(Dims) flags
	Tuple   []Shape // element shapes when Elem == TUPLE
	Layout  *Layout // nil: default major-to-minor layout
}

// MakeShape returns the array shape with element type t and the given
// dimensions and the default layout.
func MakeShape(t ElementType, dims ...int) Shape {
	return Shape{Elem: t, Dims: slices.Clone(dims)}
}

// Scalar returns the rank-0 shape of type t.
func Scalar(t ElementType) Shape { return Shape{Elem: t} }

// MakeTuple returns the tuple shape of the given element shapes.
func MakeTuple(elems ...Shape) Shape {
	return Shape{Elem: TUPLE, Tuple: cloneShapes(elems)}
}

// TokenShape returns the token shape.
func TokenShape() Shape { return Shape{Elem: TOKEN} }

// MakeDynamicShape returns an array shape whose dimensions flagged in dynamic
// are bounded dynamic dimensions with the given bounds.
func MakeDynamicShape(t ElementType, dims []int, dynamic []bool) Shape {
	s := Shape{Elem: t, Dims: slices.Clone(dims)}
	if slices.Contains(dynamic, true) {
		s.Dynamic = slices.Clone(dynamic)
	}
	return s
}

func cloneShapes(s []Shape) []Shape {
	if s == nil {
		return nil
	}
	out := make([]Shape, len(s))
	for i := range s {
		out[i] = s[i].Clone()
	}
	return out
}

// Clone returns a deep copy of s.
func (s Shape) Clone() Shape {
	c := Shape{Elem: s.Elem, Dims: slices.Clone(s.Dims), Dynamic: slices.Clone(s.Dynamic), Tuple: cloneShapes(s.Tuple)}
	if s.Layout != nil {
		l := s.Layout.Clone()
		c.Layout = &l
	}
	return c
}

// IsArray reports whether s is an array shape.
func (s Shape) IsArray() bool { return s.Elem.IsArray() }

// IsTuple reports whether s is a tuple shape.
func (s Shape) IsTuple() bool { return s.Elem == TUPLE }

// IsToken reports whether s is the token shape.
func (s Shape) IsToken() bool { return s.Elem == TOKEN }

// IsBuffer reports whether s is a buffer shape (XLA's `b(f32[16])`), whose
// array shape is s.Tuple[0].
func (s Shape) IsBuffer() bool { return s.Elem == BUFFER }

// MakeBuffer returns the shape of a buffer holding an array of shape array.
func MakeBuffer(array Shape) Shape { return Shape{Elem: BUFFER, Tuple: []Shape{array.Clone()}} }

// Rank is the number of dimensions of an array shape (0 for scalars and non-arrays).
func (s Shape) Rank() int { return len(s.Dims) }

// IsScalar reports whether s is a rank-0 array.
func (s Shape) IsScalar() bool { return s.IsArray() && len(s.Dims) == 0 }

// IsDynamicDim reports whether dimension i is a bounded dynamic dimension.
func (s Shape) IsDynamicDim(i int) bool { return s.Dynamic != nil && s.Dynamic[i] }

// IsDynamic reports whether any dimension of s (or of a tuple element) is dynamic.
func (s Shape) IsDynamic() bool {
	if s.IsTuple() {
		for _, e := range s.Tuple {
			if e.IsDynamic() {
				return true
			}
		}
		return false
	}
	return slices.Contains(s.Dynamic, true)
}

// IsStatic reports whether no dimension of s is dynamic.
func (s Shape) IsStatic() bool { return !s.IsDynamic() }

// ElementCount is the number of elements of an array shape (1 for scalars),
// using the bounds of dynamic dimensions. It returns -1 if the count overflows
// an int; non-array shapes have 0 elements.
func (s Shape) ElementCount() int {
	if !s.IsArray() {
		return 0
	}
	n := 1
	for _, d := range s.Dims {
		if d < 0 {
			return -1
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return -1
		}
		n = int(lo)
	}
	return n
}

// ByteSize is the number of bytes of the dense storage of s: element count
// times element size for arrays, the sum over elements for tuples, 0 for
// tokens. It returns -1 on overflow.
func (s Shape) ByteSize() int {
	switch {
	case s.IsTuple():
		total := 0
		for _, e := range s.Tuple {
			b := e.ByteSize()
			if b < 0 || total > math.MaxInt-b {
				return -1
			}
			total += b
		}
		return total
	case s.IsArray():
		n := s.ElementCount()
		if n < 0 {
			return -1
		}
		hi, lo := bits.Mul64(uint64(n), uint64(s.Elem.ByteSize()))
		if hi != 0 || lo > math.MaxInt {
			return -1
		}
		return int(lo)
	}
	return 0
}

// MinorToMajor returns the layout's minor-to-major order, or the default
// (rank-1, …, 0) when s has no layout.
func (s Shape) MinorToMajor() []int {
	if s.Layout != nil && len(s.Layout.MinorToMajor) == len(s.Dims) {
		return s.Layout.MinorToMajor
	}
	return DefaultMinorToMajor(len(s.Dims))
}

// HasDefaultLayout reports whether s's layout is the default major-to-minor
// layout with no tiling, padding or memory space.
func (s Shape) HasDefaultLayout() bool {
	if s.Layout == nil {
		return true
	}
	return s.Layout.IsDefaultFor(len(s.Dims))
}

// DefaultMinorToMajor returns {rank-1, …, 1, 0}.
func DefaultMinorToMajor(rank int) []int {
	m := make([]int, rank)
	for i := range m {
		m[i] = rank - 1 - i
	}
	return m
}

// WithLayout returns a copy of s with the given layout (nil for default).
func (s Shape) WithLayout(l *Layout) Shape {
	c := s.Clone()
	if l != nil {
		lc := l.Clone()
		c.Layout = &lc
	} else {
		c.Layout = nil
	}
	return c
}

// WithElem returns a copy of s with element type t.
func (s Shape) WithElem(t ElementType) Shape {
	c := s.Clone()
	c.Elem = t
	return c
}

// WithoutLayout returns a copy of s (and of its tuple elements) with every
// layout cleared to the default.
func (s Shape) WithoutLayout() Shape {
	c := s.Clone()
	c.clearLayouts()
	return c
}

func (s *Shape) clearLayouts() {
	s.Layout = nil
	for i := range s.Tuple {
		s.Tuple[i].clearLayouts()
	}
}

// Equal reports whether s and o are the same shape, layouts included (a nil
// layout equals an explicit default layout).
func (s Shape) Equal(o Shape) bool { return s.equal(o, true) }

// EqualIgnoringLayout reports whether s and o have the same element types,
// dimensions and dynamic flags, ignoring layouts.
func (s Shape) EqualIgnoringLayout(o Shape) bool { return s.equal(o, false) }

func (s Shape) equal(o Shape, layout bool) bool {
	if s.Elem != o.Elem {
		return false
	}
	if s.IsTuple() || s.IsBuffer() {
		if len(s.Tuple) != len(o.Tuple) {
			return false
		}
		for i := range s.Tuple {
			if !s.Tuple[i].equal(o.Tuple[i], layout) {
				return false
			}
		}
		return true
	}
	if !slices.Equal(s.Dims, o.Dims) {
		return false
	}
	for i := range s.Dims {
		if s.IsDynamicDim(i) != o.IsDynamicDim(i) {
			return false
		}
	}
	if !layout {
		return true
	}
	return s.layoutOrDefault().Equal(o.layoutOrDefault())
}

func (s Shape) layoutOrDefault() Layout {
	if s.Layout != nil {
		return *s.Layout
	}
	return Layout{MinorToMajor: DefaultMinorToMajor(len(s.Dims))}
}

// Compatible reports whether s and o are compatible as XLA's
// ShapeUtil::Compatible defines it: same element type and dimensions (a
// dynamic dimension is compatible with any size up to its bound, and with
// another dynamic dimension), layouts ignored.
func (s Shape) Compatible(o Shape) bool {
	if s.Elem != o.Elem {
		return false
	}
	if s.IsTuple() || s.IsBuffer() {
		if len(s.Tuple) != len(o.Tuple) {
			return false
		}
		for i := range s.Tuple {
			if !s.Tuple[i].Compatible(o.Tuple[i]) {
				return false
			}
		}
		return true
	}
	if len(s.Dims) != len(o.Dims) {
		return false
	}
	for i := range s.Dims {
		if s.Dims[i] == o.Dims[i] {
			continue
		}
		sd, od := s.IsDynamicDim(i), o.IsDynamicDim(i)
		if (sd && o.Dims[i] <= s.Dims[i]) || (od && s.Dims[i] <= o.Dims[i]) {
			continue
		}
		return false
	}
	return true
}

// SameDimensions reports whether two array shapes have equal dimensions,
// ignoring element types, dynamic flags and layouts.
func SameDimensions(a, b Shape) bool { return slices.Equal(a.Dims, b.Dims) }

// String prints s as XLA does: `f32[2,3]{1,0}` with a layout, `f32[2,3]`
// without one, `f32[<=10,4]` for a bounded dynamic dimension, `(f32[], s32[2])`
// for tuples, `token[]` for tokens.
func (s Shape) String() string {
	var b strings.Builder
	s.write(&b, true)
	return b.String()
}

// StringWithoutLayout prints s without layouts.
func (s Shape) StringWithoutLayout() string {
	var b strings.Builder
	s.write(&b, false)
	return b.String()
}

func (s Shape) write(b *strings.Builder, layout bool) {
	switch {
	case s.IsTuple():
		b.WriteByte('(')
		for i, e := range s.Tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b, layout)
		}
		b.WriteByte(')')
		return
	case s.IsToken():
		b.WriteString("token[]")
		return
	case s.IsBuffer() && len(s.Tuple) == 1:
		b.WriteString("b(")
		s.Tuple[0].write(b, layout)
		b.WriteByte(')')
		return
	case s.Elem == OPAQUE:
		b.WriteString("opaque[]")
		return
	}
	b.WriteString(s.Elem.String())
	b.WriteByte('[')
	for i, d := range s.Dims {
		if i > 0 {
			b.WriteByte(',')
		}
		if s.IsDynamicDim(i) {
			b.WriteString("<=")
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	if layout && s.Layout != nil {
		b.WriteString(s.Layout.String())
	}
}

// CheckValid reports an error if s is malformed: an invalid element type,
// negative dimensions, dynamic flags of the wrong length, a layout that is not
// a permutation of the dimensions, or a size that overflows.
func (s Shape) CheckValid() error {
	switch {
	case s.IsTuple():
		if len(s.Dims) != 0 {
			return fmt.Errorf("tuple shape has dimensions %v", s.Dims)
		}
		for i, e := range s.Tuple {
			if err := e.CheckValid(); err != nil {
				return fmt.Errorf("tuple element %d: %w", i, err)
			}
		}
		return nil
	case s.IsToken() || s.Elem == OPAQUE:
		if len(s.Dims) != 0 {
			return fmt.Errorf("%v shape has dimensions %v", s.Elem, s.Dims)
		}
		return nil
	case s.IsBuffer():
		if len(s.Dims) != 0 || len(s.Tuple) != 1 || !s.Tuple[0].IsArray() {
			return fmt.Errorf("a buffer shape holds one array shape")
		}
		if err := s.Tuple[0].CheckValid(); err != nil {
			return fmt.Errorf("buffer: %w", err)
		}
		return nil
	case !s.Elem.IsArray():
		return fmt.Errorf("invalid element type %v", s.Elem)
	}
	for i, d := range s.Dims {
		if d < 0 {
			return fmt.Errorf("shape %v: dimension %d has negative size %d", s, i, d)
		}
	}
	if s.Dynamic != nil && len(s.Dynamic) != len(s.Dims) {
		return fmt.Errorf("shape %v: %d dynamic flags for %d dimensions", s, len(s.Dynamic), len(s.Dims))
	}
	if s.ByteSize() < 0 {
		return fmt.Errorf("shape %v: size overflows", s)
	}
	if s.Layout != nil {
		if err := s.Layout.checkFor(len(s.Dims)); err != nil {
			return fmt.Errorf("shape %v: %w", s, err)
		}
	}
	return nil
}
