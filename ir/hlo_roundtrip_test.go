package ir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withoutWhitespace drops whitespace outside quoted strings, so that texts
// equal "modulo whitespace" compare equal.
func withoutWhitespace(s string) string {
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
			continue
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// firstDifference shows where two texts part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-60)
	return "\n got: …" + a[from:min(len(a), i+60)] + "\nwant: …" + b[from:min(len(b), i+60)]
}

func readCorpus(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("testdata/hlo/*.hlo")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	corpus := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		corpus[filepath.Base(f)] = string(b)
	}
	return corpus
}

// TestHLOCorpusRoundTrip parses every module of testdata/hlo (written as
// XLA prints them), prints it, and checks that the text is the same modulo
// whitespace, that the printed text parses back to an equal module, and that
// printing is then stable. A file named X_newstyle.hlo is written in XLA's
// newer style (no '%', no operand shapes, no signatures) and must print as
// X.hlo, its classic twin.
func TestHLOCorpusRoundTrip(t *testing.T) {
	corpus := readCorpus(t)
	for name, text := range corpus {
		t.Run(name, func(t *testing.T) {
			m, err := ParseModule(text)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			// The corpus is meant to be valid XLA, not only parsable text.
			if err := m.Verify(); err != nil {
				t.Errorf("corpus module does not verify: %v", err)
			}
			printed := m.String()
			want := text
			if base, ok := strings.CutSuffix(name, "_newstyle.hlo"); ok {
				want = corpus[base+".hlo"]
				twin, err := ParseModule(want)
				if err != nil {
					t.Fatalf("parse twin: %v", err)
				}
				if d := diffModules(twin, m); d != "" {
					t.Errorf("new-style module differs from its classic twin: %s", d)
				}
			}
			if got, w := withoutWhitespace(printed), withoutWhitespace(want); got != w {
				t.Errorf("printed text differs from the input modulo whitespace:%s\nfull output:\n%s", firstDifference(got, w), printed)
			}
			m2, err := ParseModule(printed)
			if err != nil {
				t.Fatalf("re-parse of printed module: %v\n%s", err, printed)
			}
			if d := diffModules(m, m2); d != "" {
				t.Errorf("module changed through print and parse: %s", d)
			}
			if again := m2.String(); again != printed {
				t.Errorf("printing is not stable:%s", firstDifference(again, printed))
			}
		})
	}
}

// TestHLOCorpusPrefixesDoNotPanic parses prefixes of every corpus module: each
// must fail with a positioned error or succeed, never panic.
func TestHLOCorpusPrefixesDoNotPanic(t *testing.T) {
	for name, text := range readCorpus(t) {
		for n := 0; n < len(text); n += 13 {
			_, err := ParseModule(text[:n])
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%s[:%d]: %v", name, n, err)
			}
			if err != nil {
				if _, ok := err.(*ParseError); !ok {
					t.Fatalf("%s[:%d]: error is %T, not *ParseError: %v", name, n, err, err)
				}
			}
		}
	}
}

// requiredForTest gives, per opcode, attributes XLA's parser requires,
// written by hand so that every opcode can be parsed in isolation.
var requiredForTest = map[Opcode]string{
	OpGetTupleElement: "index=0", OpIota: "iota_dimension=0", OpCompare: "direction=EQ",
	OpBroadcast: "dimensions={0}", OpTranspose: "dimensions={0}", OpReverse: "dimensions={0}",
	OpConcatenate: "dimensions={0}", OpSort: "dimensions={0}, to_apply=c", OpGetDimensionSize: "dimensions={0}",
	OpSetDimensionSize: "dimensions={0}", OpAllGather: "dimensions={0}", OpAllGatherStart: "dimensions={0}",
	OpReduce: "dimensions={0}, to_apply=c", OpMap: "to_apply=c", OpCall: "to_apply=c",
	OpAllReduce: "to_apply=c", OpAllReduceStart: "to_apply=c", OpSlice: "slice={[0:1]}",
	OpDynamicSlice: "dynamic_slice_sizes={1}", OpPad: "padding=0_0",
	OpReduceWindow: "window={size=1}, to_apply=c", OpSelectAndScatter: "window={size=1}, select=c, scatter=c",
	OpConvolution: "dim_labels=b0f_0io->b0f", OpFusion: "kind=kLoop, calls=c", OpWhile: "condition=c, body=c",
	OpGather:     "offset_dims={}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1}",
	OpScatter:    "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=c",
	OpCustomCall: `custom_call_target="t"`, OpRng: "distribution=rng_uniform", OpRngBitGenerator: "algorithm=rng_default",
	OpReducePrecision: "exponent_bits=8, mantissa_bits=23", OpBatchNormGrad: "epsilon=0.001, feature_index=0",
	OpBatchNormInference: "epsilon=0.001, feature_index=0", OpBatchNormTraining: "epsilon=0.001, feature_index=0",
	OpFft: "fft_type=FFT, fft_length={1}", OpReduceScatter: "dimensions={0}, to_apply=c", OpTopK: "k=1",
	OpConditional: "branch_computations={c}", OpAsyncStart: "calls=c",
	OpCollectivePermute: "source_target_pairs={{0,1}}", OpCollectivePermuteStart: "source_target_pairs={{0,1}}",
	OpCollectiveReduce: "to_apply=c", OpRngGetAndUpdateState: "delta=1",
	OpScan:   "dimensions={0}, num_carries=0, to_apply=c",
	OpDomain: `domain={kind="sharding", entry={replicated}, exit={maximal device=0}}`,
}

