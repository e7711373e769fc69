package ssa

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// assignLayouts gives every value the default (dense row-major) layout,
// which is the only one Kiln's kernels run on, while keeping the layouts the
// caller declared for the entry's parameters and result:
//
//   - A bitcast whose operand or result has a non-default layout reads
//     memory under those layouts; it becomes the logical operations that
//     read the same elements: transpose to the operand's physical order,
//     reshape to the result's physical dimensions, transpose to the result's
//     logical order. (Bitcasts between default layouts stay; they are
//     reshapes.)
//   - Every layout in every function is then cleared.
//   - An entry parameter declared with a non-default layout becomes a
//     parameter of its physical shape — the dimensions in major-to-minor
//     order of the declared layout, with the default layout — followed by
//     the transpose to its logical shape. A result declared with a
//     non-default layout is transposed to its physical shape. Tuples are
//     handled element by element.
//
// The declared layouts are the module's entry_computation_layout when
// there is one (matched to the parameters by name), else the layouts of
// the entry's parameter and root shapes.
//
// How the runtime reads and writes buffers afterwards: Entry.Params[i].Shape
// and Entry.Root.Shape are physical shapes. The caller's bytes for parameter
// i, laid out as its declared layout says, are exactly the dense row-major
// array of Entry.Params[i].Shape and are bound as they are; the row-major
// bytes of the result are the result in its declared layout. For default
// layouts physical and logical shapes coincide. Elements are stored as Kiln
// stores them (S4 and U4 one per byte: a sub-byte element size E(n) in a
// layout is not followed; memory spaces S(n) are ignored). Tiled and padded
// layouts are refused with an error.
func assignLayouts(p *Program) error {
	entry := p.Entry
	declared := make([]ir.Shape, len(entry.Params))
	for i, prm := range entry.Params {
		declared[i] = declaredParamShape(p, prm)
		if err := checkDense(declared[i]); err != nil {
			return fmt.Errorf("parameter %d (%s): %w", i, prm.Name, err)
		}
	}
	result := declaredResultShape(p)
	if err := checkDense(result); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	for _, f := range p.Funcs {
		if err := rewriteFunc(f, logicalBitcast); err != nil {
			return err
		}
	}
	for _, f := range p.Funcs {
		for _, v := range f.Values {
			v.Shape = v.Shape.WithoutLayout()
		}
	}

	b := &builder{f: entry}
	for i, prm := range entry.Params {
		if allDefaultLayouts(declared[i]) {
			continue
		}
		q := entry.NewValue(OpParameter, physicalShape(declared[i]))
		q.Attrs, q.Name, q.Raw = prm.Attrs, prm.Name, prm.Raw
		for j, v := range entry.Values {
			if v == prm {
				entry.Values[j] = q
			}
		}
		entry.Params[i] = q
		entry.Replace(prm, b.toLogical(q, declared[i]))
	}
	if !allDefaultLayouts(result) {
		entry.Root = b.toPhysical(entry.Root, result)
	}
	if b.err != nil {
		return b.err
	}
	entry.Sort()
	return nil
}

// declaredParamShape is the shape, layout included, the caller gives
// parameter prm in.
func declaredParamShape(p *Program, prm *Value) ir.Shape {
	if src := p.Source; src != nil && src.EntryLayout != nil && src.Entry != nil {
		for k, in := range src.Entry.Parameters {
			if in != nil && in.Name == prm.Name && k < len(src.EntryLayout.Parameters) &&
				src.EntryLayout.Parameters[k].Compatible(prm.Shape) {
				return src.EntryLayout.Parameters[k]
			}
		}
	}
	return prm.Shape
}

// declaredResultShape is the shape, layout included, the caller receives
// the result in.
func declaredResultShape(p *Program) ir.Shape {
	root := p.Entry.Root
	if src := p.Source; src != nil && src.EntryLayout != nil && src.EntryLayout.Result.Compatible(root.Shape) {
		return src.EntryLayout.Result
	}
	return root.Shape
}

