package ir

import "fmt"

// ElementType is the type of the elements of an array shape, or one of the two
// non-array kinds TOKEN and TUPLE (XLA's PrimitiveType).
type ElementType uint8

// The element types, in the order of XLA's PrimitiveType where it matters.
const (
	InvalidType ElementType = iota
	PRED                    // boolean, one byte per element (0 or 1)
	S4                      // signed 4-bit integer, stored one per byte (sign-extended)
	S8
	S16
	S32
	S64
	U4 // unsigned 4-bit integer, stored one per byte
	U8
	U16
	U32
	U64
	F16  // IEEE binary16
	BF16 // bfloat16: the top half of a float32
	F32
	F64
	C64  // complex of two float32
	C128 // complex of two float64
	F8E5M2
	F8E4M3FN
	S1            // signed 1-bit integer (0 or -1), stored one per byte (sign-extended)
	S2            // signed 2-bit integer, stored one per byte (sign-extended)
	U1            // unsigned 1-bit integer, stored one per byte
	U2            // unsigned 2-bit integer, stored one per byte
	F8E4M3        // IEEE-like 8-bit float: 4 exponent, 3 mantissa bits, with Inf
	F8E3M4        // IEEE-like 8-bit float: 3 exponent, 4 mantissa bits, with Inf
	F8E4M3FNUZ    // 4 exponent, 3 mantissa bits, bias 8: finite, one NaN, no -0
	F8E5M2FNUZ    // 5 exponent, 2 mantissa bits, bias 16: finite, one NaN, no -0
	F8E4M3B11FNUZ // 4 exponent, 3 mantissa bits, bias 11: finite, one NaN, no -0
	F4E2M1FN      // 4-bit float (MX): 2 exponent, 1 mantissa bit, no Inf or NaN; one per byte
	F8E8M0FNU     // unsigned exponent-only scale (MX): 2^(e-127), 0xFF NaN
	TOKEN         // an ordering token for side-effecting ops; no data
	TUPLE         // a tuple shape; its element shapes are in Shape.Tuple
	OPAQUE        // an opaque value passed to custom calls; no elements
	BUFFER        // a buffer holding an array, printed b(f32[16]); the array's shape is in Shape.Tuple[0]
	numElementTypes
)

// elementInfo is one row of the element-type table.
type elementInfo struct {
	name     string // as XLA prints it: "f32", "pred", "bf16"
	bits     int    // logical width in bits; 0 for TOKEN and TUPLE
	bytes    int    // bytes per element in dense storage (S4/U4 use one byte)
	class    typeClass
	exponent int // float formats: exponent bits
	mantissa int // float formats: explicit mantissa bits
}

type typeClass uint8

const (
	classNone typeClass = iota
	classPred
	classSigned
	classUnsigned
	classFloat
	classComplex
)

