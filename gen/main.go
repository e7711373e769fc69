// Command gen writes Kiln's generated kernel files: the amd64 assembly (from
// avo templates), the arm64 NEON assembly (from the asm package), their Go
// declarations, the dispatch table of every instruction-set level, and the
// pure-Go twins of the vector-program kernels.
//
//	go run . -out ..        # from gen/: regenerate the checked-in files
//	go run . -out /tmp/x    # write them elsewhere (the CI check compares)
//
// See doc.go for how the generators are organised and how files are named.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// generatedBy is the command named in every generated file's header; it is
// fixed so the output does not depend on the flags or the directory used.
const generatedBy = "go run ./gen"

func main() {
	// avo's build package registers its own flags on flag.CommandLine.
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("out", "..", "root of the module to write into")
	fs.Parse(os.Args[1:])
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for _, file := range files {
		path := filepath.Join(*out, file.name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(path, file.data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}

// family is one kernel family's generator: it adds its kernels to the two
// architectures' files and their entries to the levels' tables.
type family struct {
	name     string
	generate func(o *output) error
}

type outFile struct {
	name string
	data []byte
}

// families lists every kernel family, in the order they are generated (and
// appear in the assembly files).
var families = []family{
	{name: "gemm", generate: generateGEMM},
	{name: "conv", generate: generateConv},
	{name: "dwnarrow", generate: generateConvNarrow},
	{name: "eltwise", generate: generateEltwise},
	{name: "reduce", generate: generateReduce},
	{name: "bf16pairs", generate: generateRowsPairs},
	{name: "transpose", generate: generateTranspose},
	{name: "packpairs", generate: generatePackPairs},
	{name: "sort", generate: generateSort},
	{name: "lowp", generate: generateLowp},
	{name: "s8w", generate: generateS8W},
}

// generate runs every family and renders the files.
func generate() ([]outFile, error) {
	o := newOutput()
	for _, f := range families {
		if err := f.generate(o); err != nil {
			return nil, fmt.Errorf("%s: %v", f.name, err)
		}
	}
	return o.files()
}
