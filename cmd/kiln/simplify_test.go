package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSimplifyPrintsTheSimplifiedMap(t *testing.T) {
	cases := []struct{ in, want string }{
		{"(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
			"(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]"},
		{"(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) / 8, (d0 * 16 + d1 * 4 + d2) mod 8),\ndomain:\nd0 in [0, 9],\nd1 in [0, 9],\nd2 in [0, 9]",
			"(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) / 8, (d1 * 4 + d2) mod 8), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]"},
		{"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]",
			"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3]"},
		{"(d0) -> (d0), domain: d0 in [0, 9], d0 * 2 in [5, 3]", "KNOWN EMPTY"},
		{"(d0) -> (d0), domain: d0 in [3, 3]", "(d0) -> (3), domain: d0 in [3, 3]"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if code := runMain([]string{"simplify", c.in}, &stdout, &stderr); code != 0 {
			t.Fatalf("simplify %q: exit status %d, stderr: %s", c.in, code, stderr.String())
		}
		if got := stdout.String(); got != c.want+"\n" {
			t.Errorf("simplify %q printed\n  %q\nwant\n  %q", c.in, got, c.want+"\n")
		}
		if stderr.Len() != 0 {
			t.Errorf("unexpected stderr: %s", stderr.String())
		}
	}
}

func TestSimplifyReportsPositionedErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"(d0) -> (d1), domain: d0 in [0, 9]",
			"kiln simplify: 1:10: unknown variable d1: expected one of d0\n  (d0) -> (d1), domain: d0 in [0, 9]\n           ^\n"},
		{"(d0 -> (d0)",
			"kiln simplify: 1:5: expected ',' or ')' after a variable name, found '->'\n  (d0 -> (d0)\n      ^\n"},
		{"(d0) -> (d0),\ndomain:\n\td0 in [9 0]",
			"kiln simplify: 3:11: expected ',' between the bounds of d0, found '0'\n  \td0 in [9 0]\n  \t         ^\n"},
		{"(d0) -> (d0 * 99999999999999999999), domain: d0 in [0, 9]",
			"kiln simplify: 1:15: integer 99999999999999999999 does not fit in int64\n  (d0) -> (d0 * 99999999999999999999), domain: d0 in [0, 9]\n                ^\n"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if code := runMain([]string{"simplify", c.in}, &stdout, &stderr); code != 1 {
			t.Errorf("simplify %q: exit status %d, want 1", c.in, code)
		}
		if got := stderr.String(); got != c.want {
			t.Errorf("simplify %q: stderr\n%s\nwant\n%s", c.in, got, c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("unexpected stdout: %s", stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"simplify"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "expected one argument") {
		t.Errorf("simplify without a map: status %d, stderr %q", code, stderr.String())
	}
}

func TestSimplifySyntax(t *testing.T) {
	in := "(d0) -> ((d0 floordiv 4) mod 2 + d0 / 8), domain: d0 in [0, 63]"
	for syntax, want := range map[string]string{
		"":              "(d0) -> ((d0 / 4) mod 2 + d0 / 8), domain: d0 in [0, 63]\n",
		"--syntax=xla":  "(d0) -> ((d0 / 4) mod 2 + d0 / 8), domain: d0 in [0, 63]\n",
		"--syntax=mlir": "(d0) -> ((d0 floordiv 4) mod 2 + d0 floordiv 8), domain: d0 in [0, 63]\n",
	} {
		args := []string{"simplify", in}
		if syntax != "" {
			args = append(args, syntax)
		}
		var stdout, stderr bytes.Buffer
		if code := runMain(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit status %d, stderr: %s", args, code, stderr.String())
		}
		if got := stdout.String(); got != want {
			t.Errorf("%v printed %q, want %q", args, got, want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"simplify", in, "--syntax=lisp"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "expected xla or mlir") {
		t.Errorf("--syntax=lisp: status %d, stderr %q", code, stderr.String())
	}
}