var elementTable = [numElementTypes]elementInfo{
	InvalidType:   {name: "invalid"},
	PRED:          {name: "pred", bits: 8, bytes: 1, class: classPred},
	S4:            {name: "s4", bits: 4, bytes: 1, class: classSigned},
	S8:            {name: "s8", bits: 8, bytes: 1, class: classSigned},
	S16:           {name: "s16", bits: 16, bytes: 2, class: classSigned},
	S32:           {name: "s32", bits: 32, bytes: 4, class: classSigned},
	S64:           {name: "s64", bits: 64, bytes: 8, class: classSigned},
	U4:            {name: "u4", bits: 4, bytes: 1, class: classUnsigned},
	U8:            {name: "u8", bits: 8, bytes: 1, class: classUnsigned},
	U16:           {name: "u16", bits: 16, bytes: 2, class: classUnsigned},
	U32:           {name: "u32", bits: 32, bytes: 4, class: classUnsigned},
	U64:           {name: "u64", bits: 64, bytes: 8, class: classUnsigned},
	F16:           {name: "f16", bits: 16, bytes: 2, class: classFloat, exponent: 5, mantissa: 10},
	BF16:          {name: "bf16", bits: 16, bytes: 2, class: classFloat, exponent: 8, mantissa: 7},
	F32:           {name: "f32", bits: 32, bytes: 4, class: classFloat, exponent: 8, mantissa: 23},
	F64:           {name: "f64", bits: 64, bytes: 8, class: classFloat, exponent: 11, mantissa: 52},
	C64:           {name: "c64", bits: 64, bytes: 8, class: classComplex, exponent: 8, mantissa: 23},
	C128:          {name: "c128", bits: 128, bytes: 16, class: classComplex, exponent: 11, mantissa: 52},
	F8E5M2:        {name: "f8e5m2", bits: 8, bytes: 1, class: classFloat, exponent: 5, mantissa: 2},
	F8E4M3FN:      {name: "f8e4m3fn", bits: 8, bytes: 1, class: classFloat, exponent: 4, mantissa: 3},
	S1:            {name: "s1", bits: 1, bytes: 1, class: classSigned},
	S2:            {name: "s2", bits: 2, bytes: 1, class: classSigned},
	U1:            {name: "u1", bits: 1, bytes: 1, class: classUnsigned},
	U2:            {name: "u2", bits: 2, bytes: 1, class: classUnsigned},
	F8E4M3:        {name: "f8e4m3", bits: 8, bytes: 1, class: classFloat, exponent: 4, mantissa: 3},
	F8E3M4:        {name: "f8e3m4", bits: 8, bytes: 1, class: classFloat, exponent: 3, mantissa: 4},
	F8E4M3FNUZ:    {name: "f8e4m3fnuz", bits: 8, bytes: 1, class: classFloat, exponent: 4, mantissa: 3},
	F8E5M2FNUZ:    {name: "f8e5m2fnuz", bits: 8, bytes: 1, class: classFloat, exponent: 5, mantissa: 2},
	F8E4M3B11FNUZ: {name: "f8e4m3b11fnuz", bits: 8, bytes: 1, class: classFloat, exponent: 4, mantissa: 3},
	F4E2M1FN:      {name: "f4e2m1fn", bits: 4, bytes: 1, class: classFloat, exponent: 2, mantissa: 1},
	F8E8M0FNU:     {name: "f8e8m0fnu", bits: 8, bytes: 1, class: classFloat, exponent: 8, mantissa: 0},
	TOKEN:         {name: "token"},
	TUPLE:         {name: "tuple"},
	OPAQUE:        {name: "opaque"},
	BUFFER:        {name: "buffer"},
}

// ElementTypes lists the array element types Kiln has handled from the
// start, in table order; the compiler's tests iterate over it.
var ElementTypes = []ElementType{PRED, S4, S8, S16, S32, S64, U4, U8, U16, U32, U64,
	F16, BF16, F32, F64, C64, C128, F8E5M2, F8E4M3FN}

// AllElementTypes lists every array element type XLA has (excluding TOKEN,
// TUPLE, OPAQUE and BUFFER): ElementTypes, then the narrow types of newer XLA (S1,
// S2, U1, U2, F8E4M3, F8E3M4, the FNUZ types, F4E2M1FN, F8E8M0FNU), which
// the ir package parses, prints, converts and infers shapes for, and the
// evaluator and the runtime compute with.
var AllElementTypes = append(append([]ElementType{}, ElementTypes...),
	S1, S2, U1, U2, F8E4M3, F8E3M4, F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ, F4E2M1FN, F8E8M0FNU)

// String returns the type's name as XLA prints it ("f32", "pred", "bf16").
func (t ElementType) String() string {
	if t < numElementTypes {
		return elementTable[t].name
	}
	return fmt.Sprintf("ElementType(%d)", uint8(t))
}

// ParseElementType returns the element type with XLA's printed name s.
func ParseElementType(s string) (ElementType, bool) {
	for t := PRED; t < numElementTypes; t++ {
		if elementTable[t].name == s {
			return t, true
		}
	}
	return InvalidType, false
}

// Valid reports whether t is one of the defined types (including TOKEN, TUPLE,
// OPAQUE and BUFFER).
func (t ElementType) Valid() bool { return t > InvalidType && t < numElementTypes }

