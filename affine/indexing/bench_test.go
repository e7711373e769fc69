package indexing

import (
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
)

// benchOps are single ops of the specification's examples and XLA's tests,
// by name.
var benchOps = []struct{ name, hlo string }{
	{"add", seedHLO("elementwise")},
	{"broadcast", seedHLO("broadcast")},
	{"transpose", seedHLO("transpose")},
	{"reshape-general", seedHLO("reshape-linearize-delinearize")},
	{"slice", seedHLO("slice")},
	{"reduce", seedHLO("variadic-reduce")},
	{"dot", seedHLO("dot")},
	{"concatenate", seedHLO("concatenate")},
	{"pad", seedHLO("pad")},
	{"dynamic-slice", seedHLO("dynamic-slice")},
	{"gather", seedHLO("gather")},
	{"reduce-window", seedHLO("reduce-window")},
	{"convolution", `HloModule m
ENTRY e {
  p0 = f32[1,12,10,4] parameter(0)
  p1 = f32[4,3,5,8] parameter(1)
  ROOT conv = f32[1,12,10,8] convolution(p0, p1), window={size=3x5 pad=1_1x2_2}, dim_labels=b01f_i01o->b01f
}`},
}

func seedHLO(name string) string {
	for _, c := range seedCases {
		if c.name == name {
			return c.hlo
		}
	}
	panic("no seed case " + name)
}

// BenchmarkOutputToInput measures the analysis of one op, as the compiler
// calls it for every value it fuses.
func BenchmarkOutputToInput(b *testing.B) {
	for _, c := range benchOps {
		m := mustParse(b, c.hlo)
		op := OpOf(m.Entry.Root)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := op.OutputToInput(0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInputToOutput measures the maps of operand 0 read the other way.
func BenchmarkInputToOutput(b *testing.B) {
	for _, c := range benchOps {
		m := mustParse(b, c.hlo)
		op := OpOf(m.Entry.Root)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := op.InputToOutput(0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFusion measures the composition of the maps of a fusion from its
// root back to its parameters, per fused op: the softmax of the
// specification (15 ops, two maps of the input) and the transposes and
// exponentials whose two paths give one map.
func BenchmarkFusion(b *testing.B) {
	for _, c := range []struct{ name, hlo string }{
		{"softmax", softmaxHLO},
		{"transpose-exponential", seedHLO("fusion-one-input-duplicate-maps")},
	} {
		m := mustParse(b, c.hlo)
		fusion := m.Entry.Root
		g, err := GroupOf(fusion.Calls)
		if err != nil {
			b.Fatal(err)
		}
		perOp := func(b *testing.B, start time.Time) {
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/float64(len(g.Nodes)), "ns/fused-op")
		}
		b.Run(c.name+"/group", func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if _, err := g.OutputToInput(0); err != nil {
					b.Fatal(err)
				}
			}
			perOp(b, start)
		})
		b.Run(c.name+"/instruction", func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if _, err := OutputToInput(fusion, 0); err != nil {
					b.Fatal(err)
				}
			}
			perOp(b, start)
		})
		b.Run(c.name+"/inverse", func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if _, err := g.InputToOutput(0); err != nil {
					b.Fatal(err)
				}
			}
			perOp(b, start)
		})
	}
}

// BenchmarkOpOf measures describing an instruction for the analysis.
func BenchmarkOpOf(b *testing.B) {
	m := mustParse(b, seedHLO("dot"))
	var sink ir.Opcode
	b.ReportAllocs()
	for b.Loop() {
		sink = OpOf(m.Entry.Root).Opcode
	}
	_ = sink
}
