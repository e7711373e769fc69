package main

import (
	"fmt"
	"io"

	"github.com/kilnml/kiln"
)

func init() {
	register(&command{
		name:    "cpu",
		summary: "cpu             print the CPU features found and the kernel set chosen",
		run:     runCPU,
	})
}

// runCPU prints what the kernels' start-up dispatch found and chose.
func runCPU(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cpu", "cpu", `
Prints the CPU features start-up detection found, the kernel set dispatch chose
(KILN_ISA=generic|avx2|avx512 forces a lower level), the cache sizes, the GEMM
blocking and the thread count.`)
	args, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(args) != 0 {
		return fmt.Errorf("takes no arguments, found %q", args)
	}
	fmt.Fprint(stdout, kiln.CPUReport())
	return nil
}
