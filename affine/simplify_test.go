package affine

import "testing"

// Each rule of the simplifier, on the smallest map that needs it, and maps
// from XLA's own tests of its simplifier. Every case also checks the law.
func TestSimplifyRules(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"range: floordiv by more than the dividend",
			"(d0) -> (d0 floordiv 16), domain: d0 in [0, 15]", "(d0) -> (0), domain: d0 in [0, 15]"},
		{"range: floordiv within one quotient",
			"(d0) -> (d0 floordiv 16), domain: d0 in [32, 47]", "(d0) -> (2), domain: d0 in [32, 47]"},
		{"range: ceildiv within one quotient",
			"(d0) -> (d0 ceildiv 4), domain: d0 in [5, 8]", "(d0) -> (2), domain: d0 in [5, 8]"},
		{"range: mod of a dividend in one period is a subtraction (XLA's ModIsSub)",
			"()[s0] -> (s0 mod 42), domain: s0 in [53, 71]", "()[s0] -> (s0 - 42), domain: s0 in [53, 71]"},
		{"range: likewise below zero (XLA's ModIsAdd)",
			"()[s0] -> (s0 mod 5), domain: s0 in [-5, -1]", "()[s0] -> (s0 + 5), domain: s0 in [-5, -1]"},
		{"range: a dividend over two periods keeps its mod (XLA's ModIsNotAdd)",
			"()[s0] -> (s0 mod 5), domain: s0 in [-4, 0]", "()[s0] -> (s0 mod 5), domain: s0 in [-4, 0]"},
		{"range: variables with one value stay variables, as in XLA",
			"(d0, d1) -> (d0 + d1), domain: d0 in [3, 3], d1 in [0, 2]", "(d0, d1) -> (d0 + d1), domain: d0 in [3, 3], d1 in [0, 2]"},
		{"gcd of a floordiv",
			"(d0) -> ((d0 * 4 + 2) floordiv 6), domain: d0 in [0, 100]", "(d0) -> ((d0 * 2 + 1) floordiv 3), domain: d0 in [0, 100]"},
		{"gcd of a mod",
			"(d0) -> ((d0 * 4 + 2) mod 6), domain: d0 in [0, 100]", "(d0) -> (((d0 * 2 + 1) mod 3) * 2), domain: d0 in [0, 100]"},
		{"div-div",
			"(d0) -> ((d0 floordiv 2) floordiv 7), domain: d0 in [0, 100]", "(d0) -> (d0 floordiv 14), domain: d0 in [0, 100]"},
		{"mod-div",
			"(d0) -> ((d0 mod 12) floordiv 4), domain: d0 in [0, 100]", "(d0) -> ((d0 floordiv 4) mod 3), domain: d0 in [0, 100]"},
		{"mod-mod",
			"(d0) -> ((d0 mod 12) mod 4), domain: d0 in [0, 100]", "(d0) -> (d0 mod 4), domain: d0 in [0, 100]"},
		{"extract from a floordiv",
			"(d0, d1) -> ((d0 * 8 + d1 * 3) floordiv 4), domain: d0 in [0, 9], d1 in [0, 9]",
			"(d0, d1) -> (d0 * 2 + (d1 * 3) floordiv 4), domain: d0 in [0, 9], d1 in [0, 9]"},
		{"extract from a ceildiv",
			"(d0, d1) -> ((d0 * 8 + d1) ceildiv 4), domain: d0 in [0, 9], d1 in [0, 9]",
			"(d0, d1) -> (d0 * 2 + d1 ceildiv 4), domain: d0 in [0, 9], d1 in [0, 9]"},
		{"extract from a mod keeps the sign of the constant, as XLA does",
			"(d0, d1) -> ((d0 * 8 + d1 - 11) mod 4), domain: d0 in [0, 9], d1 in [0, 9]",
			"(d0, d1) -> ((d1 - 3) mod 4), domain: d0 in [0, 9], d1 in [0, 9]"},
		{"split a floordiv: (x * 6 + y) floordiv 9 with y < 3 is (x * 2) floordiv 3",
			"(d0, d1) -> ((d0 * 6 + d1) floordiv 9), domain: d0 in [0, 9], d1 in [0, 2]",
			"(d0, d1) -> ((d0 * 2) floordiv 3), domain: d0 in [0, 9], d1 in [0, 2]"},
		{"split a mod",
			"(d0, d1) -> ((d0 * 4 + d1) mod 8), domain: d0 in [0, 9], d1 in [0, 3]",
			"(d0, d1) -> (d1 + (d0 mod 2) * 4), domain: d0 in [0, 9], d1 in [0, 3]"},
		{"split with the constant on the multiple's side",
			"(d0, d1) -> ((d0 * 4 + d1 - 4) floordiv 8), domain: d0 in [1, 9], d1 in [0, 3]",
			"(d0, d1) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 9], d1 in [0, 3]"},
		{"no split when the small part can reach the multiple",
			"(d0, d1) -> ((d0 * 4 + d1) floordiv 8), domain: d0 in [0, 9], d1 in [0, 4]",
			"(d0, d1) -> ((d0 * 4 + d1) floordiv 8), domain: d0 in [0, 9], d1 in [0, 4]"},
		{"inner-div with one inner floordiv",
			"(d0, d1) -> ((d0 floordiv 3 + d1) floordiv 2), domain: d0 in [0, 99], d1 in [0, 9]",
			"(d0, d1) -> ((d0 + d1 * 3) floordiv 6), domain: d0 in [0, 99], d1 in [0, 9]"},
		{"no inner-div with two inner floordivs",
			"(d0, d1) -> ((d0 floordiv 3 + d1 floordiv 3) floordiv 6), domain: d0 in [0, 99], d1 in [0, 99]",
			"(d0, d1) -> ((d0 floordiv 3 + d1 floordiv 3) floordiv 6), domain: d0 in [0, 99], d1 in [0, 99]"},
		{"recombine a div/mod pair",
			"(d0, d1) -> ((d0 + d1) floordiv 7 * 21 + ((d0 + d1) mod 7) * 3), domain: d0 in [0, 99], d1 in [0, 99]",
			"(d0, d1) -> (d0 * 3 + d1 * 3), domain: d0 in [0, 99], d1 in [0, 99]"},
		{"recombine through nested divisions",
			"(d0) -> ((d0 floordiv 6) * 6 + ((d0 floordiv 3) mod 2) * 3 + d0 mod 3), domain: d0 in [0, 99]",
			"(d0) -> (d0), domain: d0 in [0, 99]"},
		// From XLA's indexing_map_test.cc.
		{"XLA DivsAndModsWithReverse",
			"(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9, d0 * 11 + d1 + ((d0 * -11 - d1 + 109) floordiv 11) * 11 - 99), domain: d0 in [0, 7], d1 in [0, 8]",
			"(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 8]"},
		{"XLA SimplifyReshape regression",
			"()[s0] -> ((s0 * 128) mod 715 + ((s0 * 128) floordiv 715) * 715), domain: s0 in [0, 127]",
			"()[s0] -> (s0 * 128), domain: s0 in [0, 127]"},
		{"XLA DivsInSequence",
			"()[s0] -> (s0 - ((s0 floordiv 2) floordiv 7) * 14 + (s0 floordiv 14) * 14), domain: s0 in [0, 1233]",
			"()[s0] -> (s0), domain: s0 in [0, 1233]"},
		{"XLA ExtractFromMod",
			"()[s0, s1, s2, s3] -> ((s0 * 458752 + s1 + s2 * 4 + s3 * 512) mod 20000), domain: s0 in [0, 871], s1 in [0, 3], s2 in [0, 127], s3 in [0, 895]",
			"()[s0, s1, s2, s3] -> (s1 + ((s0 * 114688 + s2 + s3 * 128) mod 5000) * 4), domain: s0 in [0, 871], s1 in [0, 3], s2 in [0, 127], s3 in [0, 895]"},
		{"XLA DivsAndModsIfSmallerThanDivisor",
			"(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 7], d1 in [0, 15]",
			"(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]"},
		// Constraints.
		{"constraint on a variable folds into its bounds",
			"(d0) -> (d0), domain: d0 in [0, 99], d0 + 1 in [5, 10]", "(d0) -> (d0), domain: d0 in [4, 9]"},
		{"ceildiv constraint",
			"(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) ceildiv 4 in [2, 3]",
			"(d0, d1) -> (d0), domain: d0 in [0, 12], d1 in [0, 12], d0 + d1 in [5, 12]"},
		{"negative factor",
			"(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], -d0 - d1 * 2 in [-9, -4]",
			"(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 4], d0 + d1 * 2 in [4, 9]"},
		{"mod constraints on the same expression merge",
			"(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) mod 2 in [1, 1], (d0 + d1) mod 3 in [1, 1]",
			"(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], (d0 + d1) mod 6 in [1, 1]"},
		{"mod constraint moves a variable's bounds",
			"(d0) -> (d0), domain: d0 in [0, 100], d0 mod 8 in [3, 3]", "(d0) -> (d0), domain: d0 in [3, 99], d0 mod 8 in [3, 3]"},
		{"mod constraint with an offset",
			"(d0) -> (d0), domain: d0 in [0, 98], (d0 - 1) mod 8 in [2, 5]", "(d0) -> (d0), domain: d0 in [3, 94], (d0 - 1) mod 8 in [2, 5]"},
		{"a mod constraint that fixes the variable is dropped",
			"(d0) -> (d0), domain: d0 in [5, 9], d0 mod 8 in [0, 0]", "(d0) -> (d0), domain: d0 in [8, 8]"},
		{"linear constraints tighten bounds",
			"(d0, d1)[s0] -> (d0 + d1 + s0), domain: d0 in [0, 99], d1 in [0, 99], s0 in [0, 3], d0 + d1 * 2 + s0 in [0, 10]",
			"(d0, d1)[s0] -> (d0 + d1 + s0), domain: d0 in [0, 10], d1 in [0, 5], s0 in [0, 3], d0 + d1 * 2 + s0 in [0, 10]"},
		{"constraints that cannot hold together",
			"(d0, d1) -> (d0), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [0, 10], d0 - d1 in [50, 60]", "KNOWN EMPTY"},
		{"a factor that skips the range",
			"(d0) -> (d0), domain: d0 in [0, 99], d0 * 4 in [1, 3]", "KNOWN EMPTY"},
		{"results use the tightened bounds",
			"(d0) -> (d0 floordiv 10), domain: d0 in [0, 99], d0 + 5 in [25, 33]", "(d0) -> (2), domain: d0 in [20, 28]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := MustParse(c.in)
			s := Simplify(m)
			checkSameFunction(t, m, s)
			if got := s.String(); got != c.want {
				t.Errorf("Simplify(%s)\n   = %s\nwant %s", c.in, got, c.want)
			}
			if s2 := Simplify(s); !s2.Equal(s) {
				t.Errorf("not a fixed point: %s", s2)
			}
		})
	}
}

