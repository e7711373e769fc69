package ir

import (
	"encoding/binary"
	"fmt"
)

// Constants printed as `constant({...})` (what XLA's dumps and JAX's
// `compiler_ir('hlo').as_hlo_text()` write for any constant of more than ten
// elements) parse with LiteralElided set and no value. A module holding one
// cannot be evaluated until the values are supplied; XLA's parser option
// fill_shortform_constants_with_random_values fills them with deterministic
// garbage, which ElidedConstantFiller reproduces.

// ElidedConstants lists the constants of m whose value is elided, in module
// order (computations as listed, instructions in order).
func (m *Module) ElidedConstants() []*Instruction {
	var out []*Instruction
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == OpConstant && in.LiteralElided {
				out = append(out, in)
			}
		}
	}
	return out
}

// FillElidedConstants gives every elided constant of m, in module order, the
// value fill returns for it (which must have the constant's shape), and
// clears LiteralElided.
func (m *Module) FillElidedConstants(fill func(*Instruction) (*Literal, error)) error {
	for _, in := range m.ElidedConstants() {
		l, err := fill(in)
		if err != nil {
			return fmt.Errorf("constant %q: %w", in.Name, err)
		}
		if l == nil || !l.Shape().EqualIgnoringLayout(in.Shape.WithoutLayout()) && !l.Shape().Compatible(in.Shape) {
			return fmt.Errorf("constant %q of shape %s: the value supplied does not have its shape", in.Name, in.Shape.StringWithoutLayout())
		}
		in.Literal, in.LiteralElided = l, false
	}
	return nil
}

// NewElidedConstantFiller returns a function giving each constant it is
// called with the deterministic values XLA's parser writes into elided
// constants when asked to fill them (its
// fill_shortform_constants_with_random_values): the literal's bytes, taken
// as little-endian 32-bit words, count 0, 1, 2, … across every constant the
// function fills, in order, and the trailing bytes of a literal whose size
// is not a multiple of 4 take the values of a second, 8-bit counter at the
// offsets XLA writes them to (size/4 + i). PRED elements keep only their low
// bit, and the sub-byte types (S1, S2, S4, U1, U2, U4, F4E2M1FN) only their
// bits, as Kiln stores them.
func NewElidedConstantFiller() func(*Instruction) (*Literal, error) {
	var word uint32
	var small uint8
	return func(in *Instruction) (*Literal, error) {
		sh := in.Shape.WithoutLayout()
		if !sh.IsArray() {
			return nil, fmt.Errorf("an elided constant of shape %s cannot be filled (arrays only)", sh.StringWithoutLayout())
		}
		l, err := NewLiteral(MakeShape(sh.Elem, sh.Dims...))
		if err != nil {
			return nil, err
		}
		mask := uint32(0xffffffff)
		if sh.Elem == PRED {
			mask = 0x01010101
		}
		data := l.data
		n := len(data)
		for i := 0; i+4 <= n; i += 4 {
			binary.LittleEndian.PutUint32(data[i:], word&mask)
			word++
		}
		for i := 0; i < n%4; i++ {
			data[n/4+i] = small & uint8(mask)
			small++
		}
		if bits := sh.Elem.BitWidth(); sh.Elem != PRED && bits < 8 {
			for i := range data {
				v := int64(data[i])
				if sh.Elem.IsSigned() {
					v = v << (64 - bits) >> (64 - bits)
				} else {
					v &= 1<<bits - 1
				}
				data[i] = uint8(v)
			}
		}
		if sh.IsDynamic() {
			l.shape = sh.Clone()
		}
		return l, nil
	}
}
