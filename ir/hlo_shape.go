package ir

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// This file reads and writes shapes and layouts in HLO text:
// `f32[2,3]{1,0}`, `f32[<=10,4]`, `(f32[], s32[2])`, `token[]`,
// `bf16[8,128]{1,0:T(8,128)(2,1)}`, `s4[16]{0:E(4)S(1)}`.

// tileCombined is the tile dimension XLA writes as `*` (Tile::kCombineDimension).
const tileCombined = math.MinInt

// ParseShape parses a shape written as HLO text prints it, layout included
// when written (`f32[2,3]{1,0}`, `(f32[], token[])`, `pred[<=4]`).
func ParseShape(text string) (Shape, error) {
	s := &hloScanner{src: text}
	sh, err := s.shape(0)
	if err != nil {
		return Shape{}, err
	}
	if !s.atEOF() {
		return Shape{}, s.errorf("expected end of shape, found %s", s.found())
	}
	return sh, nil
}

// shape reads a shape; depth counts enclosing tuples.
func (s *hloScanner) shape(depth int) (Shape, error) {
	s.skipSpace()
	start := s.pos
	if depth > hloMaxNesting {
		return Shape{}, s.errorAt(start, "shape nested deeper than %d tuples", hloMaxNesting)
	}
	if s.accept('(') {
		sh := Shape{Elem: TUPLE, Tuple: []Shape{}}
		if s.accept(')') {
			return sh, nil
		}
		for {
			e, err := s.shape(depth + 1)
			if err != nil {
				return Shape{}, err
			}
			sh.Tuple = append(sh.Tuple, e)
			if s.accept(')') {
				return sh, nil
			}
			if err := s.expect(',', "between tuple shape elements"); err != nil {
				return Shape{}, err
			}
		}
	}
	name := s.ident()
	if name == "" {
		return Shape{}, s.errorAt(start, "expected shape, found %s", s.found())
	}
	if name == "b" && s.peek() == '(' {
		// A buffer holding an array: b(f32[16]).
		s.accept('(')
		inner, err := s.shape(depth + 1)
		if err != nil {
			return Shape{}, err
		}
		if !inner.IsArray() {
			return Shape{}, s.errorAt(start, "a buffer shape holds an array, found %s", inner.StringWithoutLayout())
		}
		if err := s.expect(')', "at the end of buffer shape"); err != nil {
			return Shape{}, err
		}
		return MakeBuffer(inner), nil
	}
	t, ok := ParseElementType(name)
	if !ok || t == TUPLE || t == BUFFER {
		return Shape{}, s.errorAt(start, "unknown element type %q", name)
	}
	if err := s.expect('[', "after element type in shape"); err != nil {
		return Shape{}, err
	}
	sh := Shape{Elem: t}
	var dynamic []bool
	if !s.accept(']') {
		for {
			dyn := s.acceptString("<=")
			s.skipSpace()
			if s.pos < len(s.src) && s.src[s.pos] == '?' {
				return Shape{}, s.errorAt(s.pos, "unbounded dynamic dimension '?' is not supported (write a bound: <=N)")
			}
			d, err := s.nonNegInt("dimension size")
			if err != nil {
				return Shape{}, err
			}
			if dyn && dynamic == nil {
				dynamic = make([]bool, len(sh.Dims), len(sh.Dims)+1)
			}
			if dynamic != nil {
				dynamic = append(dynamic, dyn)
			}
			sh.Dims = append(sh.Dims, d)
			if s.accept(']') {
				break
			}
			if err := s.expect(',', "in shape"); err != nil {
				return Shape{}, err
			}
		}
	}
	if dynamic != nil {
		sh.Dynamic = dynamic
	}
	if (t == TOKEN || t == OPAQUE) && len(sh.Dims) != 0 {
		return Shape{}, s.errorAt(start, "%v shape has dimensions", t)
	}
	if s.layoutFollows() {
		s.accept('{')
		l, err := s.layout()
		if err != nil {
			return Shape{}, err
		}
		// A token has no layout, and a scalar's empty layout is the one it
		// has by default: XLA prints neither.
		if t != TOKEN && t != OPAQUE && !(len(sh.Dims) == 0 && layoutString(*l) == "{}") {
			sh.Layout = l
		}
	}
	if err := sh.CheckValid(); err != nil {
		return Shape{}, s.errorAt(start, "%v", err)
	}
	return sh, nil
}

// layoutFollows reports whether the next '{' opens a layout rather than a
// computation body or attribute value: a layout starts with a digit, ':' or '}'.
func (s *hloScanner) layoutFollows() bool {
	if s.peek() != '{' {
		return false
	}
	save := s.pos
	s.pos++
	c := s.peek()
	s.pos = save
	return hloIsDigit(c) || c == ':' || c == '}'
}

