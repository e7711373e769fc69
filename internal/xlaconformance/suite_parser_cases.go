package xlaconformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/kilnml/kiln/ir"
)

func init() {
	Register(Suite{
		Name: "parser_roundtrip",
		File: "hlo_parser_cases.json",
		Select: func(raw json.RawMessage) bool {
			var c parserCase
			if json.Unmarshal(raw, &c) != nil {
				return false
			}
			switch c.Kind {
			case "roundtrip_long", "roundtrip_short", "non_roundtrip":
				return true
			}
			return false
		},
		Check: checkRoundTrip,
	})
	Register(Suite{
		Name: "parser_ok",
		File: "hlo_parser_cases.json",
		Select: func(raw json.RawMessage) bool {
			var c parserCase
			return json.Unmarshal(raw, &c) == nil && c.Kind == "parse_ok"
		},
		Check: checkParseOK,
	})
}

// printForCase prints m as the case's print options ask (XLA's
// HloPrintOptions: the default long form with operand shapes, or
// ShortParsable).
var printForCase = func(m *ir.Module, printOptions string) string {
	return m.Print(ir.PrintOptions{Short: strings.Contains(printOptions, "ShortParsable")})
}

// checkRoundTrip parses a parser test's input and checks that it prints as
// XLA prints it (the expected output, or the input itself), modulo white
// space.
func checkRoundTrip(c Case) error {
	var pc parserCase
	if err := json.Unmarshal(c.Raw, &pc); err != nil {
		return err
	}
	m, err := ir.ParseModule(pc.Input)
	if err != nil {
		return fmt.Errorf("rejected: %v", err)
	}
	want := pc.ExpectedOutput
	if want == "" {
		want = pc.Input
	}
	got := printForCase(m, pc.PrintOptions)
	if stripSpace(got) != stripSpace(want) {
		return fmt.Errorf("printed differently:\n got: %s\nwant: %s", firstDifference(stripSpace(got), stripSpace(want)), firstDifference(stripSpace(want), stripSpace(got)))
	}
	return nil
}

// checkParseOK checks that a module XLA's parser accepts is accepted.
func checkParseOK(c Case) error {
	var pc parserCase
	if err := json.Unmarshal(c.Raw, &pc); err != nil {
		return err
	}
	if _, err := ir.ParseModule(pc.Input); err != nil {
		return fmt.Errorf("rejected: %v", err)
	}
	return nil
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// firstDifference returns a window of a around the first byte where it
// differs from b.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo, hi := max(i-40, 0), min(i+60, len(a))
	return a[lo:hi]
}
