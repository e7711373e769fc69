package runtime

import (
	"fmt"
	"unsafe"

	"github.com/kilnml/kiln/ir"
)

// Tensor is an array value passed to or returned by an Executable: a shape
// and the bytes of its elements.
//
// The bytes are laid out in the physical order of the shape's layout (dense
// row-major for the default layout, which is what Go slices and .npy files
// hold), in the machine's native byte order, with the element encodings of
// ir.Literal (PRED one byte 0/1, F16/BF16 as their 16 bits, …). Typed views
// share the storage.
type Tensor struct {
	shape ir.Shape
	data  []byte
}

// NewTensor returns a zero-filled tensor of an array shape, or a token
// (no bytes: the value after-all and the I/O ops order with).
func NewTensor(s ir.Shape) (*Tensor, error) {
	if s.IsToken() {
		return &Tensor{shape: ir.TokenShape(), data: []byte{}}, nil
	}
	if !s.IsArray() {
		return nil, fmt.Errorf("runtime: tensor shape %v is not an array", s)
	}
	if err := s.CheckValid(); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	n := s.ByteSize()
	if n < 0 || n > ir.MaxLiteralBytes {
		return nil, fmt.Errorf("runtime: tensor of shape %v needs %d bytes, above the limit of %d", s, n, ir.MaxLiteralBytes)
	}
	return &Tensor{shape: s.Clone(), data: alignedBytes(n)}, nil
}

// TensorFromSlice returns a row-major tensor with the given dimensions
// holding a copy of values. With no dims it is rank 1.
func TensorFromSlice[T ir.Native](values []T, dims ...int) (*Tensor, error) {
	l, err := ir.LiteralFromSlice(values, dims...)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return TensorFromLiteral(l), nil
}

// TensorFromLiteral returns a tensor sharing an array literal's storage
// (literals are row-major, so the tensor has the default layout).
func TensorFromLiteral(l *ir.Literal) *Tensor {
	return &Tensor{shape: l.Shape().WithoutLayout(), data: l.Bytes()}
}

// TensorFromBytes returns a tensor of shape s over data (not copied), which
// must hold s's elements in the physical order of its layout and be aligned
// to the element size.
func TensorFromBytes(s ir.Shape, data []byte) (*Tensor, error) {
	if !s.IsArray() {
		return nil, fmt.Errorf("runtime: tensor shape %v is not an array", s)
	}
	if n := s.ByteSize(); n != len(data) {
		return nil, fmt.Errorf("runtime: tensor of shape %v needs %d bytes, got %d", s, n, len(data))
	}
	if !aligned(data, s.Elem.ByteSize()) {
		return nil, fmt.Errorf("runtime: tensor storage for %v is not aligned to its element size", s)
	}
	return &Tensor{shape: s.Clone(), data: data}, nil
}

// Clone returns a copy of the tensor with storage of its own.
func (t *Tensor) Clone() *Tensor {
	c := &Tensor{shape: t.shape.Clone(), data: alignedBytes(len(t.data))}
	copy(c.data, t.data)
	return c
}

// Shape returns the tensor's shape.
func (t *Tensor) Shape() ir.Shape { return t.shape }

// Bytes returns the tensor's storage (shared).
func (t *Tensor) Bytes() []byte { return t.data }

// Literal returns the tensor's value as a literal. A row-major tensor's
// literal shares its storage; a tensor with another layout is copied into
// row-major order.
func (t *Tensor) Literal() *ir.Literal {
	if t.shape.IsToken() {
		return ir.NewTokenLiteral()
	}
	if t.shape.HasDefaultLayout() {
		l, err := ir.NewLiteralView(t.shape.WithoutLayout(), t.data)
		if err == nil {
			return l
		}
	}
	l := ir.MustNewLiteral(t.shape.WithoutLayout())
	copyToRowMajor(l.Bytes(), t.data, t.shape)
	return l
}

// copyToRowMajor copies the elements of src, stored under s's layout, into
// dst in row-major order.
func copyToRowMajor(dst, src []byte, s ir.Shape) {
	size := s.Elem.ByteSize()
	idx := make([]int, s.Rank())
	n := s.ElementCount()
	for i := 0; i < n; i++ {
		p := s.LinearIndex(idx)
		copy(dst[i*size:(i+1)*size], src[p*size:(p+1)*size])
		ir.NextIndex(s.Dims, idx)
	}
}

// view returns the tensor's elements as []T; T must match the element type.
func view[T ir.Native](t *Tensor) []T {
	if want := ir.ElementTypeOf[T](); t.shape.Elem != want {
		panic(fmt.Sprintf("runtime: tensor has element type %v, not %v", t.shape.Elem, want))
	}
	n := len(t.data) / int(unsafe.Sizeof(*new(T)))
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&t.data[0])), n)
}

// Float32s returns the elements of an F32 tensor (shared storage).
func (t *Tensor) Float32s() []float32 { return view[float32](t) }

// Float64s returns the elements of an F64 tensor (shared storage).
func (t *Tensor) Float64s() []float64 { return view[float64](t) }

// Int32s returns the elements of an S32 tensor (shared storage).
func (t *Tensor) Int32s() []int32 { return view[int32](t) }

// Int64s returns the elements of an S64 tensor (shared storage).
func (t *Tensor) Int64s() []int64 { return view[int64](t) }

// Uint8s returns the elements of a U8 tensor (shared storage).
func (t *Tensor) Uint8s() []uint8 { return view[uint8](t) }

// Bools returns the elements of a PRED tensor (shared storage).
func (t *Tensor) Bools() []bool { return view[bool](t) }

// String prints the tensor as XLA literal text.
func (t *Tensor) String() string { return t.Literal().String() }

// alignedBytes allocates n zero bytes aligned to 64 bytes, so every element
// type and every vector load is aligned.
func alignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	buf := make([]byte, n+63)
	off := (64 - int(uintptr(unsafe.Pointer(&buf[0]))%64)) % 64
	return buf[off : off+n : off+n]
}

func aligned(b []byte, size int) bool {
	if len(b) == 0 || size <= 1 {
		return true
	}
	return uintptr(unsafe.Pointer(&b[0]))%uintptr(min(size, 8)) == 0
}