// layout reads a layout after its '{': minor_to_major, then optionally ':'
// and XLA's layout attributes. T, E and S are parsed; the others are kept
// verbatim in Extra.
func (s *hloScanner) layout() (*Layout, error) {
	l := &Layout{MinorToMajor: []int{}}
	for hloIsDigit(s.peek()) {
		d, err := s.nonNegInt("layout dimension")
		if err != nil {
			return nil, err
		}
		l.MinorToMajor = append(l.MinorToMajor, d)
		if !s.accept(',') {
			break
		}
	}
	if s.accept(':') {
		rank := -1 // XLA reads the attributes in the order of layoutAttrOrder, each once
		for {
			c := s.peek()
			if c == '}' || c == 0 {
				break
			}
			itemStart := s.pos
			kind := ""
			for s.pos < len(s.src) && (hloIdentStart(s.src[s.pos]) || s.src[s.pos] == '#' || s.src[s.pos] == '*') {
				s.pos++
			}
			kind = s.src[itemStart:s.pos]
			if kind == "" || s.pos >= len(s.src) || s.src[s.pos] != '(' {
				return nil, s.errorAt(itemStart, "expected layout attribute such as T(…), E(…) or S(…), found %s", s.found())
			}
			r := slices.Index(layoutAttrOrder, kind)
			if r < 0 {
				return nil, s.errorAt(itemStart, "unknown layout attribute %s(…) (expected D, T, L, #, *, E, S, SC, P or M)", kind)
			}
			if r <= rank {
				return nil, s.errorAt(itemStart, "layout attribute %s(…) is out of place: XLA reads them once each, in the order D, T, L, #, *, E, S, SC, P, M", kind)
			}
			rank = r
			switch kind {
			case "D":
				if err := s.dimLevelTypes(); err != nil {
					return nil, err
				}
				l.Extra += s.src[itemStart:s.pos]
				continue
			case "P":
				return nil, s.errorAt(itemStart, "layout has a physical shape P(…), but is not for a sparse array")
			}
			switch kind {
			case "T":
				for s.pos < len(s.src) && s.src[s.pos] == '(' {
					s.pos++
					var tile []int
					for !s.accept(')') {
						if s.accept('*') {
							tile = append(tile, tileCombined)
						} else {
							d, err := s.nonNegInt("tile dimension")
							if err != nil {
								return nil, err
							}
							tile = append(tile, d)
						}
						if s.peek() != ')' {
							if err := s.expect(',', "in layout tile"); err != nil {
								return nil, err
							}
						}
					}
					if tile == nil {
						tile = []int{}
					}
					l.Tiles = append(l.Tiles, tile)
				}
			case "E", "S":
				s.pos++
				v, err := s.nonNegInt("layout " + kind + " value")
				if err != nil {
					return nil, err
				}
				if err := s.expect(')', "after layout "+kind+" value"); err != nil {
					return nil, err
				}
				if kind == "E" {
					l.ElementSizeBits = v
				} else {
					l.MemorySpace = v
				}
			default:
				for s.pos < len(s.src) && s.src[s.pos] == '(' {
					s.pos++
					if _, err := s.balanced('(', s.pos-1, "layout attribute "+kind); err != nil {
						return nil, err
					}
				}
				l.Extra += s.src[itemStart:s.pos]
			}
		}
	}
	if err := s.expect('}', "at end of layout"); err != nil {
		return nil, err
	}
	l.Extra = canonicalLayoutExtra(l.Extra)
	return l, nil
}

