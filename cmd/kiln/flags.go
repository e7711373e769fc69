package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// newFlagSet returns the flag set of a subcommand: synopsis is its usage
// line after "kiln ", about what it does. -h and --help print both and the
// flags to the command's standard output.
func newFlagSet(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: kiln %s\n\n%s\n", synopsis, strings.TrimSpace(about))
		if hasFlags(fs) {
			fmt.Fprintf(w, "\nflags (-name or --name):\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseFlags parses args with fs, allowing flags and positional arguments in
// any order ("--" ends the flags), and returns the positional ones. -h or
// --help prints the usage to stdout and returns flag.ErrHelp; any other
// error says which flag and what was expected.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var positional []string
	fs.SetOutput(io.Discard)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, flag.ErrHelp
		}
		if err != nil {
			return nil, flagError(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// flag stops at the first non-flag; "--" makes everything after it
		// positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// flagError rewrites the flag package's messages to name the flag as
// written on the command line and what the command takes.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Errorf("unknown flag --%s (kiln %s -h lists the flags)", name, fs.Name())
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Errorf("--%s needs a value", name)
	}
	if strings.HasPrefix(msg, "invalid boolean value") {
		// invalid boolean value "yes" for -json: parse error
		if i := strings.Index(msg, " for -"); i >= 0 {
			name, _, _ := strings.Cut(msg[i+len(" for -"):], ":")
			return fmt.Errorf("--%s takes no value", name)
		}
	}
	if i := strings.Index(msg, " for flag -"); i >= 0 {
		// invalid value "x" for flag -runs: <the Value's error>
		rest := msg[i+len(" for flag -"):]
		name, why, _ := strings.Cut(rest, ": ")
		return fmt.Errorf("--%s %s", name, why)
	}
	return err
}

// countFlag is an integer flag with a least value.
type countFlag struct {
	n   *int
	min int
}

func (c countFlag) String() string {
	if c.n == nil {
		return "0"
	}
	return strconv.Itoa(*c.n)
}

func (c countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < c.min {
		return fmt.Errorf("wants an integer ≥ %d, found %q", c.min, s)
	}
	*c.n = n
	return nil
}

// byteSize is a size in bytes written as a number with an optional unit:
// 1000000, 1e9, 512MiB, 2G, 1.5GiB (K, M, G, T are powers of 1000; KiB, MiB,
// GiB, TiB powers of 1024).
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return "0"
	}
	return formatBytes(int64(*b))
}

func (b *byteSize) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

var byteUnits = []struct {
	suffix string
	scale  float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
}

func parseBytes(s string) (int64, error) {
	num, scale := strings.TrimSpace(s), 1.0
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, scale = strings.TrimSpace(rest), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || v*scale > math.MaxInt64/2 {
		return 0, fmt.Errorf("wants a size in bytes such as 268435456, 256MiB or 2G, found %q", s)
	}
	return int64(v * scale), nil
}

// formatBytes prints n in the largest binary unit that keeps it ≥ 1.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// argFlag appends each --arg or --npy value to one list, so that the two
// keep their relative order (the parameter order).
type argFlag struct {
	list *[]runArg
	npy  bool
}

func (a argFlag) String() string { return "" }

func (a argFlag) Set(s string) error {
	if a.npy {
		*a.list = append(*a.list, runArg{npyPath: s})
	} else {
		*a.list = append(*a.list, runArg{literal: s})
	}
	return nil
}

// onceFlag is a string flag that may be given once.
type onceFlag struct {
	v    *string
	name string
}

func (o onceFlag) String() string {
	if o.v == nil {
		return ""
	}
	return *o.v
}

func (o onceFlag) Set(s string) error {
	if *o.v != "" {
		return fmt.Errorf("given twice: %q and %q", *o.v, s)
	}
	*o.v = s
	return nil
}
