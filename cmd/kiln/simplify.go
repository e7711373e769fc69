package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kilnml/kiln/affine"
)

func init() {
	register(&command{
		name:  "simplify",
		usage: "simplify 'MAP' [--syntax=xla|mlir]    parse an indexing map in XLA's text format and print it simplified (- reads stdin)",
		run:   runSimplify,
	})
}

// runSimplify parses one indexing map, such as
//
//	(d0, d1) -> (d0 + d1 / 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]
//
// (floor division written '/' or floordiv), and prints it simplified, on one
// line, in XLA's current syntax — or with floordiv under --syntax=mlir. A
// parse error is reported with its line and column, and the offending line
// of the input with a caret under the fault.
func runSimplify(args []string, stdout, stderr io.Writer) error {
	var opts affine.PrintOptions
	var maps []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") {
			maps = append(maps, a)
			continue
		}
		if name != "syntax" {
			return fmt.Errorf("unknown flag %s (want --syntax=xla or --syntax=mlir)", a)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return fmt.Errorf("%s needs a value, xla or mlir", a)
			}
			i++
			value = args[i]
		}
		switch value {
		case "xla":
			opts.Syntax = affine.SyntaxXLA
		case "mlir":
			opts.Syntax = affine.SyntaxMLIR
		default:
			return fmt.Errorf("--syntax: expected xla or mlir, found %q", value)
		}
	}
	if len(maps) != 1 {
		return fmt.Errorf("expected one argument, the map in quotes (usage: kiln simplify 'MAP' [--syntax=xla|mlir]), found %d", len(maps))
	}
	text := maps[0]
	if text == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	m, err := affine.Parse(text)
	if err != nil {
		var pe *affine.ParseError
		if !errors.As(err, &pe) {
			return err
		}
		fmt.Fprintf(stderr, "kiln simplify: %v\n", pe)
		lines := strings.Split(text, "\n")
		if pe.Line-1 < len(lines) {
			line := lines[pe.Line-1]
			fmt.Fprintf(stderr, "  %s\n  %s^\n", line, caretPadding(line, pe.Column-1))
		}
		return errReported
	}
	_, err = fmt.Fprintln(stdout, affine.Simplify(m).Format(opts))
	return err
}

// caretPadding is the white space that puts a caret under byte n of line,
// keeping the line's tabs so that the caret lines up.
func caretPadding(line string, n int) string {
	var b strings.Builder
	for i := 0; i < n && i < len(line); i++ {
		if line[i] == '\t' {
			b.WriteByte('\t')
		} else if line[i]&0xC0 != 0x80 { // one space per character, not per byte
			b.WriteByte(' ')
		}
	}
	return b.String()
}
