package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kilnml/kiln/affine"
)

// mapStep is one step of an indexing-map program: an operation of XLA's
// IndexingMap API and its arguments.
type mapStep struct {
	Op   string `json:"op"`
	Text string `json:"text"`
	// Construct: the symbolic map and its variables, [lo, hi, name].
	SymbolicMap       string            `json:"symbolic_map"`
	From              string            `json:"from"`
	DimVars           []json.RawMessage `json:"dim_vars"`
	RangeVars         []json.RawMessage `json:"range_vars"`
	RTVars            []json.RawMessage `json:"rt_vars"`
	DimUpperBounds    []int64           `json:"dim_upper_bounds"`
	SymbolUpperBounds []int64           `json:"symbol_upper_bounds"`
	// ComposeIndexingMaps: the programs of its two operands.
	First  []mapStep `json:"first"`
	Second []mapStep `json:"second"`
	// Simplify and RescaleSymbols: options, and the value XLA returned.
	Args         []string `json:"args"`
	ExpectReturn *bool    `json:"expect_return"`
	// AddConstraint.
	Expr     string  `json:"expr"`
	Interval []int64 `json:"interval"`
	// ConvertRangeVariablesToDimensions.
	RangeVarIndices []int `json:"range_var_indices"`
}

// mapStepsCase is one case of indexing_map_cases.json.
type mapStepsCase struct {
	Category string    `json:"category"`
	Steps    []mapStep `json:"steps"`
	Expected struct {
		Text         *string   `json:"text"`
		ReturnsOnly  bool      `json:"returns_only"`
		EqualToSteps []mapStep `json:"equal_to_steps"`
	} `json:"expected"`
}

func init() {
	Register(Suite{
		Name:  "indexing_map_cases",
		File:  "indexing_map_cases.json",
		Check: checkIndexingMapCase,
	})
}

// checkIndexingMapCase runs a program of IndexingMap operations, checking
// the value each step returns where XLA's test checks it, and compares the
// final map with XLA's text (without white space) or with the map another
// program builds.
func checkIndexingMapCase(c Case) error {
	var mc mapStepsCase
	if err := json.Unmarshal(c.Raw, &mc); err != nil {
		return err
	}
	m, err := runMapSteps(mc.Steps)
	if err != nil {
		return err
	}
	switch {
	case mc.Expected.Text != nil:
		if got, want := normMap(m.String()), normMap(*mc.Expected.Text); got != want {
			return fmt.Errorf("got %s want %s", got, want)
		}
	case len(mc.Expected.EqualToSteps) > 0:
		want, err := runMapSteps(mc.Expected.EqualToSteps)
		if err != nil {
			return fmt.Errorf("expected map: %v", err)
		}
		if !m.Equal(want) {
			return fmt.Errorf("got %s want %s", m, want)
		}
	case mc.Expected.ReturnsOnly:
	default:
		return errors.New("the case expects nothing Kiln can check")
	}
	return nil
}

// runMapSteps applies the steps of a program to a map, in order.
func runMapSteps(steps []mapStep) (affine.IndexingMap, error) {
	var m affine.IndexingMap
	for i, s := range steps {
		var err error
		var ret *bool
		m, ret, err = runMapStep(m, s)
		if err != nil {
			return m, fmt.Errorf("step %d (%s): %v", i, s.Op, err)
		}
		if s.ExpectReturn != nil && ret != nil && *ret != *s.ExpectReturn {
			return m, fmt.Errorf("step %d (%s) returned %v, XLA returns %v; map: %s", i, s.Op, *ret, *s.ExpectReturn, m)
		}
	}
	return m, nil
}

