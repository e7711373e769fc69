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
		"HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n ROOT r = f32[2] custom-call-start(p), custom_call_target=\"\\001\", window={size=2 pad=-1_1}\n}",
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
