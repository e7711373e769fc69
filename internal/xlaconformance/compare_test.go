package xlaconformance

import (
	"encoding/json"
	"math"
	"testing"
)

func mustJSONLiteral(t *testing.T, text string) jsonLiteral {
	t.Helper()
	var l jsonLiteral
	if err := json.Unmarshal([]byte(text), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLiteralTextOfJSON(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"dtype": "f32", "shape": [2, 2], "values": [[1, 2.5], ["nan", "-inf"]]}`, "f32[2,2] {{1, 2.5}, {nan, -inf}}"},
		{`{"dtype": "s64", "shape": [], "values": 9223372036854775807}`, "s64[] 9223372036854775807"},
		{`{"dtype": "c64", "shape": [1], "values": [[1, -0.0]]}`, "c64[1] {(1, -0)}"},
		{`{"tuple": [{"dtype": "pred", "shape": [2], "values": [true, false]}, {"dtype": "u8", "shape": [0], "values": []}]}`, "(pred[2] {true, false}, u8[0] {})"},
	} {
		if got := literalText(mustJSONLiteral(t, tc.json)); got != tc.want {
			t.Errorf("literalText(%s) = %q, want %q", tc.json, got, tc.want)
		}
	}
}

func TestCompareLiteral(t *testing.T) {
	want := mustJSONLiteral(t, `{"dtype": "f32", "shape": [3], "values": [1, "nan", 0.1]}`)
	equal := comparison{Kind: "equal"}
	for _, tc := range []struct {
		printed string
		cmp     comparison
		ok      bool
	}{
		{"f32[3] {1, nan, 0.1}", equal, true},
		{"f32[3] {1, -nan, 0.100000001}", equal, true}, // the same float32
		{"f32[3] {1, nan, 0.1001}", equal, false},
		{"f32[3] {1, nan, 0.1001}", comparison{Kind: "near", Abs: 1e-3}, true},
		{"f32[3] {1, 2, 0.1}", equal, false}, // NaN against a number
		{"f32[2] {1, nan}", equal, false},
	} {
		lits, err := readLiterals(tc.printed)
		if err != nil {
			t.Fatal(err)
		}
		got := pickOutput(lits, nil)
		if why := compareLiteral(got, want, tc.cmp); (why == "") != tc.ok {
			t.Errorf("%s against %v (%+v): %q, want ok=%v", tc.printed, want.Values, tc.cmp, why, tc.ok)
		}
	}
	big := mustJSONLiteral(t, `{"dtype": "u64", "shape": [1], "values": [18446744073709551615]}`)
	lits, _ := readLiterals("u64[1] {18446744073709551614}")
	if compareLiteral(lits[0], big, equal) == "" {
		t.Error("64-bit integers one apart compared equal")
	}
	if !math.IsNaN(toFloat("nan")) || toFloat("-inf") != math.Inf(-1) {
		t.Error("special values misread")
	}
}

func TestSplitOperands(t *testing.T) {
	text := `operand id = 0
(d0, d1) -> (d1, d0),
domain:
d0 in [0, 9],
d1 in [0, 19]
(d0, d1) -> (d0 floordiv 2),
domain:
d0 in [0, 9],
d1 in [0, 19]
operand id = 1
unknown indexing
`
	got := splitOperands(text)
	if len(got[0]) != 2 || got[0][1] != "(d0,d1)->(d0/2),domain:d0in[0,9],d1in[0,19]" {
		t.Errorf("operand 0: %q", got[0])
	}
	if len(got[1]) != 1 || got[1][0] != "unknownindexing" {
		t.Errorf("operand 1: %q", got[1])
	}
}
