package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

func init() {
	register(&command{
		name:  "run",
		usage: "run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--reference]   run the entry computation and print its outputs",
		run:   runCommand,
	})
}

// runArg is one argument of the entry computation, in the order given.
type runArg struct {
	literal string // --arg
	npyPath string // --npy
}

func (a runArg) String() string {
	if a.npyPath != "" {
		return "--npy " + a.npyPath
	}
	s := a.literal
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return "--arg " + s
}

// runOptions are the parsed arguments of `kiln run`.
type runOptions struct {
	file      string
	args      []runArg
	reference bool
}

func parseRunArgs(args []string) (runOptions, error) {
	var o runOptions
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			if o.file != "" {
				return o, fmt.Errorf("more than one module file: %q and %q", o.file, a)
			}
			o.file = a
			continue
		}
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
		switch name {
		case "arg":
			v, err := needValue()
			if err != nil {
				return o, err
			}
			o.args = append(o.args, runArg{literal: v})
		case "npy":
			v, err := needValue()
			if err != nil {
				return o, err
			}
			o.args = append(o.args, runArg{npyPath: v})
		case "reference":
			if hasValue {
				return o, fmt.Errorf("--reference takes no value")
			}
			o.reference = true
		case "weights":
			return o, fmt.Errorf("--weights is not supported yet: pass each parameter with --npy or --arg")
		default:
			return o, fmt.Errorf("unknown flag %s (want --arg, --npy or --reference)", a)
		}
	}
	if o.file == "" {
		return o, errors.New("no module file: usage: kiln run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--reference]")
	}
	return o, nil
}

func runCommand(args []string, stdout, stderr io.Writer) error {
	o, err := parseRunArgs(args)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(o.file)
	if err != nil {
		return err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	params := m.Entry.Parameters
	if len(o.args) != len(params) {
		return fmt.Errorf("%s: the entry computation %s takes %d arguments (%s), %d given",
			o.file, m.Entry.Name, len(params), paramList(params), len(o.args))
	}
	lits := make([]*ir.Literal, len(o.args))
	for i, a := range o.args {
		l, err := readRunArg(a)
		if err != nil {
			return fmt.Errorf("argument %d (%s): %w", i, a, err)
		}
		p := params[i]
		if !l.Shape().Compatible(p.Shape) {
			return fmt.Errorf("argument %d (%s) has shape %v, parameter %d (%s) is %v",
				i, a, l.Shape().StringWithoutLayout(), i, p.Name, p.Shape.StringWithoutLayout())
		}
		lits[i] = l
	}
	if !o.reference {
		// Until the compiler lands, the reference evaluator runs every module.
		fmt.Fprintln(stderr, "kiln run: the compiled path is not available yet; ran the reference evaluator (ir/eval)")
	}
	outs, err := eval.Run(m, lits...)
	if err != nil {
		return err
	}
	for _, l := range outs {
		if _, err := fmt.Fprintln(stdout, l.String()); err != nil {
			return err
		}
	}
	return nil
}

func readRunArg(a runArg) (*ir.Literal, error) {
	if a.npyPath != "" {
		return npy.ReadFile(a.npyPath)
	}
	return ir.ParseLiteral(a.literal)
}

func paramList(params []*ir.Instruction) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.Name + ": " + p.Shape.StringWithoutLayout()
	}
	return strings.Join(parts, ", ")
}
