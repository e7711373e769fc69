package affine

import (
	"slices"
	"strings"
)

// KnownEmptyText is how a known-empty map prints.
const KnownEmptyText = "KNOWN EMPTY"

// UndefinedText is how the undefined map prints.
const UndefinedText = "UNDEFINED"

// String prints m in XLA's text format on one line, as XLA's
// ToString(IndexingMap) does:
//
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 / 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// Variables print with their names (d_i, s_i, rt_i unless named), the
// constraints sorted by their text. A known-empty map prints as
// KNOWN EMPTY, the undefined map as UNDEFINED.
func (m IndexingMap) String() string { return m.Format(PrintOptions{}) }

// Format prints m as String does, in the given syntax.
func (m IndexingMap) Format(opts PrintOptions) string {
	return string(m.appendText(nil, opts, ", ", ", "))
}

// MultilineString prints m as String does, with "domain:" and each entry of
// the domain on a line of its own.
func (m IndexingMap) MultilineString() string { return m.MultilineFormat(PrintOptions{}) }

// MultilineFormat prints m as MultilineString does, in the given syntax.
func (m IndexingMap) MultilineFormat(opts PrintOptions) string {
	return string(m.appendText(nil, opts, ",\ndomain:\n", ",\n"))
}

// VarName is the name m prints for a variable: its own name or d_i, s_i,
// rt_i.
func (m IndexingMap) varName(c varClass, i int) string {
	if vs := m.varsOf(c); i < len(vs) && vs[i].Name != "" {
		return vs[i].Name
	}
	return defaultName(c, i)
}

// ExprString prints an expression over m's variables with their names.
func (m IndexingMap) ExprString(e Expr, opts PrintOptions) string {
	return string(e.appendTo(nil, m.varName, opts))
}

func (m IndexingMap) appendText(b []byte, opts PrintOptions, domainSep, entrySep string) []byte {
	if m.undefined {
		return append(b, UndefinedText...)
	}
	if m.empty {
		return append(b, KnownEmptyText...)
	}
	b = m.appendSignature(b, opts)
	if len(m.dims)+len(m.rangeVars)+len(m.rtVars) == 0 {
		return b
	}
	b = append(b, domainSep...)
	if domainSep == ", " {
		b = append(b, "domain: "...)
	}
	first := true
	for c := classDim; c <= classRuntime; c++ {
		for i, v := range m.varsOf(c) {
			if !first {
				b = append(b, entrySep...)
			}
			first = false
			b = append(b, m.varName(c, i)...)
			b = append(b, " in "...)
			b = append(b, v.Bounds.String()...)
		}
	}
	cs := make([]string, len(m.constraints))
	for i, c := range m.constraints {
		cs[i] = m.ExprString(c.Expr, opts) + " in " + c.Range.String()
	}
	slices.Sort(cs)
	for _, c := range cs {
		b = append(b, entrySep...)
		b = append(b, c...)
	}
	return b
}

// appendSignature prints "(d0, d1)[s0]{rt0} -> (results)".
func (m IndexingMap) appendSignature(b []byte, opts PrintOptions) []byte {
	b = m.appendVarList(b, '(', ')', classDim)
	if len(m.rangeVars) > 0 {
		b = m.appendVarList(b, '[', ']', classRange)
	}
	if len(m.rtVars) > 0 {
		b = m.appendVarList(b, '{', '}', classRuntime)
	}
	b = append(b, " -> ("...)
	for i, r := range m.results {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = r.appendTo(b, m.varName, opts)
	}
	return append(b, ')')
}

func (m IndexingMap) appendVarList(b []byte, open, close byte, c varClass) []byte {
	b = append(b, open)
	for i := range m.varsOf(c) {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, m.varName(c, i)...)
	}
	return append(b, close)
}

// Fields splits the text of a map into its tokens, ignoring white space, to
// compare maps laid out differently.
func Fields(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		start := 0
		for i := 0; i < len(f); i++ {
			switch f[i] {
			case '(', ')', '[', ']', '{', '}', ',', ':':
				if start < i {
					out = append(out, f[start:i])
				}
				out = append(out, f[i:i+1])
				start = i + 1
			}
		}
		if start < len(f) {
			out = append(out, f[start:])
		}
	}
	return out
}