// linesForTest are whole instruction lines for the opcodes whose operands
// or shape the generic line of TestEveryOpcodeRoundTrips cannot give.
var linesForTest = map[Opcode]string{
	OpAsyncStart:         "r = ((f32[]), f32[], s32[]) async-start(p), calls=c",
	OpAsyncUpdate:        "s = ((f32[]), f32[], s32[]) async-start(p), calls=c\n  r = ((f32[]), f32[], s32[]) async-update(s)",
	OpAsyncDone:          "s = ((f32[]), f32[], s32[]) async-start(p), calls=c\n  r = f32[] async-done(s)",
	OpConditional:        "i = s32[] constant(0)\n  r = f32[] conditional(i, p), branch_computations={c}",
	OpDot:                "r = f32[] dot(p, p)",
	OpDynamicUpdateSlice: "r = f32[] dynamic-update-slice(p, p)",
	OpInfeed:             "t = token[] after-all()\n  r = (f32[], token[]) infeed(t)",
	OpRecv:               "t = token[] after-all()\n  r = (f32[], u32[], token[]) recv(t)",
	OpReduce:             "r = f32[] reduce(p, p), dimensions={}, to_apply=c",
	OpReduceWindow:       "r = f32[] reduce-window(p, p), to_apply=c",
	OpRaggedDot:          "r = f32[] ragged-dot(p, p, p)",
	OpScaledDot:          "r = f32[] scaled-dot(p, p, p, p)",
}

// TestEveryOpcodeRoundTrips parses one instruction of every opcode under
// XLA's name, prints it and parses it back.
func TestEveryOpcodeRoundTrips(t *testing.T) {
	for _, op := range Opcodes() {
		var line string
		switch op {
		case OpAsyncStart, OpAsyncUpdate, OpAsyncDone, OpConditional, OpDot, OpDynamicUpdateSlice, OpInfeed, OpRecv,
			OpReduce, OpReduceWindow, OpRaggedDot, OpScaledDot:
			line = linesForTest[op]
		case OpParameter:
			line = "r = f32[] parameter(1)"
		case OpConstant:
			line = "r = f32[] constant(0)"
		default:
			n := op.Arity()
			if n == Variadic {
				n = 1
			}
			if op == OpIota || op == OpReplicaID || op == OpPartitionID {
				n = 0
			}
			line = "r = f32[] " + op.String() + "(" + strings.TrimSuffix(strings.Repeat("p, ", n), ", ") + ")"
			if a := requiredForTest[op]; a != "" {
				line += ", " + a
			}
		}
		text := "HloModule m\nc {\n  a = f32[] parameter(0)\n}\nENTRY e {\n  p = f32[] parameter(0)\n  " + line + "\n}\n"
		m, err := ParseModule(text)
		if err != nil {
			t.Errorf("%v: %v\n%s", op, err, text)
			continue
		}
		r := m.Entry.Instruction("r")
		if r == nil || r.Opcode != op {
			t.Errorf("%v: parsed as %v", op, r)
			continue
		}
		printed := m.String()
		if !strings.Contains(printed, " "+op.String()+"(") {
			t.Errorf("%v: printed text lacks the opcode:\n%s", op, printed)
		}
		m2, err := ParseModule(printed)
		if err != nil {
			t.Errorf("%v: re-parse: %v\n%s", op, err, printed)
			continue
		}
		if d := diffModules(m, m2); d != "" {
			t.Errorf("%v: %s", op, d)
		}
	}
}
