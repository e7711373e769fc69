package ir

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file reads and writes the value of a `constant(…)` instruction. It
// covers PRED, the integer types, F32 and F64 arrays in XLA's literal text
// (`1.5`, `{1, 2, 3}`, `{ {1, 2}, {3, 4} }`, `inf`, `-inf`, `nan`, `true`);
// other element types and tuples are reported as unsupported.

// parseConstantValue parses the text inside `constant(…)` as a value of shape sh.
func parseConstantValue(sh Shape, text string) (*Literal, error) {
	if !sh.IsArray() {
		return nil, fmt.Errorf("constant of shape %v: only array constants are supported", sh)
	}
	switch {
	case sh.Elem == PRED, sh.Elem.IsInteger() && sh.Elem != S4 && sh.Elem != U4, sh.Elem == F32, sh.Elem == F64:
	default:
		return nil, fmt.Errorf("constant of element type %v is not supported", sh.Elem)
	}
	l, err := NewLiteral(sh.WithoutLayout())
	if err != nil {
		return nil, err
	}
	s := &hloScanner{src: text}
	n := 0
	var walk func(dim int) error
	walk = func(dim int) error {
		if dim == len(sh.Dims) {
			return setConstantElement(s, l, n)
		}
		if err := s.expect('{', fmt.Sprintf("to open dimension %d of constant", dim)); err != nil {
			return err
		}
		for i := 0; i < sh.Dims[dim]; i++ {
			if i > 0 {
				if err := s.expect(',', "between constant elements"); err != nil {
					return err
				}
			}
			if err := walk(dim + 1); err != nil {
				return err
			}
			if dim+1 == len(sh.Dims) {
				n++
			}
		}
		return s.expect('}', fmt.Sprintf("after the %d elements of dimension %d of constant", sh.Dims[dim], dim))
	}
	if err := walk(0); err != nil {
		return nil, err
	}
	if !s.atEOF() {
		return nil, s.errorf("expected end of constant, found %s", s.found())
	}
	return l, nil
}

func setConstantElement(s *hloScanner, l *Literal, i int) error {
	t := l.Shape().Elem
	switch {
	case t == PRED:
		v, err := s.boolValue("pred constant")
		if err != nil {
			return err
		}
		Values[bool](l)[i] = v
	case t == F32 || t == F64:
		s.skipSpace()
		start := s.pos
		w := s.word()
		if w == "" && s.peek() == '-' {
			s.pos++
			w = "-" + s.word()
		}
		v, err := strconv.ParseFloat(w, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return s.errorAt(start, "expected %v value, found %q", t, w)
		}
		if t == F32 {
			Values[float32](l)[i] = float32(v)
		} else {
			Values[float64](l)[i] = v
		}
	default:
		s.skipSpace()
		start := s.pos
		w := s.word()
		if t.IsSigned() {
			v, err := strconv.ParseInt(w, 10, t.BitWidth())
			if err != nil {
				return s.errorAt(start, "expected %v value, found %q", t, w)
			}
			switch t {
			case S8:
				Values[int8](l)[i] = int8(v)
			case S16:
				Values[int16](l)[i] = int16(v)
			case S32:
				Values[int32](l)[i] = int32(v)
			case S64:
				Values[int64](l)[i] = v
			}
			return nil
		}
		v, err := strconv.ParseUint(w, 10, t.BitWidth())
		if err != nil {
			return s.errorAt(start, "expected %v value, found %q", t, w)
		}
		switch t {
		case U8:
			Values[uint8](l)[i] = uint8(v)
		case U16:
			Values[uint16](l)[i] = uint16(v)
		case U32:
			Values[uint32](l)[i] = uint32(v)
		case U64:
			Values[uint64](l)[i] = v
		}
	}
	return nil
}

// constantValueString prints a constant's value as XLA writes it inside
// `constant(…)`.
func constantValueString(l *Literal) string {
	sh := l.Shape()
	if !sh.IsArray() {
		return "{...}"
	}
	var b strings.Builder
	n := 0
	var walk func(dim int)
	walk = func(dim int) {
		if dim == len(sh.Dims) {
			b.WriteString(constantElementString(l, n))
			n++
			return
		}
		b.WriteByte('{')
		for i := 0; i < sh.Dims[dim]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			walk(dim + 1)
		}
		b.WriteByte('}')
	}
	walk(0)
	return b.String()
}

func constantElementString(l *Literal, i int) string {
	switch l.Shape().Elem {
	case PRED:
		return strconv.FormatBool(Values[bool](l)[i])
	case S8:
		return strconv.Itoa(int(Values[int8](l)[i]))
	case S16:
		return strconv.Itoa(int(Values[int16](l)[i]))
	case S32:
		return strconv.Itoa(int(Values[int32](l)[i]))
	case S64:
		return strconv.FormatInt(Values[int64](l)[i], 10)
	case U8:
		return strconv.FormatUint(uint64(Values[uint8](l)[i]), 10)
	case U16:
		return strconv.FormatUint(uint64(Values[uint16](l)[i]), 10)
	case U32:
		return strconv.FormatUint(uint64(Values[uint32](l)[i]), 10)
	case U64:
		return strconv.FormatUint(Values[uint64](l)[i], 10)
	case F32:
		return formatConstantFloat(float64(Values[float32](l)[i]), 32)
	case F64:
		return formatConstantFloat(Values[float64](l)[i], 64)
	}
	return "?"
}

func formatConstantFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}