// Simplify never modifies its argument.
func TestSimplifyDoesNotModifyItsArgument(t *testing.T) {
	text := "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 99], d1 in [0, 14], d0 mod 4 in [1, 1], d0 + 2 in [0, 50]"
	m := MustParse(text)
	_ = Simplify(m)
	if m.String() != MustParse(text).String() {
		t.Errorf("argument changed to %s", m)
	}
}

// Huge constants never overflow: rules that would are not applied, and the
// result still has the same values.
func TestSimplifyHugeConstants(t *testing.T) {
	for _, text := range []string{
		"(d0) -> ((d0 * 4611686018427387903) floordiv 3074457345618258602), domain: d0 in [0, 3]",
		"(d0) -> (((d0 floordiv 3037000499) + 1) floordiv 3037000499), domain: d0 in [0, 9223372036854775806]",
		"(d0) -> ((d0 * 9223372036854775807) mod 9223372036854775806), domain: d0 in [-1, 1]",
		"(d0) -> (d0), domain: d0 in [-9223372036854775807, 9223372036854775807], d0 * 2 in [0, 9223372036854775807]",
		"(d0) -> (d0), domain: d0 in [-9223372036854775807, 9223372036854775807], d0 floordiv 3 in [3074457345618258600, 3074457345618258602]",
		"(d0, d1) -> (d0 + d1), domain: d0 in [0, 9223372036854775807], d1 in [0, 9223372036854775807], d0 + d1 in [0, 10]",
	} {
		m := MustParse(text)
		s := Simplify(m)
		if boxSize(m) <= 1<<12 {
			checkSameFunction(t, m, s)
		}
		checkRoundTrip(t, s)
	}
}
