package ir

import (
	"bytes"
	"fmt"
	"slices"
	"unsafe"
)

// Literal is a constant value of some shape: an array, a tuple of literals, or
// a token.
//
// An array literal stores its elements densely in row-major order (dimension
// 0 slowest), whatever layout its shape carries, one element after another in
// the machine's native byte order: PRED as one byte 0 or 1, S4/U4 one per byte
// (S4 sign-extended), F16/BF16 as their 16 bits, F8 types as their 8 bits,
// complex numbers as (real, imaginary) pairs. Typed views (Float32s, Values,
// …) share that storage. For a bounded dynamic shape, the literal's
// dimensions are the actual sizes and Dynamic marks which are dynamic.
type Literal struct {
	shape Shape
	data  []byte     // array storage; nil for tuples and tokens
	elems []*Literal // tuple elements
}

// MaxLiteralBytes bounds the storage NewLiteral will allocate, so that a huge
// shape is refused with an error instead of exhausting memory. Callers may
// change it before use.
var MaxLiteralBytes = 1 << 34

// NewLiteral returns a zero-filled literal of shape s (tuples recursively).
func NewLiteral(s Shape) (*Literal, error) {
	if err := s.CheckValid(); err != nil {
		return nil, err
	}
	if n := s.ByteSize(); n < 0 || n > MaxLiteralBytes {
		return nil, fmt.Errorf("literal of shape %v needs %d bytes, above the limit of %d", s, n, MaxLiteralBytes)
	}
	return newLiteralUnchecked(s), nil
}

func newLiteralUnchecked(s Shape) *Literal {
	l := &Literal{shape: s.Clone()}
	switch {
	case s.IsTuple():
		l.elems = make([]*Literal, len(s.Tuple))
		for i, e := range s.Tuple {
			l.elems[i] = newLiteralUnchecked(e)
		}
	case s.IsArray():
		l.data = alignedBytes(s.ByteSize())
	}
	return l
}

// alignedBytes allocates n zero bytes aligned for any element type.
func alignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// MustNewLiteral is NewLiteral for shapes known to be valid; it panics on error.
func MustNewLiteral(s Shape) *Literal {
	l, err := NewLiteral(s)
	if err != nil {
		panic(err)
	}
	return l
}

// NewTupleLiteral returns the tuple of the given literals (not copied).
func NewTupleLiteral(elems ...*Literal) *Literal {
	shapes := make([]Shape, len(elems))
	for i, e := range elems {
		shapes[i] = e.shape
	}
	return &Literal{shape: MakeTuple(shapes...), elems: slices.Clone(elems)}
}

// NewTokenLiteral returns a token.
func NewTokenLiteral() *Literal { return &Literal{shape: TokenShape()} }

// LiteralFromBytes returns an array literal of shape s whose storage is a copy
// of data (dense row-major, native byte order, as Literal documents).
func LiteralFromBytes(s Shape, data []byte) (*Literal, error) {
	if !s.IsArray() {
		return nil, fmt.Errorf("LiteralFromBytes: shape %v is not an array", s)
	}
	l, err := NewLiteral(s)
	if err != nil {
		return nil, err
	}
	if len(data) != len(l.data) {
		return nil, fmt.Errorf("LiteralFromBytes: shape %v needs %d bytes, got %d", s, len(l.data), len(data))
	}
	copy(l.data, data)
	return l, nil
}

// Shape returns the literal's shape.
func (l *Literal) Shape() Shape { return l.shape }

// Bytes returns the literal's array storage (shared, not copied).
func (l *Literal) Bytes() []byte { return l.data }

// Elements returns a tuple literal's elements (shared).
func (l *Literal) Elements() []*Literal { return l.elems }

// Element returns tuple element i.
func (l *Literal) Element(i int) *Literal { return l.elems[i] }

// ElementCount is the number of array elements.
func (l *Literal) ElementCount() int { return l.shape.ElementCount() }

