package main

import (
	"context"
	"errors"
	"flag"
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
		summary: "run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill] [--fill-elided] [--reference]\n" +
			"                 run the entry computation and print its outputs",
		run: runCommand,
	})
}

const runSynopsis = "run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill] [--fill-elided] [--reference] [--timeout DURATION] [--memory-limit BYTES]"

const runAbout = `
Compiles the entry computation of an HLO module and runs it once, printing each
output as XLA literal text, one per line (a tuple result prints its elements in
order). --reference runs the reference evaluator instead of the compiled plan.

The entry parameters take, in order, the values of --arg (XLA literal text:
'f32[2,2] {{1, 2}, {3, 4}}') and --npy (a .npy file), skipping those --weights
binds by name: a .safetensors, .npz or .npy file whose every tensor must bind
a parameter under one of the names runtime.ParameterNames lists (the
parameter's name, its op_name metadata, or that path joined with / or .).
A tuple parameter is given as a tuple literal: '(f32[2] {1, 2}, s32[] 3)'.
--fill gives the parameters left over the deterministic values kiln bench uses.
Constants printed as {...} (elided) are refused unless --fill-elided gives them
XLA's deterministic stand-in values.

Exit status: 0 on success, 1 on an error, 124 when --timeout stops the
command, 130 on SIGINT, 143 on SIGTERM.`

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
// of named weights that bind parameters by name (--weights), whether
// constants printed as {...} get deterministic values (--fill-elided), and
// the limits.
type moduleArgs struct {
	file       string
	args       []runArg
	weights    string
	fillElided bool
	limitFlags
}

// register defines the shared flags on fs.
func (m *moduleArgs) register(fs *flag.FlagSet) {
	fs.Var(argFlag{list: &m.args}, "arg", "the next parameter's value, as XLA literal text (repeatable, in parameter order with --npy)")
	fs.Var(argFlag{list: &m.args, npy: true}, "npy", "the next parameter's value, from a .npy file (repeatable)")
	fs.Var(onceFlag{v: &m.weights, name: "weights"}, "weights", "a .safetensors, .npz or .npy file whose tensors bind parameters by name")
	fs.BoolVar(&m.fillElided, "fill-elided", false, "give constants printed as {...} deterministic stand-in values, as XLA's fill_shortform_constants_with_random_values does")
	m.limitFlags.register(fs)
}

// parseModuleFlags parses args with fs and takes the one positional
// argument, the module file.
func parseModuleFlags(fs *flag.FlagSet, args []string, m *moduleArgs, stdout io.Writer, synopsis string) error {
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		return errors.New("no module file: usage: kiln " + synopsis)
	case 1:
		m.file = pos[0]
		return nil
	}
	return fmt.Errorf("more than one module file: %q and %q", pos[0], pos[1])
}

// runOptions are the parsed arguments of kiln run.
type runOptions struct {
	moduleArgs
	reference bool
	fill      bool
}

func runCommand(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	fs := newFlagSet("run", runSynopsis, runAbout)
	o.register(fs)
	fs.BoolVar(&o.reference, "reference", false, "run the reference evaluator (ir/eval) instead of the compiled plan")
	fs.BoolVar(&o.fill, "fill", false, "give the parameters no --arg, --npy or --weights sets deterministic values")
	if err := parseModuleFlags(fs, args, &o.moduleArgs, stdout, runSynopsis); err != nil {
		return err
	}
	// The module is read under the limits: filling its elided constants
	// (--fill-elided) allocates them, which the memory limit bounds.
	return o.runLimited(func(ctx context.Context) error {
		m, err := readModule(o.moduleArgs)
		if err != nil {
			return err
		}
		var w *weightFile
		if o.weights != "" {
			if w, err = loadWeightFile(m, o.weights); err != nil {
				return err
			}
		}
		var fill func(int) (*ir.Literal, error)
		if o.fill {
			fill = deterministicFill(m, o.file)
		}
		lits, err := entryArguments(m, o.moduleArgs, w, fill)
		if err != nil {
			return err
		}
		var outs []*ir.Literal
		if o.reference {
			if in, t := m.InstructionWithTypeOutside(ir.AllElementTypes); in != nil {
				return fmt.Errorf("%s: %s (%v) has a value of element type %v, which the reference evaluator does not support", o.file, in.Name, in.Opcode, t)
			}
			outs, err = eval.RunWithOptions(m, eval.Options{Context: ctx}, lits...)
		} else {
			outs, err = runCompiledOnce(ctx, m, lits, int64(o.memoryLimit))
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
	})
}

// readModule reads, parses and verifies the module file of o, filling its
// elided constants when --fill-elided asks for it.
func readModule(o moduleArgs) (*ir.Module, error) {
	text, err := os.ReadFile(o.file)
	if err != nil {
		return nil, err
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.file, err)
	}
	if err := fillElided(m, o); err != nil {
		return nil, err
	}
	if err := m.Verify(); err != nil {
		return nil, fmt.Errorf("%s: %w", o.file, err)
	}
	return m, nil
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
func entryArguments(m *ir.Module, o moduleArgs, w *weightFile, fill func(i int) (*ir.Literal, error)) ([]*ir.Literal, error) {
	params := m.Entry.Parameters
	free := freeParameters(params, w)
	if len(o.args) > len(free) || fill == nil && len(o.args) != len(free) {
		how := "give each with --arg LITERAL or --npy FILE.npy in parameter order, bind them by name with --weights FILE, or pass --fill for deterministic values"
		if w != nil {
			return nil, fmt.Errorf("%s: the entry computation %s takes %d arguments besides the %d bound by name from %s (%s), %d given: %s",
				o.file, m.Entry.Name, len(free), len(w.bound), w.path, paramList(free), len(o.args), how)
		}
		return nil, fmt.Errorf("%s: the entry computation %s takes %d arguments (%s), %d given: %s",
			o.file, m.Entry.Name, len(params), paramList(params), len(o.args), how)
	}
	lits := make([]*ir.Literal, len(params))
	next := 0
	for i, p := range params {
		if l, ok := w.literal(i); ok {
			lits[i] = l
			continue
		}
		if next == len(o.args) {
			l, err := fill(i)
			if err != nil {
				return nil, err
			}
			lits[i] = l
			continue
		}
		a := o.args[next]
		if a.npyPath != "" && !p.Shape.IsArray() {
			return nil, fmt.Errorf("argument %d (%s): parameter %d (%s) is a %v; give a tuple with --arg as a tuple literal",
				next, a, i, p.Name, p.Shape.StringWithoutLayout())
		}
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