// writeShape writes sh as XLA's ShapeUtil::HumanString(WithLayout) does:
// tuples with a `/*index=N*/` note before every fifth element, scalars
// without an empty `{}` layout.
func writeShape(b *strings.Builder, sh Shape, withLayout bool) {
	switch {
	case sh.IsTuple():
		b.WriteByte('(')
		for i, e := range sh.Tuple {
			if i > 0 {
				b.WriteString(", ")
				if i%5 == 0 {
					b.WriteString("/*index=")
					b.WriteString(strconv.Itoa(i))
					b.WriteString("*/")
				}
			}
			writeShape(b, e, withLayout)
		}
		b.WriteByte(')')
		return
	case sh.IsToken():
		b.WriteString("token[]")
		return
	case sh.IsBuffer() && len(sh.Tuple) == 1:
		b.WriteString("b(")
		writeShape(b, sh.Tuple[0], withLayout)
		b.WriteByte(')')
		return
	case sh.Elem == OPAQUE:
		b.WriteString("opaque[]")
		return
	}
	b.WriteString(sh.Elem.String())
	b.WriteByte('[')
	for i, d := range sh.Dims {
		if i > 0 {
			b.WriteByte(',')
		}
		if sh.IsDynamicDim(i) {
			b.WriteString("<=")
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	if withLayout && sh.Layout != nil {
		l := layoutString(*sh.Layout)
		if len(sh.Dims) > 0 || l != "{}" {
			b.WriteString(l)
		}
	}
}

// shapeText returns writeShape's output as a string.
func shapeText(sh Shape, withLayout bool) string {
	var b strings.Builder
	writeShape(&b, sh, withLayout)
	return b.String()
}

// layoutAttrOrder is the order in which XLA's Layout::Print writes layout
// attributes and its parser reads them; Extra's items are placed among T, E
// and S by their letters.
var layoutAttrOrder = []string{"D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"}

// dimLevelTypes reads the list after D: `(D,C+,S~,H)`, each a dimension
// level type (dense, compressed, singleton, loose compressed), optionally
// marked + (not unique) or ~ (not ordered).
func (s *hloScanner) dimLevelTypes() error {
	if err := s.expect('(', "after D in layout"); err != nil {
		return err
	}
	for s.peek() != ')' {
		s.skipSpace()
		at := s.pos
		switch s.ident() {
		case "D", "C", "S", "H":
		default:
			s.pos = at
			return s.errorAt(at, "expected a DimLevelType abbreviation (D, C, S or H), found %s", s.found())
		}
		s.accept('+')
		s.accept('~')
		if !s.accept(',') {
			break
		}
	}
	return s.expect(')', "to end the dimension level types")
}

// layoutString prints l as XLA's Layout::Print does.
func layoutString(l Layout) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	items := map[string]string{}
	var unknown []string
	for _, it := range splitLayoutItems(l.Extra) {
		k := it
		if i := strings.IndexByte(it, '('); i >= 0 {
			k = it[:i]
		}
		known := false
		for _, o := range layoutAttrOrder {
			if o == k {
				known = true
			}
		}
		if known {
			items[k] += it
		} else {
			unknown = append(unknown, it)
		}
	}
	if len(l.Tiles) > 0 {
		var t strings.Builder
		t.WriteByte('T')
		for _, tile := range l.Tiles {
			t.WriteByte('(')
			for i, d := range tile {
				if i > 0 {
					t.WriteByte(',')
				}
				if d < 0 {
					t.WriteByte('*')
				} else {
					t.WriteString(strconv.Itoa(d))
				}
			}
			t.WriteByte(')')
		}
		items["T"] = t.String() + items["T"]
	}
	if l.ElementSizeBits != 0 {
		items["E"] = "E(" + strconv.Itoa(l.ElementSizeBits) + ")" + items["E"]
	}
	if l.MemorySpace != 0 {
		items["S"] = "S(" + strconv.Itoa(l.MemorySpace) + ")" + items["S"]
	}
	if len(items) > 0 || len(unknown) > 0 {
		b.WriteByte(':')
		for _, k := range layoutAttrOrder {
			b.WriteString(items[k])
		}
		for _, it := range unknown {
			b.WriteString(it)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// canonicalLayoutExtra orders the items of Layout.Extra as XLA prints them.
func canonicalLayoutExtra(extra string) string {
	items := splitLayoutItems(extra)
	rank := func(it string) int {
		k := it
		if i := strings.IndexByte(it, '('); i >= 0 {
			k = it[:i]
		}
		for r, o := range layoutAttrOrder {
			if o == k {
				return r
			}
		}
		return len(layoutAttrOrder)
	}
	sort.SliceStable(items, func(i, j int) bool { return rank(items[i]) < rank(items[j]) })
	return strings.Join(items, "")
}

// splitLayoutItems splits Layout.Extra into its items (`L(2)`, `D(D,C)`,
// `P(f32[2]{0})`): a name followed by one or more parenthesised groups.
// Text that does not have that form is returned as one last item.
func splitLayoutItems(extra string) []string {
	var items []string
	for len(extra) > 0 {
		i := 0
		for i < len(extra) && extra[i] != '(' {
			i++
		}
		if i == len(extra) || i == 0 {
			return append(items, extra)
		}
		depth := 0
		j := i
		for j < len(extra) {
			switch extra[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
			j++
			if depth == 0 && (j >= len(extra) || extra[j] != '(') {
				break
			}
		}
		items = append(items, extra[:j])
		extra = extra[j:]
	}
	return items
}
