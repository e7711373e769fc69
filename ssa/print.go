package ssa

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/kilnml/kiln/ir"
)

// String prints the program, callees first, one function after another.
func (p *Program) String() string {
	var b strings.Builder
	for i, f := range p.Funcs {
		if i > 0 {
			b.WriteByte('\n')
		}
		f.write(&b)
	}
	return b.String()
}

// String prints the function in a readable form:
//
//	func main(v1: f32[1,784], v2: f32[784,512]) -> f32[1,512] {
//	  v3 = f32[1,512] dot(v1, v2) {DotDims: …}
//	  return v3
//	}
func (f *Func) String() string {
	var b strings.Builder
	f.write(&b)
	return b.String()
}

func (f *Func) write(b *strings.Builder) {
	fmt.Fprintf(b, "func %s(", f.Name)
	for i, p := range f.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%v: %s", p, p.Shape.StringWithoutLayout())
	}
	root := "?"
	if f.Root != nil {
		root = f.Root.Shape.StringWithoutLayout()
	}
	fmt.Fprintf(b, ") -> %s {\n", root)
	for _, v := range f.Values {
		if v.Op == OpParameter {
			continue
		}
		fmt.Fprintf(b, "  %v = %s %s(", v, v.Shape.StringWithoutLayout(), v.Op)
		for i, a := range v.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprint(b, a)
		}
		b.WriteByte(')')
		if v.Aux != 0 {
			fmt.Fprintf(b, " aux=%d", v.Aux)
		}
		for _, g := range v.Funcs {
			fmt.Fprintf(b, " @%s", g.Name)
		}
		writeAttrs(b, reflect.ValueOf(v.Attrs))
		if v.Name != "" {
			fmt.Fprintf(b, "  // %s", v.Name)
		}
		b.WriteByte('\n')
	}
	if f.Root != nil {
		fmt.Fprintf(b, "  return %v\n", f.Root)
	}
	b.WriteString("}\n")
}

// writeAttrs prints the attributes that are set (non-zero), by field name.
func writeAttrs(b *strings.Builder, attrs reflect.Value) {
	t := attrs.Type()
	for i := 0; i < t.NumField(); i++ {
		f := attrs.Field(i)
		if !t.Field(i).IsExported() || f.IsZero() {
			continue
		}
		if f.Kind() == reflect.Pointer {
			f = f.Elem()
		}
		if lit, ok := attrs.Field(i).Interface().(interface{ Shape() ir.Shape }); ok {
			fmt.Fprintf(b, " %s=<%v>", t.Field(i).Name, lit.Shape())
			continue
		}
		fmt.Fprintf(b, " %s=%+v", t.Field(i).Name, f.Interface())
	}
}
