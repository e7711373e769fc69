package affine

import (
	"fmt"
	"strings"
)

// SymbolicTile is XLA's SymbolicTile: for an indexing map from the elements
// of an output to the elements of an operand, the tile of the operand that a
// tile of the output reads, as expressions of the output tile's sizes. Its
// map has one dimension per output dimension, whose value is a tile size
// (bounds [1, size]), and the runtime variables of the indexing map as
// symbols; its results are the operand tile's offsets, then its sizes, then
// its strides. The constraints say which tile sizes the tile is valid for.
type SymbolicTile struct {
	tileMap     IndexingMap
	constraints ConstraintExpression
}

// SymbolicTileFromIndexingMap is XLA's SymbolicTile::FromIndexingMap. The
// map is simplified (keeping point dimensions); each result must then be a
// strided expression offset + stride * index, whose offset is the result at
// the origin (every dimension and range variable 0), and whose size and
// stride come from the form of the rest: a variable, a product by a
// constant, a quotient or remainder of a dimension, or a sum of such terms
// whose strides nest. It reports false where XLA returns no tile: for an
// undefined map, a map with constraints other than upper bounds of its
// results, or a result of another form.
func SymbolicTileFromIndexingMap(m IndexingMap) (SymbolicTile, bool) {
	if m.undefined {
		return SymbolicTile{}, false
	}
	m, _ = SimplifyMap(m, SimplifyOptions{PreservePointDimensions: true})
	if !constraintsCanBeIgnored(m) {
		return SymbolicTile{}, false
	}
	zero := func(c varClass, i int) (Expr, bool) {
		if c == classRuntime {
			return Expr{}, false
		}
		return Expr{}, true
	}
	offsets := make([]Expr, len(m.results))
	for i, r := range m.results {
		offsets[i] = simplifyIn(r.replaceVars(zero), m)
	}
	dims := varBounds(m.dims)
	symbols := append(varBounds(m.rangeVars), varBounds(m.rtVars)...)
	cs := AlwaysSatisfied()
	sizes := make([]Expr, len(m.results))
	strides := make([]Expr, len(m.results))
	for i, r := range m.results {
		ss, ok := extractSizeAndStride(simplifyIn(r.Sub(offsets[i]), m), dims, symbols, len(m.rangeVars))
		if !ok {
			return SymbolicTile{}, false
		}
		sizes[i], strides[i] = ss.size, ss.stride
		cs = cs.And(ss.constraints)
	}
	// The tile map's dimensions are tile sizes: one more than the indices.
	tileDims := cloneVars(m.dims)
	for i := range tileDims {
		tileDims[i].Bounds = Interval{tileDims[i].Bounds.Lo + 1, tileDims[i].Bounds.Hi + 1}
	}
	results := append(append(offsets, sizes...), strides...)
	tm, err := NewIndexingMapVars(results, tileDims, cloneVars(m.rangeVars), cloneVars(m.rtVars))
	if err != nil {
		return SymbolicTile{}, false
	}
	tm, _ = tm.RemoveUnusedSymbols()
	if tm.NumRangeVars() != 0 {
		return SymbolicTile{}, false
	}
	return SymbolicTile{tileMap: tm, constraints: cs.Simplify()}, true
}

// constraintsCanBeIgnored reports whether every constraint of m bounds one
// of its results from above, which a tile may exceed (XLA's
// IndexingMapConstraintsCanBeIgnored).
func constraintsCanBeIgnored(m IndexingMap) bool {
	for _, c := range m.constraints {
		if c.Range.Lo != 0 {
			return false
		}
		found := false
		for _, r := range m.results {
			if r.Equal(c.Expr) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// simplifyIn simplifies e with the bounds and constraints of m, keeping
// point dimensions (XLA's SimplifySymbolicExpr).
func simplifyIn(e Expr, m IndexingMap) Expr {
	t := m.clone()
	t.results = []Expr{e}
	t, _ = SimplifyMap(t, SimplifyOptions{PreservePointDimensions: true})
	return t.results[0]
}

// TileMap is the tile's map: offsets, then sizes, then strides.
func (t SymbolicTile) TileMap() IndexingMap { return t.tileMap }

// Constraints are the conditions on the tile sizes under which the tile is
// valid.
func (t SymbolicTile) Constraints() ConstraintExpression { return t.constraints }

func (t SymbolicTile) component(k int) []Expr {
	n := len(t.tileMap.results) / 3
	return t.tileMap.results[k*n : (k+1)*n]
}

// Offsets are the operand tile's offsets, expressions of the runtime
// variables.
func (t SymbolicTile) Offsets() []Expr { return t.component(0) }

// Sizes are the operand tile's sizes, expressions of the tile sizes.
func (t SymbolicTile) Sizes() []Expr { return t.component(1) }

// Strides are the operand tile's strides, expressions of the tile sizes.
func (t SymbolicTile) Strides() []Expr { return t.component(2) }

// String prints the tile as XLA's SymbolicTile::ToString does, one part per
// line:
//
//	Symbolic tile with
//	offset_map: (d0, d1) -> (0, 0)
//	size_map: (d0, d1) -> (d0, d1)
//	stride_map: (d0, d1) -> (1, 1)
//	rt_vars: s0 in [0, 1], ...
//	constraints: ...
func (t SymbolicTile) String() string { return t.Format(PrintOptions{}) }

// Format prints the tile as String does, in the given syntax.
func (t SymbolicTile) Format(opts PrintOptions) string {
	var b strings.Builder
	b.WriteString("Symbolic tile with\n")
	nd := len(t.tileMap.dims)
	nrt := len(t.tileMap.rtVars)
	fmt.Fprintf(&b, "offset_map: %s\n", symbolicMapString(t.Offsets(), nd, nrt, opts))
	fmt.Fprintf(&b, "size_map: %s\n", symbolicMapString(t.Sizes(), nd, 0, opts))
	fmt.Fprintf(&b, "stride_map: %s", symbolicMapString(t.Strides(), nd, 0, opts))
	if nrt > 0 {
		b.WriteString("\nrt_vars: ")
		for i, v := range t.tileMap.rtVars {
			fmt.Fprintf(&b, "s%d in %s, ", i, v.Bounds)
		}
	}
	if !t.constraints.IsAlwaysSatisfied() {
		b.WriteString("\nconstraints: ")
		b.WriteString(t.constraints.Format(opts))
	}
	return b.String()
}

// symbolicMapString prints results over nd dimensions and ns symbols as XLA
// prints a SymbolicMap: runtime variables print as the symbols s_i.
func symbolicMapString(results []Expr, nd, ns int, opts PrintOptions) string {
	name := func(c varClass, i int) string {
		if c == classRuntime {
			return defaultName(classRange, i)
		}
		return defaultName(c, i)
	}
	var b []byte
	b = append(b, '(')
	for i := range nd {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, defaultName(classDim, i)...)
	}
	b = append(b, ')')
	if ns > 0 {
		b = append(b, '[')
		for i := range ns {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, defaultName(classRange, i)...)
		}
		b = append(b, ']')
	}
	b = append(b, " -> ("...)
	for i, r := range results {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = r.appendTo(b, name, opts)
	}
	return string(append(b, ')'))
}
