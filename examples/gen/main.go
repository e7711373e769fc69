// Command gen writes the example models of examples/ as HLO text (see
// package internal/examplemodels for their form).
//
// Usage (from the repository root): go run ./examples/gen -out examples
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/kilnml/kiln/internal/examplemodels"
)

func main() {
	out := flag.String("out", "examples", "directory to write the models into")
	flag.Parse()
	models := []struct {
		path string
		text string
	}{
		{"mlp/mlp_b1.hlo", examplemodels.MLP(1)},
		{"mlp/mlp_b32.hlo", examplemodels.MLP(32)},
		{"cnn/cnn_b1.hlo", examplemodels.CNN(1)},
		{"cnn/cnn_b32.hlo", examplemodels.CNN(32)},
		{"transformer/encoder_b1.hlo", examplemodels.Encoder(1)},
		{"transformer/encoder_b32.hlo", examplemodels.Encoder(32)},
	}
	for _, m := range models {
		p := filepath.Join(*out, m.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(m.text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
