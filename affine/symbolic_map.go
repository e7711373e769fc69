package affine

import "fmt"

// SymbolicMap is XLA's SymbolicMap: result expressions over NumDims
// dimension variables and NumSymbols symbols, without bounds. Its symbols
// are range variables s_i; an IndexingMap built from it gives the first of
// them to its range variables and the rest to its runtime variables, as XLA
// packs [range variables | runtime variables] into the symbols.
type SymbolicMap struct {
	NumDims, NumSymbols int
	Results             []Expr
}

// ParseSymbolicMap reads a map without a domain, "(d0, d1)[s0] -> (d0 + s0)",
// binding the variables by position.
func ParseSymbolicMap(text string) (SymbolicMap, error) {
	return run(text, func(p *parser) SymbolicMap {
		var sm SymbolicMap
		sm.NumDims = len(p.parseVarList(classDim, tokLParen, tokRParen, "'(' to open the list of dimension variables"))
		if p.tok.kind == tokLBrack {
			sm.NumSymbols = len(p.parseVarList(classRange, tokLBrack, tokRBrack, "'['"))
		}
		p.expect(tokArrow, "'->' after the variables")
		p.expect(tokLParen, "'(' to open the list of results")
		if p.tok.kind != tokRParen {
			for {
				sm.Results = append(sm.Results, p.parseExpr())
				if p.tok.kind != tokComma {
					break
				}
				p.advance()
			}
		}
		p.expect(tokRParen, "',' or ')' after a result")
		p.expect(tokEOF, "end of input after the results")
		return sm
	})
}

// SymbolsToRuntime rewrites an expression whose symbols s_i number the range
// variables and then the runtime variables of a map with numRangeVars range
// variables: s_i for i >= numRangeVars becomes rt_(i - numRangeVars).
func SymbolsToRuntime(e Expr, numRangeVars int) Expr {
	return e.replaceVars(func(c varClass, i int) (Expr, bool) {
		if c == classRange && i >= numRangeVars {
			return RuntimeVar(i - numRangeVars), true
		}
		return Expr{}, false
	})
}

// IndexingMap builds the indexing map of sm with the given variables, as
// XLA's IndexingMap constructor does; the symbols beyond the range variables
// become runtime variables. The constraints use the same numbering of
// symbols.
func (sm SymbolicMap) IndexingMap(dims, rangeVars, rtVars []Variable, constraints ...Constraint) (IndexingMap, error) {
	if len(dims) != sm.NumDims || len(rangeVars)+len(rtVars) != sm.NumSymbols {
		return IndexingMap{}, fmt.Errorf("the symbolic map has %d dimensions and %d symbols, but %d dimension, %d range and %d runtime variables were given",
			sm.NumDims, sm.NumSymbols, len(dims), len(rangeVars), len(rtVars))
	}
	results := make([]Expr, len(sm.Results))
	for i, r := range sm.Results {
		results[i] = SymbolsToRuntime(r, len(rangeVars))
	}
	cs := make([]Constraint, len(constraints))
	for i, c := range constraints {
		cs[i] = Constraint{SymbolsToRuntime(c.Expr, len(rangeVars)), c.Range}
	}
	return NewIndexingMapVars(results, dims, rangeVars, rtVars, cs...)
}
