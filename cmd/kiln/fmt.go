package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(&command{
		name:  "fmt",
		usage: "fmt [--short] FILE.hlo    parse an HLO module and print it back (- reads stdin; --short prints XLA's short form)",
		run:   runFmt,
	})
}

// runFmt parses an HLO text file and prints the module back, in XLA's
// default form or, with --short, its ShortParsable one (no '%', no operand
// shapes, no computation signatures, no metadata). A parse error is written
// to stderr as FILE:line:col: message, as compilers do, so that editors can
// jump to it.
func runFmt(args []string, stdout, stderr io.Writer) error {
	var opts ir.PrintOptions
	var files []string
	for _, a := range args {
		switch {
		case a == "--short" || a == "-short":
			opts.Short = true
		case strings.HasPrefix(a, "-") && a != "-":
			return fmt.Errorf("unknown flag %s (usage: kiln fmt [--short] FILE.hlo)", a)
		default:
			files = append(files, a)
		}
	}
	if len(files) != 1 {
		return fmt.Errorf("expected one argument, the HLO file (usage: kiln fmt [--short] FILE.hlo), found %d", len(files))
	}
	path := files[0]
	var text []byte
	var err error
	if path == "-" {
		text, err = io.ReadAll(os.Stdin)
		path = "<stdin>"
	} else {
		text, err = os.ReadFile(path)
	}
	if err != nil {
		return err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		var pe *ir.ParseError
		if errors.As(err, &pe) {
			fmt.Fprintf(stderr, "%s:%d:%d: %s\n", path, pe.Line, pe.Column, pe.Msg)
			return errReported
		}
		return fmt.Errorf("%s: %v", path, err)
	}
	_, err = io.WriteString(stdout, m.Print(opts))
	return err
}
