package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/affine/indexing"
	"github.com/kilnml/kiln/ir"
)

// instrRef names an instruction of a case's module.
type instrRef struct {
	Name        string `json:"name"`
	Computation string `json:"computation"`
}

// groupedCase is a case of indexing_analysis_cases.json that only Go code
// can run: grouped output-to-input indexing over a fusion adaptor, or the
// input-to-output indexing of an epilogue.
type groupedCase struct {
	HLO    string `json:"hlo"`
	Kind   string `json:"kind"`
	Fusion struct {
		Kind        string `json:"kind"`
		Instruction string `json:"instruction"`
		Producer    string `json:"producer"`
		Consumer    string `json:"consumer"`
	} `json:"fusion"`
	Start    instrRef `json:"start"`
	Parent   instrRef `json:"parent"`
	Root     instrRef `json:"root"`
	Epilogue struct {
		Parent instrRef `json:"parent"`
		Root   instrRef `json:"root"`
	} `json:"epilogue"`
	Expected struct {
		Form       string `json:"form"`
		Text       string `json:"text"`
		Map        string `json:"map"`
		Exhaustive bool   `json:"exhaustive"`
		Groups     []struct {
			Instruction instrRef        `json:"instruction"`
			Unordered   *bool           `json:"unordered"`
			Maps        json.RawMessage `json:"maps"`
		} `json:"groups"`
	} `json:"expected"`
}

func init() {
	Register(Suite{
		Name: "indexing_grouped",
		File: "indexing_analysis_cases.json",
		Select: func(raw json.RawMessage) bool {
			var c groupedCase
			return json.Unmarshal(raw, &c) == nil &&
				(c.Kind == "grouped_output_to_input" || c.Kind == "epilogue_input_to_output")
		},
		Check: checkGrouped,
	})
	Register(Suite{
		Name: "indexing_physical",
		File: "indexing_analysis_cases.json",
		Select: func(raw json.RawMessage) bool {
			var c indexingCase
			return json.Unmarshal(raw, &c) == nil && c.UsePhysicalLayout &&
				(c.Kind == "output_to_input" || c.Kind == "input_to_output")
		},
		Check: checkPhysical,
	})
}

// checkPhysical runs XLA's GetOutputToInputIndexing or
// GetInputToOutputIndexing with use_physical_layout and compares each
// operand's maps with XLA's, as texts without white space.
func checkPhysical(c Case) error {
	var ic indexingCase
	if err := json.Unmarshal(c.Raw, &ic); err != nil {
		return err
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
	var x *indexing.Indexing
	if ic.Kind == "input_to_output" {
		x, err = indexing.PhysicalInputToOutput(in, ic.InputID)
	} else {
		x, err = indexing.PhysicalOutputToInput(in, ic.OutputID)
	}
	if err != nil {
		return err
	}
	if ic.Expected.Form != "string" {
		return fmt.Errorf("unknown expected form %q", ic.Expected.Form)
	}
	got := splitOperands(x.String())
	want := splitOperands(ic.Expected.Text)
	if len(got) != len(want) {
		return fmt.Errorf("got %d operands, want %d", len(got), len(want))
	}
	for k := range want {
		if !sameSorted(got[k], want[k]) {
			return fmt.Errorf("operand %d: got %q want %q", k, got[k], want[k])
		}
	}
	return nil
}

// checkGrouped runs XLA's ComputeGroupedOutputToInputIndexing or
// ComputeEpilogueInputToOutputIndexing on the case's module and compares
// the maps with XLA's, as texts without white space.
func checkGrouped(c Case) error {
	var gc groupedCase
	if err := json.Unmarshal(c.Raw, &gc); err != nil {
		return err
	}
	m, err := ir.ParseModule(gc.HLO)
	if err != nil {
		return fmt.Errorf("parse: %v", err)
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("verify: %v", err)
	}
	find := func(r instrRef) (*ir.Instruction, error) {
		if r.Computation != "" {
			for _, comp := range m.Computations {
				if comp.Name == r.Computation {
					if in := comp.Instruction(r.Name); in != nil {
						return in, nil
					}
				}
			}
		}
		if in := findInstruction(m, r.Name); in != nil {
			return in, nil
		}
		return nil, fmt.Errorf("no instruction named %q", r.Name)
	}
	if gc.Kind == "epilogue_input_to_output" {
		return checkEpilogue(gc, find)
	}
	var a *indexing.Adaptor
	switch gc.Fusion.Kind {
	case "instruction":
		in, err := find(instrRef{Name: gc.Fusion.Instruction})
		if err != nil {
			return err
		}
		a = indexing.AdaptorFor(in)
	case "producer_consumer":
		p, err := find(instrRef{Name: gc.Fusion.Producer})
		if err != nil {
			return err
		}
		cons, err := find(instrRef{Name: gc.Fusion.Consumer})
		if err != nil {
			return err
		}
		a = indexing.AdaptorForProducerConsumer(p, cons)
	default:
		return fmt.Errorf("unknown fusion kind %q", gc.Fusion.Kind)
	}
	start, err := find(gc.Start)
	if err != nil {
		return err
	}
	groups, err := indexing.GroupedOutputToInput(a, start)
	if err != nil {
		return err
	}
	got := map[*ir.Instruction][]string{}
	for _, g := range groups {
		x := indexing.Indexing{Operands: [][]*affine.IndexingMap{g.Maps}, Unknown: []bool{false}, Extras: [][]*indexing.Extras{g.Extras}}
		got[g.Instr] = splitOperands(x.String())[0]
	}
	if gc.Expected.Exhaustive && len(got) != len(gc.Expected.Groups) {
		var names []string
		for in := range got {
			names = append(names, in.Name)
		}
		slices.Sort(names)
		return fmt.Errorf("maps reach %d instructions (%s), XLA's reach %d", len(got), strings.Join(names, ", "), len(gc.Expected.Groups))
	}
	for _, eg := range gc.Expected.Groups {
		in, err := find(eg.Instruction)
		if err != nil {
			return err
		}
		var want []string
		var maps []string
		if err := json.Unmarshal(eg.Maps, &maps); err != nil {
			return fmt.Errorf("group %s: maps: %v", in.Name, err)
		}
		for _, mp := range maps {
			want = append(want, normMap(mp))
		}
		g, ok := got[in]
		unordered := eg.Unordered == nil || *eg.Unordered
		if !ok || (unordered && !sameSorted(g, want)) || (!unordered && !slices.Equal(g, want)) {
			return fmt.Errorf("group %s: got %q want %q", in.Name, g, want)
		}
	}
	return nil
}

// checkEpilogue runs ComputeEpilogueInputToOutputIndexing from the case's
// epilogue parent to its root.
func checkEpilogue(gc groupedCase, find func(instrRef) (*ir.Instruction, error)) error {
	parentRef, rootRef := gc.Epilogue.Parent, gc.Epilogue.Root
	if parentRef.Name == "" {
		parentRef, rootRef = gc.Parent, gc.Root
	}
	if parentRef.Name == "" || rootRef.Name == "" {
		return errors.New("the case names no epilogue parent and root")
	}
	parent, err := find(parentRef)
	if err != nil {
		return err
	}
	root, err := find(rootRef)
	if err != nil {
		return err
	}
	m, err := indexing.EpilogueInputToOutput(parent, root)
	if err != nil {
		return err
	}
	want := gc.Expected.Text
	if want == "" {
		want = gc.Expected.Map
	}
	if want == "" {
		return errors.New("the case gives no expected map")
	}
	if got, w := normMap(m.String()), normMap(want); got != w {
		return fmt.Errorf("got %s want %s", got, w)
	}
	return nil
}
