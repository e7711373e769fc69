package affine

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: no input makes the parser panic; errors are *ParseError at a
// position inside the input; whatever parses prints back to an equivalent
// map and simplifies lawfully.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"(d0, d1)[s0]{rt0} -> (d0 + s0, d1 / 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]",
		"(d0, d1) -> (d0 floordiv 8, (d0 mod 8) * 4 + d1 ceildiv 2), domain: d0 in [0, 31], d1 in [0, 3]",
		"(th_x)[s0]{gpu} -> (th_x * gpu + s0, min(s0, 2), max(th_x, 1)), domain: th_x in [0, 3], s0 in [0, 1], gpu in [0, 1]",
		"(d0) -> (-(-(-(d0 floordiv -3) mod -2) ceildiv 5)), domain: d0 in [-9, 9], d0 * 2 in [-8, 8]",
		"(d0 -> (d0)", "(d0) -> (d1), domain: d0 in [0, 9]", "(d0) -> (d0), domain: d0 in [9, 0]",
		"(d0) -> (d0 * 99999999999999999999), domain: d0 in [0, 1]", "KNOWN EMPTY", "UNDEFINED", "() -> ()",
		strings.Repeat("(", 2000),
		// The analogues of the hostile-file probes of the other parsers: a
		// non-ASCII name, a domain far beyond what a box can enumerate.
		"(dé) -> (dé), domain: dé in [0, 9]", "(d0, d1) -> (d0 * d1), domain: d0 in [0, 9223372036854775807], d1 in [-9223372036854775808, 0]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(text)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.Offset < 0 || pe.Offset > len(text) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("error position %d:%d (offset %d) outside the input of %d bytes", pe.Line, pe.Column, pe.Offset, len(text))
			}
			return
		}
		if boxSize(m) > 1<<12 {
			return
		}
		checkRoundTrip(t, m)
		s := Simplify(m)
		checkSameFunction(t, m, s)
	})
}

// FuzzSimplifyLaw: maps drawn from the fuzzer's bytes keep every point and
// result through Simplify.
func FuzzSimplifyLaw(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {1, 2, 3}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4},
		[]byte("a reshape chain"), []byte("softmax over f32[2, 65, 125]"),
		{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9},
		{2, 2, 1, 0, 4, 3, 10, 11, 12, 12, 9, 10, 5, 4, 3, 2, 1, 0, 11, 12, 8, 7, 6, 5, 4, 3, 2, 1},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{r: &byteSource{data: data}}
		m := g.indexingMap()
		checkSameFunction(t, m, Simplify(m))
		p, _ := SimplifyMap(m, SimplifyOptions{PreservePointDimensions: true})
		checkSameFunction(t, m, p)
	})
}
