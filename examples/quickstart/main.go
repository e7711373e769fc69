// Command quickstart compiles an HLO module exported from JAX, binds its
// weights from a safetensors file by name, and runs it once.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

func main() {
	model := flag.String("model", "examples/quickstart/dense.hlo", "HLO text: jax.jit(f).lower(*args).as_text(dialect=\"hlo\")")
	weights := flag.String("weights", "examples/quickstart/dense.safetensors", "the weights, named as the parameters' paths")
	flag.Parse()

	text, err := os.ReadFile(*model)
	if err != nil {
		log.Fatal(err)
	}
	m, err := ir.ParseModule(string(text))
	if err != nil {
		log.Fatal(err)
	}
	w, err := runtime.LoadSafetensors(*weights)
	if err != nil {
		log.Fatal(err)
	}
	// Every tensor must bind a parameter; the parameters left are the inputs.
	exe, err := runtime.Compile(m, runtime.WithWeights(w.Tensors()))
	if err != nil {
		log.Fatal(err)
	}
	w.Close() // the executable keeps copies of its own
	fmt.Println("inputs:", exe.Parameters())

	x, err := runtime.TensorFromSlice([]float32{1, 2, 3}, 1, 3)
	if err != nil {
		log.Fatal(err)
	}
	outs, err := exe.Run(context.Background(), x) // safe from many goroutines
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("outputs:", outs[0].Float32s())
}
