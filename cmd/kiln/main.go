// Command kiln compiles, runs, inspects and benchmarks XLA HLO modules.
//
// Usage:
//
//	kiln run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--reference] [--fill-elided]
//	kiln indexing FILE.hlo [--instr NAME] [--output N] [--operand N] [--inverse]
//	kiln simplify 'MAP'
//	kiln fmt [--short] FILE.hlo
//	kiln bench FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill-elided] [--inputs N] [--runs N] [--threads N] [--json]
//	kiln cpu
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// command is one subcommand of the kiln tool.
type command struct {
	name  string
	usage string
	run   func(args []string, stdout, stderr io.Writer) error
}

// commands is filled by the init functions of the files that implement each subcommand.
var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// errReported is returned (possibly wrapped) by a command that has already
// written its error to stderr in its own format (such as FILE:line:col), so
// that the tool exits with status 1 without printing it again.
var errReported = errors.New("error already reported")

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain runs the tool with the given arguments and returns the exit status.
func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kiln: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintf(stderr, "kiln %s: %v\n", c.name, err)
		}
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kiln <command> [arguments]")
	for _, name := range []string{"run", "bench", "fmt", "indexing", "simplify", "cpu", "examples"} {
		if c, ok := commands[name]; ok {
			fmt.Fprintf(w, "  %s\n", c.usage)
		}
	}
}
