package ir

import (
	"fmt"
	"math"
	"reflect"
)

// diffModules returns "" when a and b are the same module, else the first
// difference found. Instructions and computations are matched by name and
// position; attributes are compared field by field, with an empty slice
// equal to a nil one and these spellings of "absent" treated alike, as the
// text format cannot tell them apart:
//   - an array shape without a layout and the same shape with the default one,
//   - feature_group_count/batch_group_count 0 and 1,
//   - a compare type left at CmpTypeDefault and the default for its operands,
//   - a nil entry layout and the entry signature with default layouts.
func diffModules(a, b *Module) string {
	if a.Name != b.Name {
		return fmt.Sprintf("module name %q vs %q", a.Name, b.Name)
	}
	if !deepEqualValues(reflect.ValueOf(a.Attributes), reflect.ValueOf(b.Attributes)) {
		return fmt.Sprintf("module attributes %v vs %v", a.Attributes, b.Attributes)
	}
	ea, eb := testEntryLayout(a), testEntryLayout(b)
	if !deepEqualValues(reflect.ValueOf(ea), reflect.ValueOf(eb)) {
		return fmt.Sprintf("entry layout %v vs %v", ea, eb)
	}
	if len(a.Computations) != len(b.Computations) {
		return fmt.Sprintf("%d vs %d computations", len(a.Computations), len(b.Computations))
	}
	if (a.Entry == nil) != (b.Entry == nil) || a.Entry != nil && a.Entry.Name != b.Entry.Name {
		return "entry computations differ"
	}
	for i := range a.Computations {
		if d := diffComputations(a.Computations[i], b.Computations[i]); d != "" {
			return d
		}
	}
	return ""
}

// testEntryLayout is the module's entry layout, or the entry's signature,
// with every array without a layout given its default one.
func testEntryLayout(m *Module) ProgramShape {
	var ps ProgramShape
	if m.EntryLayout != nil {
		for _, p := range m.EntryLayout.Parameters {
			ps.Parameters = append(ps.Parameters, withDefaultLayouts(p))
		}
		ps.Result = withDefaultLayouts(m.EntryLayout.Result)
		return ps
	}
	for _, p := range m.Entry.Parameters {
		ps.Parameters = append(ps.Parameters, withDefaultLayouts(p.Shape))
	}
	ps.Result = withDefaultLayouts(m.Entry.Root.Shape)
	return ps
}

func diffComputations(a, b *Computation) string {
	where := "computation " + a.Name
	switch {
	case a.Name != b.Name:
		return fmt.Sprintf("computation %q vs %q", a.Name, b.Name)
	case a.IsEntry != b.IsEntry:
		return where + ": IsEntry differs"
	case a.ExecutionThread != b.ExecutionThread:
		return fmt.Sprintf("%s: execution thread %q vs %q", where, a.ExecutionThread, b.ExecutionThread)
	case len(a.Instructions) != len(b.Instructions):
		return fmt.Sprintf("%s: %d vs %d instructions", where, len(a.Instructions), len(b.Instructions))
	case len(a.Parameters) != len(b.Parameters):
		return fmt.Sprintf("%s: %d vs %d parameters", where, len(a.Parameters), len(b.Parameters))
	case a.Root == nil || b.Root == nil || a.Root.Name != b.Root.Name:
		return where + ": roots differ"
	}
	for i := range a.Parameters {
		if a.Parameters[i].Name != b.Parameters[i].Name {
			return fmt.Sprintf("%s: parameter %d is %q vs %q", where, i, a.Parameters[i].Name, b.Parameters[i].Name)
		}
	}
	for i := range a.Instructions {
		if d := diffInstructions(a.Instructions[i], b.Instructions[i]); d != "" {
			return where + ": " + d
		}
	}
	return ""
}