// IsArray reports whether t is the element type of an array (not TOKEN,
// TUPLE, OPAQUE or BUFFER).
func (t ElementType) IsArray() bool {
	return t.Valid() && t != TOKEN && t != TUPLE && t != OPAQUE && t != BUFFER
}

// ByteSize is the number of bytes one element occupies in Kiln's dense storage.
// The sub-byte types (S1, S2, S4, U1, U2, U4, F4E2M1FN) use one byte per
// element; TOKEN, TUPLE and OPAQUE have no elements (0).
func (t ElementType) ByteSize() int {
	if t < numElementTypes {
		return elementTable[t].bytes
	}
	return 0
}

// BitWidth is the logical width of one element in bits (4 for S4/U4, 8 for PRED).
func (t ElementType) BitWidth() int {
	if t < numElementTypes {
		return elementTable[t].bits
	}
	return 0
}

// IsPred reports whether t is PRED.
func (t ElementType) IsPred() bool { return t == PRED }

// IsSigned reports whether t is a signed integer type.
func (t ElementType) IsSigned() bool {
	return t < numElementTypes && elementTable[t].class == classSigned
}

// IsUnsigned reports whether t is an unsigned integer type.
func (t ElementType) IsUnsigned() bool {
	return t < numElementTypes && elementTable[t].class == classUnsigned
}

// IsInteger reports whether t is a signed or unsigned integer type (not PRED).
func (t ElementType) IsInteger() bool { return t.IsSigned() || t.IsUnsigned() }

// IsFloat reports whether t is a real floating-point type.
func (t ElementType) IsFloat() bool {
	return t < numElementTypes && elementTable[t].class == classFloat
}

// IsComplex reports whether t is C64 or C128.
func (t ElementType) IsComplex() bool {
	return t < numElementTypes && elementTable[t].class == classComplex
}

// IsFloatOrComplex reports whether t is a floating-point or complex type.
func (t ElementType) IsFloatOrComplex() bool { return t.IsFloat() || t.IsComplex() }

// ExponentBits is the exponent width of a float type (of each part for complex); 0 otherwise.
func (t ElementType) ExponentBits() int {
	if t < numElementTypes {
		return elementTable[t].exponent
	}
	return 0
}

// MantissaBits is the explicit mantissa width of a float type (of each part for
// complex); 0 otherwise.
func (t ElementType) MantissaBits() int {
	if t < numElementTypes {
		return elementTable[t].mantissa
	}
	return 0
}

// ComplexComponent is the real type of each part of a complex type (F32 for
// C64, F64 for C128); it returns t unchanged for other types.
func (t ElementType) ComplexComponent() ElementType {
	switch t {
	case C64:
		return F32
	case C128:
		return F64
	}
	return t
}

// ComplexOf is the complex type whose parts are t (C64 for F32, C128 for F64),
// or InvalidType.
func ComplexOf(t ElementType) ElementType {
	switch t {
	case F32:
		return C64
	case F64:
		return C128
	}
	return InvalidType
}

// InstructionWithTypeOutside returns the first instruction of m, in module
// order, whose shape holds an array element type not in types (or a buffer
// or opaque value), with that type; nil when every shape is made of types
// from types, tuples and tokens. Stages that handle only some types (the
// runtime and the evaluator take AllElementTypes, no buffers) call it to
// refuse a module by name instead of computing with types they do not
// know.
func (m *Module) InstructionWithTypeOutside(types []ElementType) (*Instruction, ElementType) {
	var bad func(s Shape) ElementType
	bad = func(s Shape) ElementType {
		switch {
		case s.IsTuple():
			for _, e := range s.Tuple {
				if t := bad(e); t != InvalidType {
					return t
				}
			}
			return InvalidType
		case s.IsToken():
			return InvalidType
		case !s.IsArray():
			return s.Elem
		}
		for _, t := range types {
			if t == s.Elem {
				return InvalidType
			}
		}
		return s.Elem
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if t := bad(in.Shape); t != InvalidType {
				return in, t
			}
		}
	}
	return nil, InvalidType
}
