package main

import (
	"fmt"
	"io"

	"github.com/kilnml/kiln"
)

func init() {
	register(&command{
		name:  "cpu",
		usage: "cpu             print the CPU features found and the kernel set chosen",
		run:   runCPU,
	})
}

// runCPU prints what the kernels' start-up dispatch found and chose.
func runCPU(args []string, stdout, stderr io.Writer) error {
	if len(args) != 0 {
		return fmt.Errorf("takes no arguments, found %q", args)
	}
	fmt.Fprint(stdout, kiln.CPUReport())
	return nil
}