func checkDense(s ir.Shape) error {
	if s.IsTuple() {
		for _, e := range s.Tuple {
			if err := checkDense(e); err != nil {
				return err
			}
		}
		return nil
	}
	if !denseLayout(s) {
		return fmt.Errorf("layout %v is tiled or padded; Kiln runs dense layouts only", s.Layout)
	}
	if !allDefaultLayouts(s) && s.IsDynamic() {
		return fmt.Errorf("shape %v: a non-default layout on a dynamic shape is not supported", s)
	}
	return nil
}

func allDefaultLayouts(s ir.Shape) bool {
	if s.IsTuple() {
		for _, e := range s.Tuple {
			if !allDefaultLayouts(e) {
				return false
			}
		}
		return true
	}
	return !s.IsArray() || defaultOrder(s)
}

// defaultOrder reports whether s's dimensions are laid out major to minor
// (the layout's other attributes aside).
func defaultOrder(s ir.Shape) bool {
	return s.Layout == nil || slices.Equal(s.MinorToMajor(), ir.DefaultMinorToMajor(s.Rank()))
}

// physicalPerm is the transpose from a shape's logical dimensions to its
// physical order, major to minor: physical dimension i is logical
// dimension perm[i].
func physicalPerm(s ir.Shape) []int {
	m2m := s.MinorToMajor()
	perm := make([]int, len(m2m))
	for i := range perm {
		perm[i] = m2m[len(m2m)-1-i]
	}
	return perm
}

// physicalShape is the default-layout shape whose row-major order is s's
// physical order.
func physicalShape(s ir.Shape) ir.Shape {
	if s.IsTuple() {
		elems := make([]ir.Shape, len(s.Tuple))
		for i, e := range s.Tuple {
			elems[i] = physicalShape(e)
		}
		return ir.MakeTuple(elems...)
	}
	if !s.IsArray() || defaultOrder(s) {
		return s.WithoutLayout()
	}
	perm := physicalPerm(s)
	dims := make([]int, len(perm))
	for i, d := range perm {
		dims[i] = s.Dims[d]
	}
	return ir.MakeShape(s.Elem, dims...)
}

// toLogical turns v, of physicalShape(s), into a value of s's logical
// shape.
func (b *builder) toLogical(v *Value, s ir.Shape) *Value {
	switch {
	case allDefaultLayouts(s):
		return v
	case s.IsTuple():
		elems := make([]*Value, len(s.Tuple))
		for i, e := range s.Tuple {
			elems[i] = b.toLogical(b.element(v, i), e)
		}
		return b.tuple(elems...)
	}
	return b.transpose(v, inversePerm(physicalPerm(s)))
}

// toPhysical turns v, of s's logical shape, into a value of
// physicalShape(s).
func (b *builder) toPhysical(v *Value, s ir.Shape) *Value {
	switch {
	case allDefaultLayouts(s):
		return v
	case s.IsTuple():
		elems := make([]*Value, len(s.Tuple))
		for i, e := range s.Tuple {
			var el *Value
			if v.Op == OpTuple {
				el = v.Args[i]
			} else {
				el = b.element(v, i)
			}
			elems[i] = b.toPhysical(el, e)
		}
		return b.tuple(elems...)
	}
	return b.transpose(v, physicalPerm(s))
}

// logicalBitcast rewrites a bitcast between non-default layouts into the
// transposes and reshape that read the same elements.
func logicalBitcast(b *builder, v *Value) *Value {
	if v.Op != OpBitcast || len(v.Args) != 1 {
		return nil
	}
	x := v.Args[0]
	if defaultOrder(x.Shape) && defaultOrder(v.Shape) {
		return nil
	}
	if !denseLayout(x.Shape) || !denseLayout(v.Shape) || x.Shape.Elem != v.Shape.Elem || x.Shape.IsDynamic() || v.Shape.IsDynamic() {
		b.fail("bitcast", fmt.Errorf("bitcast from %v to %v: only dense layouts of one element type are supported", x.Shape, v.Shape))
		return nil
	}
	phys := b.transpose(x, physicalPerm(x.Shape))
	r := b.reshape(phys, physicalShape(v.Shape).Dims)
	return b.transpose(r, inversePerm(physicalPerm(v.Shape)))
}
