package ssa

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kilnml/kiln/ir"
)

// cse replaces each value by an earlier value with the same op, shape,
// arguments, attributes and regions (common-subexpression elimination).
// Values with side effects and parameters are never merged; the arguments of
// commutative ops are compared as a set.
func cse(p *Program) error {
	for _, f := range p.Funcs {
		cseFunc(f)
	}
	return nil
}

func cseFunc(f *Func) {
	seen := make(map[string]*Value, len(f.Values))
	for _, v := range f.Values {
		if v.Op == OpParameter || v.Op.HasSideEffect() {
			continue
		}
		// Arguments were already replaced by their representatives, since
		// values are visited in order and Replace rewrites later users.
		k := valueKey(v)
		if w, ok := seen[k]; ok {
			f.Replace(v, w)
			continue
		}
		seen[k] = v
	}
}

// valueKey is a string that two values share exactly when one can replace
// the other.
func valueKey(v *Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%s|%d|", v.Op, v.Shape, v.Aux)
	args := make([]int, len(v.Args))
	for i, a := range v.Args {
		args[i] = a.ID
	}
	if v.Op.IsCommutative() && len(args) == 2 && args[0] > args[1] {
		args[0], args[1] = args[1], args[0]
	}
	fmt.Fprint(&b, args, "|")
	for _, g := range v.Funcs {
		fmt.Fprintf(&b, "%p,", g)
	}
	b.WriteByte('|')
	writeKey(&b, reflect.ValueOf(v.Attrs))
	for _, r := range v.Raw {
		fmt.Fprintf(&b, "%s=%s;", r.Name, r.Value)
	}
	return b.String()
}

// largeLiteral is the size above which constants are compared by identity
// rather than by contents in CSE keys (hashing weights is not worth it).
const largeLiteral = 4096

var literalType = reflect.TypeOf((*ir.Literal)(nil))

// writeKey writes a deep, deterministic rendering of an attribute value.
func writeKey(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if v.Type() == literalType {
			l := v.Interface().(*ir.Literal)
			if len(l.Bytes()) > largeLiteral {
				fmt.Fprintf(b, "lit@%p", l)
				return
			}
			fmt.Fprintf(b, "lit(%s:%x", l.Shape(), l.Bytes())
			for _, e := range l.Elements() {
				writeKey(b, reflect.ValueOf(e))
			}
			b.WriteByte(')')
			return
		}
		writeKey(b, v.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				writeKey(b, v.Field(i))
				b.WriteByte(',')
			}
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			writeKey(b, v.Index(i))
			b.WriteByte(',')
		}
		b.WriteByte(']')
	default:
		fmt.Fprint(b, v.Interface())
	}
}
