package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// SparsityDescriptor is one entry of a dot's or convolution's
// sparsity_config: operand Operand (0 lhs, 1 rhs) holds N of every M
// elements along Dimension, compressed (its Dimension is M/N times shorter
// than the dense operand's); operand MetaIndex of the instruction holds, for
// every stored element, its position within its block of M.
type SparsityDescriptor struct {
	Operand   int
	N, M      int
	Dimension int
	MetaIndex int
}

// Sparsity parses the instruction's sparsity_config attribute, written
// `sparsity_config={rhs={sparsity=1x4 dimension=0 stride=1 idx=2}}`. It
// returns nil when there is none.
func (in *Instruction) Sparsity() ([]SparsityDescriptor, error) { return ParseSparsity(in.Raw) }

// ParseSparsity parses the sparsity_config among uninterpreted attributes
// (nil when there is none).
func ParseSparsity(attrs []RawAttribute) ([]SparsityDescriptor, error) {
	raw, ok := "", false
	for _, a := range attrs {
		if a.Name == "sparsity_config" {
			raw, ok = a.Value, true
		}
	}
	if !ok {
		return nil, nil
	}
	body := strings.TrimSpace(raw)
	body = strings.TrimSuffix(strings.TrimPrefix(body, "{"), "}")
	var out []SparsityDescriptor
	for body = strings.TrimSpace(body); body != ""; body = strings.TrimSpace(body) {
		side, rest, ok := strings.Cut(body, "=")
		side = strings.TrimSpace(side)
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasPrefix(rest, "{") {
			return nil, fmt.Errorf("sparsity_config: expected lhs={…} or rhs={…}, found %q", body)
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("sparsity_config: unterminated %s={…}", side)
		}
		d := SparsityDescriptor{MetaIndex: -1}
		switch side {
		case "lhs":
			d.Operand = 0
		case "rhs":
			d.Operand = 1
		default:
			return nil, fmt.Errorf("sparsity_config: unknown operand %q (expected lhs or rhs)", side)
		}
		stride := 1
		for _, f := range strings.Fields(rest[1:end]) {
			k, v, _ := strings.Cut(f, "=")
			var err error
			switch k {
			case "sparsity":
				n, m, ok := strings.Cut(v, "x")
				if !ok {
					return nil, fmt.Errorf("sparsity_config: sparsity=%s, expected NxM", v)
				}
				if d.N, err = strconv.Atoi(n); err == nil {
					d.M, err = strconv.Atoi(m)
				}
			case "dimension":
				d.Dimension, err = strconv.Atoi(v)
			case "idx":
				d.MetaIndex, err = strconv.Atoi(v)
			case "stride":
				stride, err = strconv.Atoi(v)
			default:
				return nil, fmt.Errorf("sparsity_config: unknown field %q", k)
			}
			if err != nil {
				return nil, fmt.Errorf("sparsity_config: %s: %v", f, err)
			}
		}
		if d.N <= 0 || d.M < d.N || d.M%d.N != 0 || d.MetaIndex < 2 || stride != 1 {
			return nil, fmt.Errorf("sparsity_config: %s={%s} is not an N of M sparsity with its metadata operand (stride 1)", side, rest[1:end])
		}
		out = append(out, d)
		body = strings.TrimPrefix(strings.TrimSpace(rest[end+1:]), ",")
	}
	return out, nil
}

// DenseShape is the shape of the dense operand a sparse operand of shape s
// stands for.
func (d SparsityDescriptor) DenseShape(s Shape) (Shape, error) {
	if !s.IsArray() || d.Dimension < 0 || d.Dimension >= s.Rank() {
		return Shape{}, fmt.Errorf("sparsity dimension %d is out of range for %v", d.Dimension, s)
	}
	out := s.Clone()
	out.Dims[d.Dimension] = s.Dims[d.Dimension] / d.N * d.M
	if s.Dims[d.Dimension]%d.N != 0 {
		return Shape{}, fmt.Errorf("sparse dimension %d of %v is not a multiple of %d", d.Dimension, s, d.N)
	}
	return out, nil
}

// denseOperands returns the shapes of a dot's or convolution's two operands
// as dense arrays, and checks that its other operands are the metadata the
// sparsity_config names.
func denseOperands(in *Instruction, shapes []Shape) ([]Shape, error) {
	ds, err := in.Sparsity()
	if err != nil {
		return nil, err
	}
	if len(shapes) != 2+len(ds) {
		return nil, fmt.Errorf("%v has %d operands and %d sparse operands: expected 2 operands and one metadata operand per sparse one", in.Opcode, len(shapes), len(ds))
	}
	out := []Shape{shapes[0], shapes[1]}
	for _, d := range ds {
		if d.MetaIndex >= len(shapes) {
			return nil, fmt.Errorf("sparsity_config names metadata operand %d of %d", d.MetaIndex, len(shapes))
		}
		if out[d.Operand], err = d.DenseShape(shapes[d.Operand]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
