package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/affine/indexing"
	"github.com/kilnml/kiln/ir"
)

func init() {
	register(&command{
		name:  "indexing",
		usage: "indexing FILE.hlo [--instr NAME] [--output N] [--operand N] [--inverse] [--physical] [--syntax=xla|mlir]   print the indexing maps of an instruction (default: the entry's root)",
		run:   runIndexing,
	})
}

// indexingOptions are the parsed arguments of `kiln indexing`.
type indexingOptions struct {
	file    string
	instr   string
	output  int
	operand int // -1: every operand
	inverse bool
	// physical numbers dimensions in layout order (XLA's
	// use_physical_layout).
	physical bool
	syntax   affine.PrintOptions
	// outputGiven says whether --output was written: with --inverse, it
	// restricts the outputs printed.
	outputGiven bool
}

const indexingUsage = "kiln indexing FILE.hlo [--instr NAME] [--output N] [--operand N] [--inverse] [--physical] [--syntax=xla|mlir]"

func parseIndexingArgs(args []string) (indexingOptions, error) {
	o := indexingOptions{operand: -1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if o.file != "" {
				return o, fmt.Errorf("more than one module file: %q and %q", o.file, a)
			}
			o.file = a
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		needValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		number := func() (int, error) {
			v, err := needValue()
			if err != nil {
				return 0, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%s expects a non-negative integer, found %q", a, v)
			}
			return n, nil
		}
		var err error
		switch name {
		case "instr":
			o.instr, err = needValue()
		case "output":
			o.output, err = number()
			o.outputGiven = true
		case "operand":
			o.operand, err = number()
		case "inverse":
			if hasValue {
				return o, fmt.Errorf("--inverse takes no value, found %q", a)
			}
			o.inverse = true
		case "physical":
			if hasValue {
				return o, fmt.Errorf("--physical takes no value, found %q", a)
			}
			o.physical = true
		case "syntax":
			var v string
			if v, err = needValue(); err == nil {
				switch v {
				case "xla":
					o.syntax.Syntax = affine.SyntaxXLA
				case "mlir":
					o.syntax.Syntax = affine.SyntaxMLIR
				default:
					err = fmt.Errorf("--syntax: expected xla or mlir, found %q", v)
				}
			}
		default:
			return o, fmt.Errorf("unknown flag %s (want --instr, --output, --operand, --inverse, --physical or --syntax)", a)
		}
		if err != nil {
			return o, err
		}
	}
	if o.file == "" {
		return o, errors.New("no module file: usage: " + indexingUsage)
	}
	return o, nil
}

// runIndexing prints the indexing maps of one instruction as XLA's
// HloInstructionIndexing::ToString lays them out: output to input by
// default (every operand of output --output, or operand --operand alone),
// input to output with --inverse (the maps from operand --operand, 0 by
// default, to every output, or to output --output alone). With --physical
// the dimensions of every tensor are numbered in the order its layout stores
// them. Floor division prints as '/', or as floordiv with --syntax=mlir.
func runIndexing(args []string, stdout, stderr io.Writer) error {
	o, err := parseIndexingArgs(args)
	if err != nil {
		return err
	}
	path := o.file
	var text []byte
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
	if err := m.Verify(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	in, err := findInstruction(m, o.instr)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var out string
	if o.inverse {
		operand := max(o.operand, 0)
		if operand >= len(in.Operands) {
			return fmt.Errorf("%s: --operand %d: %s has %d operands", in.Name, operand, in.Opcode, len(in.Operands))
		}
		inputToOutput := indexing.InputToOutput
		if o.physical {
			inputToOutput = indexing.PhysicalInputToOutput
		}
		x, err := inputToOutput(in, operand)
		if err != nil {
			return err
		}
		out = x.Format(o.syntax)
		if o.outputGiven {
			if o.output >= x.NumOperands() {
				return fmt.Errorf("%s: --output %d: %s has %d outputs", in.Name, o.output, in.Opcode, x.NumOperands())
			}
			out = x.OperandFormat(o.output, o.output, o.syntax)
		}
	} else {
		if n := numOutputs(in); o.output >= n {
			return fmt.Errorf("%s: --output %d: %s has %d outputs", in.Name, o.output, in.Opcode, n)
		}
		outputToInput := indexing.OutputToInput
		if o.physical {
			outputToInput = indexing.PhysicalOutputToInput
		}
		x, err := outputToInput(in, o.output)
		if err != nil {
			return err
		}
		out = x.Format(o.syntax)
		if o.operand >= 0 {
			if o.operand >= x.NumOperands() {
				return fmt.Errorf("%s: --operand %d: %s has %d operands", in.Name, o.operand, in.Opcode, x.NumOperands())
			}
			out = x.OperandFormat(o.operand, o.operand, o.syntax)
		}
	}
	_, err = io.WriteString(stdout, out)
	return err
}

// findInstruction returns the instruction named name — in the entry
// computation first, then in the others — or the entry's root.
func findInstruction(m *ir.Module, name string) (*ir.Instruction, error) {
	if name == "" {
		return m.Entry.Root, nil
	}
	if in := m.Entry.Instruction(name); in != nil {
		return in, nil
	}
	for _, c := range m.Computations {
		if in := c.Instruction(name); in != nil {
			return in, nil
		}
	}
	return nil, fmt.Errorf("no instruction named %q", name)
}

func numOutputs(in *ir.Instruction) int {
	if in.Shape.IsTuple() {
		return len(in.Shape.Tuple)
	}
	return 1
}