// Clone returns a deep copy of l.
func (l *Literal) Clone() *Literal {
	c := &Literal{shape: l.shape.Clone()}
	if l.data != nil {
		c.data = alignedBytes(len(l.data))
		copy(c.data, l.data)
	}
	if l.elems != nil {
		c.elems = make([]*Literal, len(l.elems))
		for i, e := range l.elems {
			c.elems[i] = e.Clone()
		}
	}
	return c
}

// Equal reports whether two literals have equal shapes (ignoring layouts) and
// bitwise-equal contents. NaNs with the same bits are equal; +0 and -0 differ.
func (l *Literal) Equal(o *Literal) bool {
	if !l.shape.EqualIgnoringLayout(o.shape) || len(l.elems) != len(o.elems) {
		return false
	}
	for i := range l.elems {
		if !l.elems[i].Equal(o.elems[i]) {
			return false
		}
	}
	return bytes.Equal(l.data, o.data)
}

// Reshape returns a literal with the same elements in row-major order and new
// dimensions (sharing storage). The element counts must match.
func (l *Literal) Reshape(dims ...int) (*Literal, error) {
	s := MakeShape(l.shape.Elem, dims...)
	if !l.shape.IsArray() || s.ElementCount() != l.shape.ElementCount() {
		return nil, fmt.Errorf("reshape of literal %v to %v: element counts differ", l.shape, dims)
	}
	return &Literal{shape: s, data: l.data}, nil
}

// Index returns the row-major position of a multi-index in the literal's storage.
func (l *Literal) Index(index ...int) int { return RowMajorIndex(l.shape.Dims, index) }

// Native is the set of Go types that hold one element of some element type.
// Int4 and Uint4 hold S4 and U4; Float16, BFloat16, Float8E5M2 and
// Float8E4M3FN hold the bits of the narrow float types.
type Native interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | complex64 | complex128 |
		Int4 | Uint4 | Float16 | BFloat16 | Float8E5M2 | Float8E4M3FN
}

// Int4 holds an S4 value in -8..7.
type Int4 int8

// Uint4 holds a U4 value in 0..15.
type Uint4 uint8

// Float16 holds the bits of an IEEE binary16 value.
type Float16 uint16

// BFloat16 holds the bits of a bfloat16 value (the top 16 bits of a float32).
type BFloat16 uint16

// Float8E5M2 holds the bits of an f8e5m2 value (1 sign, 5 exponent, 2 mantissa bits; IEEE-like with Inf and NaN).
type Float8E5M2 uint8

// Float8E4M3FN holds the bits of an f8e4m3fn value (1 sign, 4 exponent, 3 mantissa bits; finite, NaN only at S.1111.111).
type Float8E4M3FN uint8

// ElementTypeOf returns the element type whose elements a Go value of type T holds.
func ElementTypeOf[T Native]() ElementType {
	var z T
	switch any(z).(type) {
	case bool:
		return PRED
	case int8:
		return S8
	case int16:
		return S16
	case int32:
		return S32
	case int64:
		return S64
	case uint8:
		return U8
	case uint16:
		return U16
	case uint32:
		return U32
	case uint64:
		return U64
	case float32:
		return F32
	case float64:
		return F64
	case complex64:
		return C64
	case complex128:
		return C128
	case Int4:
		return S4
	case Uint4:
		return U4
	case Float16:
		return F16
	case BFloat16:
		return BF16
	case Float8E5M2:
		return F8E5M2
	case Float8E4M3FN:
		return F8E4M3FN
	}
	return InvalidType
}

// Values returns the literal's elements as a []T sharing its storage. T must
// be the Go type of the literal's element type (see ElementTypeOf); otherwise
// Values panics, as that is a programming error.
func Values[T Native](l *Literal) []T {
	if want := ElementTypeOf[T](); l.shape.Elem != want {
		panic(fmt.Sprintf("ir.Values: literal has element type %v, not %v", l.shape.Elem, want))
	}
	n := l.shape.ElementCount()
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&l.data[0])), n)
}