func runMapStep(m affine.IndexingMap, s mapStep) (affine.IndexingMap, *bool, error) {
	switch s.Op {
	case "Parse":
		m, err := affine.Parse(s.Text)
		return m, nil, err
	case "Construct":
		m, err := constructMap(s)
		return m, nil, err
	case "GetUndefined":
		return affine.Undefined(), nil, nil
	case "ComposeIndexingMaps":
		first, err := runMapSteps(s.First)
		if err != nil {
			return m, nil, fmt.Errorf("first: %v", err)
		}
		second, err := runMapSteps(s.Second)
		if err != nil {
			return m, nil, fmt.Errorf("second: %v", err)
		}
		c, err := affine.ComposeIndexingMaps(first, second)
		return c, nil, err
	case "Simplify":
		var opts affine.SimplifyOptions
		for _, a := range s.Args {
			switch a {
			case "kPreserve":
				opts.PreservePointDimensions = true
			case "kReplace":
			default:
				return m, nil, fmt.Errorf("unknown argument %q", a)
			}
		}
		r, changed := affine.SimplifyMap(m, opts)
		return r, &changed, nil
	case "RemoveUnusedSymbols":
		r, _ := m.RemoveUnusedSymbols()
		return r, nil, nil
	case "RemoveUnusedVars":
		r, _ := m.RemoveUnusedVars()
		return r, nil, nil
	case "RescaleSymbols":
		r, changed := m.RescaleSymbols()
		return r, &changed, nil
	case "ConvertSymbolsToDimensions":
		return m.ConvertSymbolsToDimensions(), nil, nil
	case "ConvertRangeVariablesToDimensions":
		r, err := m.ConvertRangeVariablesToDimensions(s.RangeVarIndices)
		return r, nil, err
	case "AddConstraint":
		if len(s.Interval) != 2 {
			return m, nil, fmt.Errorf("interval %v: expected [lo, hi]", s.Interval)
		}
		e, err := affine.ParseExpr(s.Expr)
		if err != nil {
			return m, nil, fmt.Errorf("expression %q: %v", s.Expr, err)
		}
		e = affine.SymbolsToRuntime(e, m.NumRangeVars())
		return m.AddConstraint(e, affine.Interval{Lo: s.Interval[0], Hi: s.Interval[1]}), nil, nil
	}
	return m, nil, fmt.Errorf("unknown step %q", s.Op)
}

// constructMap builds a map from a symbolic map and its variables, as XLA's
// IndexingMap constructor or FromTensorSizes does.
func constructMap(s mapStep) (affine.IndexingMap, error) {
	sm, err := affine.ParseSymbolicMap(s.SymbolicMap)
	if err != nil {
		return affine.IndexingMap{}, fmt.Errorf("symbolic map %q: %v", s.SymbolicMap, err)
	}
	if s.From == "FromTensorSizes" {
		return sm.IndexingMap(sizesToVars(s.DimUpperBounds), sizesToVars(s.SymbolUpperBounds), nil)
	}
	dims, err := parseVars(s.DimVars)
	if err != nil {
		return affine.IndexingMap{}, err
	}
	rangeVars, err := parseVars(s.RangeVars)
	if err != nil {
		return affine.IndexingMap{}, err
	}
	rtVars, err := parseVars(s.RTVars)
	if err != nil {
		return affine.IndexingMap{}, err
	}
	return sm.IndexingMap(dims, rangeVars, rtVars)
}

func sizesToVars(sizes []int64) []affine.Variable {
	vs := make([]affine.Variable, len(sizes))
	for i, s := range sizes {
		vs[i].Bounds = affine.Interval{Lo: 0, Hi: s - 1}
	}
	return vs
}

// parseVars reads variables written [lo, hi, name-or-null].
func parseVars(raw []json.RawMessage) ([]affine.Variable, error) {
	vs := make([]affine.Variable, len(raw))
	for i, r := range raw {
		var fields []json.RawMessage
		if err := json.Unmarshal(r, &fields); err != nil || len(fields) < 2 {
			return nil, fmt.Errorf("variable %s: expected [lo, hi, name]", r)
		}
		if err := json.Unmarshal(fields[0], &vs[i].Bounds.Lo); err != nil {
			return nil, fmt.Errorf("variable %s: %v", r, err)
		}
		if err := json.Unmarshal(fields[1], &vs[i].Bounds.Hi); err != nil {
			return nil, fmt.Errorf("variable %s: %v", r, err)
		}
		if len(fields) > 2 {
			var name *string
			if err := json.Unmarshal(fields[2], &name); err == nil && name != nil {
				vs[i].Name = *name
			}
		}
	}
	return vs, nil
}
