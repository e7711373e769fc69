package main

import (
	"flag"
	"strings"
)

// helpFlagSets describe the arguments of the commands that parse them
// without a flag set of their own: kiln indexing and kiln simplify answer -h
// and --help with these.
var helpFlagSets = map[string]func() *flag.FlagSet{
	"indexing": func() *flag.FlagSet {
		fs := newFlagSet("indexing", strings.TrimPrefix(indexingUsage, "kiln "), `
Prints the output-to-input indexing maps of each operand of an instruction (the
entry's root by default; a fusion's maps are composed through its body), or the
input-to-output maps with --inverse, in XLA's text format. FILE - reads stdin.`)
		fs.String("instr", "", "the instruction (default: the entry computation's root)")
		fs.Int("output", 0, "the output (of a tuple-shaped instruction) whose maps are printed")
		fs.Int("operand", 0, "print only this operand's maps (default: every operand)")
		fs.Bool("inverse", false, "print input-to-output maps, from --operand (default 0)")
		fs.Bool("physical", false, "number each tensor's dimensions in the order its layout stores them")
		fs.String("syntax", "xla", "print floor division as XLA does today ('/', xla) or as floordiv (mlir)")
		return fs
	},
	"simplify": func() *flag.FlagSet {
		fs := newFlagSet("simplify", "simplify 'MAP' [--syntax=xla|mlir]", `
Parses an indexing map in XLA's text format, such as
  (d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]
and prints it simplified, on one line. MAP - reads stdin.`)
		fs.String("syntax", "xla", "print floor division as XLA does today ('/', xla) or as floordiv (mlir)")
		return fs
	},
}
