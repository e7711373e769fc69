package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kilnml/kiln/affine"
)

// mapProgram is one case of indexing_map_cases.json: steps applied to an
// indexing map in order, and the expected result.
type mapProgram struct {
	Category string `json:"category"`
	Steps    []struct {
		Op   string `json:"op"`
		Text string `json:"text"`
	} `json:"steps"`
	Expected struct {
		Text *string `json:"text"`
	} `json:"expected"`
}

func init() {
	Register(Suite{
		Name: "simplify",
		File: "indexing_map_cases.json",
		Select: func(raw json.RawMessage) bool {
			var p mapProgram
			// A case that expects only Simplify's return value has no
			// text to compare: indexing_map_cases checks its return.
			return json.Unmarshal(raw, &p) == nil && p.Category == "simplify" && len(p.Steps) == 2 &&
				p.Steps[0].Op == "Parse" && p.Steps[1].Op == "Simplify" && p.Expected.Text != nil
		},
		Check: checkSimplify,
	})
}

// checkSimplify parses a map and simplifies it as `kiln simplify` does, and
// compares the printed result with XLA's, without white space.
func checkSimplify(c Case) error {
	var p mapProgram
	if err := json.Unmarshal(c.Raw, &p); err != nil {
		return err
	}
	m, err := affine.Parse(p.Steps[0].Text)
	if err != nil {
		return fmt.Errorf("parse: %v", err)
	}
	got := normMap(fmt.Sprintln(affine.Simplify(m)))
	if want := normMap(*p.Expected.Text); got != want {
		return errors.New("got " + got + " want " + want)
	}
	return nil
}
