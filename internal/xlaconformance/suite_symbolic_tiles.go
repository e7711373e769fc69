package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/affine/indexing"
	"github.com/kilnml/kiln/ir"
)

// tileCase is one case of symbolic_tile_cases.json: an indexing map, from
// an instruction's output-to-input indexing or built by steps, and the
// SymbolicTile XLA derives from it (or none).
type tileCase struct {
	MapSource struct {
		Kind        string    `json:"kind"`
		HLO         string    `json:"hlo"`
		Instruction instrRef  `json:"instruction"`
		OutputID    int       `json:"output_id"`
		Operand     int       `json:"operand"`
		MapIndex    int       `json:"map_index_in_set"`
		Steps       []mapStep `json:"steps"`
	} `json:"map_source"`
	Expected struct {
		Text    *string `json:"text"`
		Nullopt bool    `json:"nullopt"`
	} `json:"expected"`
}

func init() {
	Register(Suite{
		Name:  "symbolic_tile_cases",
		File:  "symbolic_tile_cases.json",
		Check: checkSymbolicTile,
	})
}

// checkSymbolicTile derives the SymbolicTile of the case's map and compares
// it with XLA's text, without white space, or checks that there is none.
func checkSymbolicTile(c Case) error {
	var tc tileCase
	if err := json.Unmarshal(c.Raw, &tc); err != nil {
		return err
	}
	m, err := tileSourceMap(tc)
	if err != nil {
		return err
	}
	tile, ok := affine.SymbolicTileFromIndexingMap(m)
	switch {
	case tc.Expected.Nullopt && ok:
		return fmt.Errorf("derived %s from %s, XLA derives no tile", tile, m)
	case tc.Expected.Nullopt:
		return nil
	case !ok:
		return fmt.Errorf("no tile derived from %s", m)
	case tc.Expected.Text == nil:
		return errors.New("the case expects nothing Kiln can check")
	}
	if got, want := normMap(tile.String()), normMap(*tc.Expected.Text); got != want {
		return fmt.Errorf("got %s want %s", got, want)
	}
	return nil
}

// tileSourceMap builds the map a case derives its tile from.
func tileSourceMap(tc tileCase) (affine.IndexingMap, error) {
	src := tc.MapSource
	switch src.Kind {
	case "steps":
		return runMapSteps(src.Steps)
	case "output_to_input":
	default:
		return affine.IndexingMap{}, fmt.Errorf("unknown map source %q", src.Kind)
	}
	mod, err := ir.ParseModule(src.HLO)
	if err != nil {
		return affine.IndexingMap{}, fmt.Errorf("parse: %v", err)
	}
	if err := mod.Verify(); err != nil {
		return affine.IndexingMap{}, fmt.Errorf("verify: %v", err)
	}
	in := findInstruction(mod, src.Instruction.Name)
	if in == nil {
		return affine.IndexingMap{}, fmt.Errorf("no instruction named %q", src.Instruction.Name)
	}
	x, err := indexing.OutputToInput(in, src.OutputID)
	if err != nil {
		return affine.IndexingMap{}, err
	}
	if src.Operand < 0 || src.Operand >= x.NumOperands() {
		return affine.IndexingMap{}, fmt.Errorf("%s has %d operands, operand %d asked", in.Name, x.NumOperands(), src.Operand)
	}
	if x.IsUnknown(src.Operand) {
		return affine.Undefined(), nil
	}
	maps := x.Operands[src.Operand]
	if src.MapIndex < 0 || src.MapIndex >= len(maps) {
		return affine.IndexingMap{}, fmt.Errorf("operand %d has %d maps, map %d asked", src.Operand, len(maps), src.MapIndex)
	}
	return *maps[src.MapIndex], nil
}
