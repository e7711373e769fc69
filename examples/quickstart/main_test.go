package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

// TestQuickstartRuns runs the program on its bundled model and weights.
func TestQuickstartRuns(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, args := os.Stdout, os.Args
	defer func() { os.Stdout, os.Args = stdout, args }()
	os.Stdout = w
	os.Args = []string{"quickstart", "-model", "dense.hlo", "-weights", "dense.safetensors"}
	flag.CommandLine = flag.NewFlagSet("quickstart", flag.ExitOnError)
	main()
	w.Close()
	out, _ := io.ReadAll(r)
	// relu([1, 2, 3]·[[1, -1], [2, 0], [0, 3]] + [0.5, -10]) = relu([5.5, 0]).
	if want := "inputs: [Arg_2.3: f32[1,3]]\noutputs: [5.5 0]\n"; string(out) != want {
		t.Errorf("printed %q, want %q", out, want)
	}
}

// TestREADMEShowsThisProgram checks that the README's Compile/Run example is
// this program, as written.
func TestREADMEShowsThisProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("```go\n"+string(src)+"```\n")) {
		t.Errorf("README.md does not hold examples/quickstart/main.go verbatim in a go code block")
	}
	if !strings.Contains(string(readme), "go run ./examples/quickstart") {
		t.Errorf("README.md does not say how to run it")
	}
}
