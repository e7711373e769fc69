package ssa

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
)

// The example models after the whole pipeline: the fused ops found, every
// dot and convolution canonical, every layout the default, and (on the
// small ones) the same results as the original module.

func readExample(t *testing.T, name string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

func optimizeText(t *testing.T, text string) (*ir.Module, *Program) {
	t.Helper()
	m, p := lowerText(t, text)
	if err := Optimize(p, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	return m, p
}

func countOps(p *Program) map[Op]int {
	n := map[Op]int{}
	for _, f := range p.Funcs {
		for _, v := range f.Values {
			n[v.Op]++
		}
	}
	return n
}

func checkCanonical(t *testing.T, p *Program) {
	t.Helper()
	for _, f := range p.Funcs {
		for _, v := range f.Values {
			switch {
			case v.Op == OpDot && !IsCanonicalDot(v):
				t.Errorf("%v is not a canonical dot: %v · %v %v", v, v.Args[0].Shape, v.Args[1].Shape, v.Attrs.DotDims)
			case v.Op == OpConvolution && !IsCanonicalConv(v):
				t.Errorf("%v is not a canonical convolution: %v", v, v.Attrs.ConvDims)
			case v.Op == OpBatchNormInf || v.Op == OpBatchNormTrain || v.Op == OpBatchNormGrad || v.Op == OpClamp:
				t.Errorf("%v (%s) was not decomposed", v, v.Op)
			case !allDefaultLayouts(v.Shape):
				t.Errorf("%v (%s) has the layout of %v", v, v.Op, v.Shape)
			}
		}
	}
}

func TestExampleModels(t *testing.T) {
	for _, c := range []struct {
		file                     string
		softmax, layerNorm, gelu int
		dots, convs              int
	}{
		{"mlp/mlp_b1.hlo", 0, 0, 0, 3, 0},
		{"mlp/mlp_b32.hlo", 0, 0, 0, 3, 0},
		{"cnn/cnn_b1.hlo", 0, 0, 0, 1, 3},
		{"cnn/cnn_b32.hlo", 0, 0, 0, 1, 3},
		{"transformer/encoder_b1.hlo", 1, 2, 1, 8, 0},
		{"transformer/encoder_b32.hlo", 1, 2, 1, 8, 0},
	} {
		t.Run(c.file, func(t *testing.T) {
			start := time.Now()
			_, p := optimizeText(t, readExample(t, c.file))
			t.Logf("optimised in %v", time.Since(start))
			n := countOps(p)
			if n[OpSoftmax] != c.softmax || n[OpLayerNorm] != c.layerNorm || n[OpGelu] != c.gelu {
				t.Errorf("found %d softmax, %d layer-norm, %d gelu; want %d, %d, %d\n%s",
					n[OpSoftmax], n[OpLayerNorm], n[OpGelu], c.softmax, c.layerNorm, c.gelu, p)
			}
			if n[OpDot] != c.dots || n[OpConvolution] != c.convs {
				t.Errorf("%d dots and %d convolutions, want %d and %d", n[OpDot], n[OpConvolution], c.dots, c.convs)
			}
			for _, g := range p.Entry.Values {
				if g.Op == OpGelu && g.Aux != GeluTanh {
					t.Errorf("%v: gelu aux %d, want the tanh form", g, g.Aux)
				}
			}
			checkCanonical(t, p)
		})
	}
}

// smallEncoder is the encoder example with hidden size 32 (2 heads of 16),
// sequence 8 and MLP width 64: the same HLO as JAX exports, at a size the
// evaluator runs quickly.
func smallEncoder(t *testing.T) string {
	text := readExample(t, "transformer/encoder_b1.hlo")
	sizes := map[string]string{"768": "32", "3072": "64", "128": "8", "12": "2", "64": "16"}
	shape := regexp.MustCompile(`f32\[[0-9,]*\]`)
	text = shape.ReplaceAllStringFunc(text, func(s string) string {
		dims := strings.Split(s[4:len(s)-1], ",")
		for i, d := range dims {
			if r, ok := sizes[d]; ok {
				dims[i] = r
			}
		}
		return "f32[" + strings.Join(dims, ",") + "]"
	})
	// The mean's 1/768 becomes 1/32.
	return strings.ReplaceAll(text, "constant(0.0013020834)", "constant("+strconv.FormatFloat(1.0/32, 'g', -1, 64)+")")
}

func TestExampleModelsEvaluate(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		tol  tolerance
	}{
		{"mlp", readExample(t, "mlp/mlp_b1.hlo"), exact},
		{"cnn", readExample(t, "cnn/cnn_b1.hlo"), exact},
		{"small encoder", smallEncoder(t), tolerance{1e-5, 1e-4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, p := optimizeText(t, c.text)
			n := countOps(p)
			if c.name == "small encoder" && (n[OpSoftmax] != 1 || n[OpLayerNorm] != 2 || n[OpGelu] != 1) {
				t.Errorf("found %d softmax, %d layer-norm, %d gelu; want 1, 2, 1", n[OpSoftmax], n[OpLayerNorm], n[OpGelu])
			}
			checkCanonical(t, p)
			checkEquivalent(t, m, p, c.tol)
		})
	}
}

// TestExamplePassByPass evaluates the example models after every prefix of
// the pipeline, so that a pass that changed results is named.
func TestExamplePassByPass(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
	}{
		{"mlp", readExample(t, "mlp/mlp_b1.hlo")},
		{"cnn", readExample(t, "cnn/cnn_b1.hlo")},
		{"small encoder", smallEncoder(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, p := lowerText(t, c.text)
			tol := exact
			for _, ps := range passes {
				runPasses(t, p, ps.name)
				if ps.name == "patterns" && c.name == "small encoder" {
					tol = tolerance{1e-5, 1e-4}
				}
				t.Run(ps.name, func(t *testing.T) { checkEquivalentSeeds(t, m, p, tol, 1) })
			}
		})
	}
}
