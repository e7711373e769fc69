package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnml/kiln/affine/indexing"
	"github.com/kilnml/kiln/ir"
)

// indexingCase is one case of indexing_analysis_cases.json.
type indexingCase struct {
	HLO               string `json:"hlo"`
	Kind              string `json:"kind"`
	OutputID          int    `json:"output_id"`
	InputID           int    `json:"input_id"`
	UsePhysicalLayout bool   `json:"use_physical_layout"`
	Instruction       struct {
		Name        string `json:"name"`
		Computation string `json:"computation"`
	} `json:"instruction"`
	Expected struct {
		Form     string `json:"form"`
		Text     string `json:"text"`
		Operands []struct {
			Maps      json.RawMessage `json:"maps"`
			Unordered *bool           `json:"unordered"`
		} `json:"operands"`
	} `json:"expected"`
}

func init() {
	Register(Suite{
		Name: "indexing",
		File: "indexing_analysis_cases.json",
		Select: func(raw json.RawMessage) bool {
			var c indexingCase
			return json.Unmarshal(raw, &c) == nil && (c.Kind == "output_to_input" || c.Kind == "input_to_output")
		},
		Check: checkIndexing,
	})
}

// checkIndexing computes an instruction's indexing maps as `kiln indexing`
// does (output to input, or input to output with --inverse) and compares
// each operand's maps with XLA's, as texts without white space.
func checkIndexing(c Case) error {
	var ic indexingCase
	if err := json.Unmarshal(c.Raw, &ic); err != nil {
		return err
	}
	if ic.UsePhysicalLayout {
		return ErrSkip
	}
	m, err := ir.ParseModule(ic.HLO)
	if err != nil {
		return fmt.Errorf("parse: %v", err)
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("verify: %v", err)
	}
	in := findInstruction(m, ic.Instruction.Name)
	if in == nil {
		return fmt.Errorf("no instruction named %q", ic.Instruction.Name)
	}
	var text string
	if ic.Kind == "input_to_output" {
		if ic.InputID >= len(in.Operands) {
			return fmt.Errorf("%s has %d operands, input %d asked", in.Name, len(in.Operands), ic.InputID)
		}
		x, err := indexing.InputToOutput(in, ic.InputID)
		if err != nil {
			return err
		}
		text = x.String()
	} else {
		x, err := indexing.OutputToInput(in, ic.OutputID)
		if err != nil {
			return err
		}
		text = x.String()
	}
	got := splitOperands(text)
	switch ic.Expected.Form {
	case "empty":
		for _, maps := range got {
			if len(maps) > 0 {
				return errors.New("expected no maps")
			}
		}
		return nil
	case "string":
		for k, maps := range splitOperands(ic.Expected.Text) {
			if !sameSorted(got[k], maps) {
				return fmt.Errorf("operand %d: got %q want %q", k, got[k], maps)
			}
		}
		return nil
	case "operand_sets":
		for k, set := range ic.Expected.Operands {
			var want []string
			var maps []string
			if err := json.Unmarshal(set.Maps, &maps); err == nil {
				for _, mp := range maps {
					want = append(want, normMap(mp))
				}
			} else {
				want = []string{"unknownindexing"}
			}
			g := got[k]
			unordered := set.Unordered == nil || *set.Unordered
			if unordered && !sameSorted(g, want) || !unordered && !slices.Equal(g, want) {
				return fmt.Errorf("operand %d: got %q want %q", k, g, want)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown expected form %q", ic.Expected.Form)
}

// findInstruction returns the instruction named name, in the entry
// computation first, then in the others (as `kiln indexing --instr` does).
func findInstruction(m *ir.Module, name string) *ir.Instruction {
	if in := m.Entry.Instruction(name); in != nil {
		return in
	}
	for _, c := range m.Computations {
		if in := c.Instruction(name); in != nil {
			return in
		}
	}
	return nil
}

// normMap is a map's text without white space, floor division written `/`.
func normMap(text string) string {
	return stripSpace(strings.ReplaceAll(text, "floordiv", "/"))
}

var operandID = regexp.MustCompile(`operand id = (\d+)`)

// splitOperands splits HloInstructionIndexing::ToString's text into each
// operand's maps, normalised.
func splitOperands(text string) map[int][]string {
	out := map[int][]string{}
	locs := operandID.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		k, _ := strconv.Atoi(text[loc[2]:loc[3]])
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := text[loc[1]:end]
		if strings.TrimSpace(body) == "unknown indexing" {
			out[k] = append(out[k], "unknownindexing")
		} else {
			out[k] = append(out[k], splitMaps(body)...)
		}
	}
	return out
}

// splitMaps splits one operand's text into maps: each map starts at a line
// holding "->" that is not a runtime variable's line.
func splitMaps(block string) []string {
	var maps []string
	var cur []string
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.Contains(line, "->") && !strings.HasPrefix(strings.TrimSpace(line), "rt") && len(cur) > 0 &&
			!strings.HasSuffix(strings.TrimRight(cur[len(cur)-1], " \t"), ":") {
			tail := strings.Join(cur[max(len(cur)-3, 0):], "")
			if !strings.Contains(tail, "runtime variables") {
				maps = append(maps, strings.Join(cur, "\n"))
				cur = nil
			}
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		maps = append(maps, strings.Join(cur, "\n"))
	}
	for i := range maps {
		maps[i] = normMap(maps[i])
	}
	return maps
}

func sameSorted(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