// LiteralFromSlice returns an array literal with the given dimensions holding
// a copy of values (row-major). With no dims, it is a rank-1 literal of
// len(values) elements.
func LiteralFromSlice[T Native](values []T, dims ...int) (*Literal, error) {
	if dims == nil {
		dims = []int{len(values)}
	}
	s := MakeShape(ElementTypeOf[T](), dims...)
	if n := s.ElementCount(); n != len(values) {
		return nil, fmt.Errorf("literal of shape %v needs %d values, got %d", s, n, len(values))
	}
	l, err := NewLiteral(s)
	if err != nil {
		return nil, err
	}
	copy(Values[T](l), values)
	return l, nil
}

// MustLiteralFromSlice is LiteralFromSlice that panics on error (for tests
// and constants known to be well-formed).
func MustLiteralFromSlice[T Native](values []T, dims ...int) *Literal {
	l, err := LiteralFromSlice(values, dims...)
	if err != nil {
		panic(err)
	}
	return l
}

// ScalarLiteral returns a rank-0 literal holding v.
func ScalarLiteral[T Native](v T) *Literal {
	l := newLiteralUnchecked(Scalar(ElementTypeOf[T]()))
	Values[T](l)[0] = v
	return l
}

// Get returns the element at a multi-index.
func Get[T Native](l *Literal, index ...int) T { return Values[T](l)[l.Index(index...)] }

// Set stores v at a multi-index.
func Set[T Native](l *Literal, v T, index ...int) { Values[T](l)[l.Index(index...)] = v }

// Float32s returns the elements of an F32 literal (shared storage).
func (l *Literal) Float32s() []float32 { return Values[float32](l) }

// Float64s returns the elements of an F64 literal (shared storage).
func (l *Literal) Float64s() []float64 { return Values[float64](l) }

// Int32s returns the elements of an S32 literal (shared storage).
func (l *Literal) Int32s() []int32 { return Values[int32](l) }

// Int64s returns the elements of an S64 literal (shared storage).
func (l *Literal) Int64s() []int64 { return Values[int64](l) }

// Bools returns the elements of a PRED literal (shared storage).
func (l *Literal) Bools() []bool { return Values[bool](l) }

// NewLiteralView returns an array literal of shape s whose storage is data
// itself (not copied): dense row-major elements in native byte order, as
// Literal documents. It lets the runtime hand its buffers to code that works
// on literals without copying them.
func NewLiteralView(s Shape, data []byte) (*Literal, error) {
	if !s.IsArray() {
		return nil, fmt.Errorf("NewLiteralView: shape %v is not an array", s)
	}
	if err := s.CheckValid(); err != nil {
		return nil, err
	}
	if n := s.ByteSize(); n != len(data) {
		return nil, fmt.Errorf("NewLiteralView: shape %v needs %d bytes, got %d", s, n, len(data))
	}
	if len(data) > 0 && uintptr(unsafe.Pointer(&data[0]))%uintptr(min(s.Elem.ByteSize(), 8)) != 0 {
		return nil, fmt.Errorf("NewLiteralView: storage for %v is not aligned to its element size", s)
	}
	return &Literal{shape: s.Clone(), data: data}, nil
}

// ToStatic returns l with every bounded dynamic array as the static array
// of its actual sizes (XLA's Literal::ToStatic): the same elements, no
// dynamic dimensions. Storage is shared.
func (l *Literal) ToStatic() *Literal {
	switch {
	case l.shape.IsTuple():
		elems := make([]*Literal, len(l.elems))
		for i, e := range l.elems {
			elems[i] = e.ToStatic()
		}
		return NewTupleLiteral(elems...)
	case !l.shape.IsArray() || !l.shape.IsDynamic():
		return l
	}
	s := l.shape.Clone()
	s.Dynamic = nil
	return &Literal{shape: s, data: l.data}
}
