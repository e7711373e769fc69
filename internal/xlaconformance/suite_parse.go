package xlaconformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kilnml/kiln/ir"
)

func init() {
	Register(Suite{
		Name: "parse",
		File: "hlo_parse_only.json",
		Select: func(raw json.RawMessage) bool {
			var c struct {
				Text string `json:"text"`
			}
			return json.Unmarshal(raw, &c) == nil && c.Text != ""
		},
		Check: checkParse,
	})
	Register(Suite{
		Name: "badparse",
		File: "hlo_parser_cases.json",
		Select: func(raw json.RawMessage) bool {
			var c parserCase
			return json.Unmarshal(raw, &c) == nil && c.Kind == "parse_error" &&
				(c.Parser == "" || strings.Contains(c.Parser, "Module"))
		},
		Check: checkBadParse,
	})
}

// parserCase is one case of hlo_parser_cases.json.
type parserCase struct {
	Kind           string `json:"kind"`
	Input          string `json:"input"`
	ExpectedOutput string `json:"expected_output"`
	Parser         string `json:"parser"`
	PrintOptions   string `json:"print_options"`
}

// checkParse parses a module as `kiln fmt` does and checks that its printed
// text parses again to a module that prints the same: printing loses
// nothing the parser reads.
func checkParse(c Case) error {
	var pc struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c.Raw, &pc); err != nil {
		return err
	}
	m, err := ir.ParseModule(pc.Text)
	if err != nil {
		return fmt.Errorf("rejected: %v", err)
	}
	printed := m.String()
	again, err := ir.ParseModule(printed)
	if err != nil {
		return fmt.Errorf("printed text does not parse: %v", err)
	}
	if again.String() != printed {
		return errors.New("printing the reparsed module changes it")
	}
	return nil
}

// checkBadParse checks that a module XLA's parser rejects is rejected by
// the parser, as `kiln fmt` runs it, with an error (a panic is a failure,
// counted by the runner).
func checkBadParse(c Case) error {
	var pc parserCase
	if err := json.Unmarshal(c.Raw, &pc); err != nil {
		return err
	}
	if _, err := ir.ParseModule(pc.Input); err != nil {
		return nil
	}
	return errors.New("accepted a module XLA rejects")
}
