package ir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseModule feeds arbitrary text to ParseModule: it must never panic,
// every error must be a positioned *ParseError, and anything it accepts must
// print as text that parses back to an equal module and prints identically.
func FuzzParseModule(f *testing.F) {
	files, _ := filepath.Glob("testdata/hlo/*.hlo")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b))
		}
	}
	for _, seed := range []string{
		"HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}",
		"HloModule m ENTRY e { p = (f32[2]{0:T(2)E(32)S(1)}, token[]) parameter(0) }",
		"HloModule m\nENTRY e {\n  a = f32[<=4,2] parameter(0)\n  ROOT c = f32[2,2]{0,1} constant({ {1, 2}, {3, 4} })\n}",
		"HloModule m, is_scheduled=true\nc {\n p = f32[] parameter(0)\n}\nENTRY e {\n x = f32[] parameter(0)\n ROOT y = f32[] call(x), to_apply=c, frontend_attributes={a=\"}\"}\n}",
		"HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=e\n}",
		"HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n ROOT r = ((f32[4]), f32[2], s32[]) custom-call-start(p), custom_call_target=\"\\001\", window={size=2 pad=-1_1}\n}",
		// One module of each family of newer syntax: headerless, shape-less
		// instructions, nested instructions and compact tuple access, inline
		// computations, a single instruction, the stack-frame section, new
		// opcodes and element types, async chains with late binding, elided
		// and single-value constants, buffer shapes and mesh groups, module
		// aliasing, shardings.
		"ENTRY main {\n  x = f32[4] parameter(0)\n  ROOT r = f32[4] negate(x)\n}",
		"HloModule m\nENTRY e {\n  x = f32[2,3] parameter(0)\n  y = f32[3] parameter(1)\n  d = dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT t = tuple(d, x)\n}",
		"HloModule m\nENTRY e {\n  t = (f32[4], (s32[], f32[4])) parameter(0)\n  ROOT s = f32[4] add(f32[4] negate(%t#0), %t#1#1)\n}",
		"HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT s = f32[] reduce(p, z), dimensions={0}, to_apply={\n    a = f32[] parameter(0)\n    b = f32[] parameter(1)\n    ROOT c = f32[] add(a, b)\n  }\n}",
		"f32[2,3] add(f32[2,3] x, f32[2,3] y)",
		"HloModule m\n\nFileNames\n1 \"a.py\"\n\nFunctionNames\n1 \"f\"\n\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=1 end_line=1 column=1 end_column=2}\n\nStackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\nENTRY e {\n  ROOT c = pred[] constant(true), metadata={stack_frame_id=1}\n}",
		"HloModule m\nstep {\n  x = f32[4] parameter(0)\n  c = f32[4] parameter(1)\n  ROOT t = (f32[4], f32[4]) tuple(x, c)\n}\nENTRY e {\n  x = f32[8,4] parameter(0)\n  c = f32[4] parameter(1)\n  s = scan(x, c), dimensions={0}, num_carries=1, to_apply=step\n  h = f32[4] cosh(c), result_accuracy={mode=highest}\n  q = f8e8m0fnu[2] constant({1, 2})\n  ROOT k = (f4e2m1fn[2], s2[1]) tuple(f4e2m1fn[2] constant({6, -0.5}), s2[1] constant({-2}))\n}",
		"HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n  s = ((), (), s32[]) call-start(), to_apply={\n    x = f32[8] parameter(0)\n    ROOT y = f32[8] abs(x)\n  }\n  u = ((f32[8]), f32[8], s32[]) call-update(s, p)\n  ROOT d = f32[8] call-done(u)\n}",
		"HloModule m\nENTRY e {\n  a = f32[3,4] constant({...})\n  ROOT b = s32[2,2] constant(7)\n}",
		"HloModule m, replica_count=4\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[16] parameter(0)\n  pin = b(f32[16]) custom-call(p), custom_call_target=\"Pin\"\n  u = f32[16] custom-call(pin), custom_call_target=\"Unpin\"\n  ROOT r = f32[16] all-reduce(u), replica_groups=mesh['x'=2,'y'=2] {'y'}, to_apply=add\n}",
		"HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {}) }\nENTRY e {\n  p = f32[2] parameter(0), sharding={devices=[2]<=[2]}\n  q = f32[2] parameter(1), sharding={devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}\n  ROOT r = f32[2] add(p, q), sharding={{replicated}}\n}",
		// The inputs of the probes of hostile files: a non-ASCII instruction
		// name (reported as a byte), an 8 GiB broadcast (attempted below the
		// per-tensor cap), constants whose shapes claim far more than their
		// text (or than is elided), a single value spread over a huge shape.
		"HloModule m\nENTRY e {\n  pé = f32[] parameter(0)\n  ROOT r = f32[] negate(pé)\n}",
		"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT é = f32[] negate(p)\n}",
		"HloModule huge\nENTRY main {\n  p = f32[] parameter(0)\n  ROOT b = f32[2048,1024,1024] broadcast(p), dimensions={}\n}",
		"HloModule m\nENTRY e {\n  c = f32[2000000000] constant({1, 2})\n  ROOT r = f32[2000000000] negate(c)\n}",
		"HloModule m\nENTRY e {\n  c = f32[2048,1024,1024] constant({...})\n  ROOT n = f32[2048,1024,1024] negate(c)\n}",
		"HloModule m\nENTRY e {\n  ROOT c = s32[100000,100000,100000] constant(7)\n}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseModule(text)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error is %T, not *ParseError: %v", err, err)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("parser failed internally: %v", err)
			}
			return
		}
		printed := m.String()
		m2, err := ParseModule(printed)
		if err != nil {
			t.Fatalf("printed module does not parse: %v\n%s", err, printed)
		}
		if d := diffModules(m, m2); d != "" {
			t.Fatalf("module changed through print and parse: %s\n%s", d, printed)
		}
		if again := m2.String(); again != printed {
			t.Fatalf("printing is not stable:%s", firstDifference(again, printed))
		}
	})
}
