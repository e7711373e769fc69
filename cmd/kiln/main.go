// Command kiln compiles, runs, inspects and benchmarks XLA HLO modules.
//
// Usage:
//
//	kiln run FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill] [--fill-elided] [--reference] [--timeout DURATION] [--memory-limit BYTES]
//	kiln bench FILE.hlo [--arg LITERAL]... [--npy FILE]... [--weights FILE] [--fill-elided] [--inputs N] [--runs N] [--threads N] [--json] [--profile] [--timeout DURATION] [--memory-limit BYTES]
//	kiln indexing FILE.hlo [--instr NAME] [--output N] [--operand N] [--inverse] [--physical] [--syntax=xla|mlir]
//	kiln simplify 'MAP' [--syntax=xla|mlir]
//	kiln fmt [--short] FILE.hlo
//	kiln cpu
//	kiln examples [--dir DIR] [--runs N]
//
// Every command answers -h and --help with its usage. Errors go to stderr
// with a non-zero exit status.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand of the kiln tool.
type command struct {
	name    string
	summary string // one line (or two) for the tool's usage
	run     func(args []string, stdout, stderr io.Writer) error
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
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) == 2 && args[0] == "help" {
			if c, ok := commands[args[1]]; ok {
				return runMain([]string{c.name, "--help"}, stdout, stderr)
			}
		}
		if len(args) == 0 {
			usage(stderr)
			return 2
		}
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kiln: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	if help, ok := helpFlagSets[c.name]; ok && wantsHelp(args[1:]) {
		fs := help()
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if !errors.Is(err, errReported) {
			fmt.Fprintf(stderr, "kiln %s: %v\n", c.name, err)
		}
		return exitStatus(err)
	}
	return 0
}

// wantsHelp reports whether args ask for help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kiln <command> [arguments]   (kiln <command> -h describes one)")
	for _, name := range []string{"run", "bench", "fmt", "indexing", "simplify", "cpu", "examples"} {
		if c, ok := commands[name]; ok {
			fmt.Fprintf(w, "  %s\n", c.summary)
		}
	}
}
