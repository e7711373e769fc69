package affine

import (
	"slices"
	"strconv"
)

// The text form of a map is XLA's:
//
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 floordiv 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// The brackets of range variables and the braces of runtime variables are
// printed only when there are some; the domain lists every variable in order,
// then the constraints sorted by their text, as XLA sorts them. A map known
// to be empty prints as KNOWN EMPTY.

// KnownEmptyText is how a known-empty map prints.
const KnownEmptyText = "KNOWN EMPTY"

// String prints m in XLA's text format, on one line.
func (m IndexingMap) String() string {
	return string(m.appendText(make([]byte, 0, 128), ", "))
}

// MultilineString prints m in XLA's text format with the domain entries on
// separate lines, as XLA's documentation and tests lay maps out.
func (m IndexingMap) MultilineString() string {
	return string(m.appendText(make([]byte, 0, 128), ",\n"))
}

func (m IndexingMap) appendText(b []byte, sep string) []byte {
	if m.empty {
		return append(b, KnownEmptyText...)
	}
	b = appendVarList(b, '(', ')', "d", len(m.dims))
	if len(m.rangeVars) > 0 {
		b = appendVarList(b, '[', ']', "s", len(m.rangeVars))
	}
	if len(m.rtVars) > 0 {
		b = appendVarList(b, '{', '}', "rt", len(m.rtVars))
	}
	b = append(b, " -> ("...)
	for i, r := range m.results {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendExpr(b, r, false)
	}
	b = append(b, ')')
	if len(m.dims)+len(m.rangeVars)+len(m.rtVars) == 0 {
		return b
	}
	b = append(b, sep...)
	b = append(b, "domain:"...)
	if sep == ", " {
		b = append(b, ' ')
	} else {
		b = append(b, '\n')
	}
	first := true
	entry := func() {
		if !first {
			b = append(b, sep...)
		}
		first = false
	}
	for _, v := range []struct {
		prefix string
		bounds []Interval
	}{{"d", m.dims}, {"s", m.rangeVars}, {"rt", m.rtVars}} {
		for i, iv := range v.bounds {
			entry()
			b = append(b, v.prefix...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, " in "...)
			b = append(b, iv.String()...)
		}
	}
	cs := make([]string, len(m.constraints))
	for i, c := range m.constraints {
		cs[i] = c.String()
	}
	slices.Sort(cs)
	for _, c := range cs {
		entry()
		b = append(b, c...)
	}
	return b
}

func appendVarList(b []byte, open, close byte, prefix string, n int) []byte {
	b = append(b, open)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, prefix...)
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return append(b, close)
}

// Fields splits the text of a map into its tokens, ignoring white space:
// two texts with the same fields differ only in layout, which is how maps are
// compared with texts laid out on several lines. Characters that are not
// tokens of the format come out one per field.
func Fields(text string) []string {
	var out []string
	lx := lexer{src: text}
	for {
		t := lx.next()
		if t.kind == tokEOF {
			return out
		}
		out = append(out, t.text)
	}
}