func diffInstructions(a, b *Instruction) string {
	where := "instruction " + a.Name
	switch {
	case a.Name != b.Name:
		return fmt.Sprintf("instruction %q vs %q", a.Name, b.Name)
	case a.Opcode != b.Opcode:
		return fmt.Sprintf("%s: opcode %v vs %v", where, a.Opcode, b.Opcode)
	case !deepEqualValues(reflect.ValueOf(withDefaultLayouts(a.Shape)), reflect.ValueOf(withDefaultLayouts(b.Shape))):
		return fmt.Sprintf("%s: shape %v vs %v", where, a.Shape, b.Shape)
	case a.Parent == nil || b.Parent == nil || a.Parent.Name != b.Parent.Name:
		return where + ": parents differ"
	}
	if d := diffNames("operands", instrNames(a.Operands), instrNames(b.Operands)); d != "" {
		return where + ": " + d
	}
	if d := diffNames("control predecessors", instrNames(a.ControlPredecessors), instrNames(b.ControlPredecessors)); d != "" {
		return where + ": " + d
	}
	if d := diffNames("called computations", compNames(a), compNames(b)); d != "" {
		return where + ": " + d
	}
	aa, ba := normalisedAttrs(a), normalisedAttrs(b)
	va, vb := reflect.ValueOf(aa), reflect.ValueOf(ba)
	for i := 0; i < va.NumField(); i++ {
		if !deepEqualValues(va.Field(i), vb.Field(i)) {
			return fmt.Sprintf("%s: attribute %s: %+v vs %+v", where, va.Type().Field(i).Name, va.Field(i), vb.Field(i))
		}
	}
	if !deepEqualValues(reflect.ValueOf(a.Raw), reflect.ValueOf(b.Raw)) {
		return fmt.Sprintf("%s: raw attributes %q vs %q", where, a.Raw, b.Raw)
	}
	return ""
}

func normalisedAttrs(in *Instruction) Attrs {
	a := in.Attrs
	if a.OutfeedShape != nil {
		s := withDefaultLayouts(*a.OutfeedShape)
		a.OutfeedShape = &s
	}
	if a.OperandLayouts != nil {
		ls := make([]Shape, len(a.OperandLayouts))
		for i, s := range a.OperandLayouts {
			ls[i] = withDefaultLayouts(s)
		}
		a.OperandLayouts = ls
	}
	if a.FeatureGroupCount == 1 {
		a.FeatureGroupCount = 0
	}
	if a.BatchGroupCount == 1 {
		a.BatchGroupCount = 0
	}
	if in.Opcode == OpCompare && a.CompareType == CmpTypeDefault && len(in.Operands) > 0 {
		a.CompareType = DefaultComparisonType(in.Operands[0].Shape.Elem)
	}
	if a.ReplicaGroups != nil && a.ReplicaGroups.Iota == nil && len(a.ReplicaGroups.Groups) == 0 {
		a.ReplicaGroups = nil
	}
	if (in.Opcode == OpDot || in.Opcode == OpRaggedDot || in.Opcode == OpScaledDot) && a.DotDims == nil {
		a.DotDims = &DotDimensionNumbers{}
	}
	return a
}

func instrNames(ins []*Instruction) []string {
	var n []string
	for _, in := range ins {
		n = append(n, in.Name)
	}
	return n
}

// compNames lists an instruction's called computations by role.
func compNames(in *Instruction) []string {
	name := func(c *Computation) string {
		if c == nil {
			return "-"
		}
		return c.Name
	}
	n := []string{name(in.ToApply), name(in.Condition), name(in.Body), name(in.Select), name(in.Scatter), name(in.Calls)}
	n = append(n, "branches:")
	for _, c := range in.Branches {
		n = append(n, name(c))
	}
	n = append(n, "called:")
	for _, c := range in.CalledComputations {
		n = append(n, name(c))
	}
	return n
}

func diffNames(what string, a, b []string) string {
	if !reflect.DeepEqual(append([]string{}, a...), append([]string{}, b...)) {
		return fmt.Sprintf("%s %v vs %v", what, a, b)
	}
	return ""
}

// deepEqualValues is reflect.DeepEqual with empty and nil slices equal,
// floats compared by bits, and literals compared with Literal.Equal.
func deepEqualValues(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !deepEqualValues(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if !deepEqualValues(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Type() == reflect.TypeOf((*Literal)(nil)) {
			return a.Interface().(*Literal).Equal(b.Interface().(*Literal))
		}
		return deepEqualValues(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !deepEqualValues(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.String:
		return a.String() == b.String()
	}
	panic("deepEqualValues: unhandled kind " + a.Kind().String())
}
