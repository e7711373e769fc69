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
		name: "run",
		usage: "run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--reference] [--fill-elided]\n" +
			"                 run the entry computation and print its outputs",
		run: runCommand,
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

// moduleArgs are the arguments kiln run and kiln bench share: the module
// file, the values of its entry parameters in order (--arg, --npy), a file
// of named weights that bind parameters by name (--weights), and whether
// constants printed as {...} get deterministic values (--fill-elided).
type moduleArgs struct {
	file       string
	args       []runArg
	weights    string
	fillElided bool
}

// extraFlag handles a flag particular to one command: name is the flag
// without dashes, hasValue says whether it was written --name=value, and
// value returns the value (from `=` or the next argument). It reports
// whether the command knows the flag.
type extraFlag func(name string, hasValue bool, value func() (string, error)) (bool, error)

// parseModuleArgs parses args into m, passing the flags it does not know to
// extra; want lists every flag the command takes, for the error about an
// unknown one.
func parseModuleArgs(args []string, m *moduleArgs, want string, extra extraFlag) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			if m.file != "" {
				return fmt.Errorf("more than one module file: %q and %q", m.file, a)
			}
			m.file = a
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
		case "fill-elided":
			if hasValue {
				return fmt.Errorf("--fill-elided takes no value")
			}
			m.fillElided = true
		case "arg", "npy", "weights":
			v, err := needValue()
			if err != nil {
				return err
			}
			switch name {
			case "arg":
				m.args = append(m.args, runArg{literal: v})
			case "npy":
				m.args = append(m.args, runArg{npyPath: v})
			case "weights":
				if m.weights != "" {
					return fmt.Errorf("--weights given twice: %q and %q", m.weights, v)
				}
				m.weights = v
			}
		default:
			known, err := extra(name, hasValue, needValue)
			if err != nil {
				return err
			}
			if !known {
				return fmt.Errorf("unknown flag %s (want %s)", a, want)
			}
		}
	}
	return nil
}

// runOptions are the parsed arguments of `kiln run`.
type runOptions struct {
	moduleArgs
	reference bool
}

func parseRunArgs(args []string) (runOptions, error) {
	var o runOptions
	err := parseModuleArgs(args, &o.moduleArgs, "--arg, --npy, --weights, --reference or --fill-elided",
		func(name string, hasValue bool, _ func() (string, error)) (bool, error) {
			if name != "reference" {
				return false, nil
			}
			if hasValue {
				return true, fmt.Errorf("--reference takes no value")
			}
			o.reference = true
			return true, nil
		})
	if err != nil {
		return o, err
	}
	if o.file == "" {
		return o, errors.New("no module file: usage: kiln run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--reference] [--fill-elided]")
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
	if err := fillElided(m, o.moduleArgs); err != nil {
		return err
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	var w *weightFile
	if o.weights != "" {
		if w, err = loadWeightFile(m, o.weights); err != nil {
			return err
		}
	}
	lits, err := entryArguments(m, o.moduleArgs, w, nil)
	if err != nil {
		return err
	}
	var outs []*ir.Literal
	if o.reference {
		if in, t := m.InstructionWithTypeOutside(ir.AllElementTypes); in != nil {
			return fmt.Errorf("%s: %s (%v) has a value of element type %v, which the reference evaluator does not support", o.file, in.Name, in.Opcode, t)
		}
		outs, err = eval.Run(m, lits...)
	} else {
		outs, err = runCompiledOnce(m, lits)
	}
	if err != nil {
		return err
	}
	// A bounded dynamic array prints as the static array of its actual
	// sizes, the form XLA's tests compare such results with.
	for _, l := range outs {
		if _, err := fmt.Fprintln(stdout, l.ToStatic().String()); err != nil {
			return err
		}
	}
	return nil
}

// fillElided gives the constants of m printed as {...} XLA's deterministic
// fill values when --fill-elided asks for them, and otherwise refuses a
// module that has any, naming the first.
func fillElided(m *ir.Module, o moduleArgs) error {
	elided := m.ElidedConstants()
	if len(elided) == 0 {
		return nil
	}
	if !o.fillElided {
		c := elided[0]
		return fmt.Errorf("%s: constant %q of shape %s has its value elided ({...}) (the module has %d elided constants); export the module with its constants, or pass --fill-elided for deterministic stand-in values",
			o.file, c.Name, c.Shape.StringWithoutLayout(), len(elided))
	}
	if err := m.FillElidedConstants(ir.NewElidedConstantFiller()); err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	return nil
}

// entryArguments returns one literal per entry parameter of m: the tensor
// of w bound to it by name (w may be nil), or else the next of the --arg and
// --npy arguments. Those must cover exactly the parameters left, unless fill
// is given: it then supplies the value of each parameter left over.
func entryArguments(m *ir.Module, o moduleArgs, w *weightFile, fill func(i int) *ir.Literal) ([]*ir.Literal, error) {
	params := m.Entry.Parameters
	free := freeParameters(params, w)
	if len(o.args) > len(free) || fill == nil && len(o.args) != len(free) {
		if w != nil {
			return nil, fmt.Errorf("%s: the entry computation %s takes %d arguments besides the %d bound by name from %s (%s), %d given",
				o.file, m.Entry.Name, len(free), len(w.bound), w.path, paramList(free), len(o.args))
		}
		return nil, fmt.Errorf("%s: the entry computation %s takes %d arguments (%s), %d given",
			o.file, m.Entry.Name, len(params), paramList(params), len(o.args))
	}
	lits := make([]*ir.Literal, len(params))
	next := 0
	for i, p := range params {
		if l, ok := w.literal(i); ok {
			lits[i] = l
			continue
		}
		if next == len(o.args) {
			lits[i] = fill(i)
			continue
		}
		a := o.args[next]
		l, err := readRunArg(a)
		if err != nil {
			return nil, fmt.Errorf("argument %d (%s): %w", next, a, err)
		}
		if !l.Shape().Compatible(p.Shape) {
			return nil, fmt.Errorf("argument %d (%s) has shape %v, parameter %d (%s) is %v",
				next, a, l.Shape().StringWithoutLayout(), i, p.Name, p.Shape.StringWithoutLayout())
		}
		lits[i] = l
		next++
	}
	return lits, nil
}

// freeParameters are the entry parameters w does not bind, in order.
func freeParameters(params []*ir.Instruction, w *weightFile) []*ir.Instruction {
	if w == nil {
		return params
	}
	var free []*ir.Instruction
	for i, p := range params {
		if _, ok := w.bound[i]; !ok {
			free = append(free, p)
		}
	}
	return free
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
