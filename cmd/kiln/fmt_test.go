package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFmtPrintsModule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.hlo")
	src := "HloModule m\n\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(x)\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"fmt", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d, stderr: %s", code, stderr.String())
	}
	want := "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n" +
		"ENTRY %main (x: f32[2]) -> f32[2] {\n" +
		"  %x = f32[2]{0} parameter(0)\n" +
		"  ROOT %n = f32[2]{0} negate(f32[2]{0} %x)\n" +
		"}\n"
	if got := stdout.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if stderr.Len() != 0 {
		t.Errorf("unexpected stderr: %s", stderr.String())
	}
}

func TestFmtReportsParseErrorPosition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.hlo")
	src := "HloModule m\n\nENTRY main {\n  x = f32[2,] parameter(0)\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"fmt", path}, &stdout, &stderr); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	want := path + ":4:13: expected dimension size, found ']'\n"
	if got := stderr.String(); !strings.HasPrefix(got, want) {
		t.Errorf("stderr = %q, want it to start with %q", got, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("unexpected stdout: %s", stdout.String())
	}
}

func TestFmtMissingFile(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"fmt", filepath.Join(t.TempDir(), "none.hlo")}, &stdout, &stderr); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "no such file") {
		t.Errorf("stderr = %q", stderr.String())
	}
	if code := runMain([]string{"fmt"}, &stdout, &stderr); code != 1 {
		t.Errorf("no argument: exit status %d, want 1", code)
	}
}

// TestFmtCorpus formats every module of the ir test corpus.
func TestFmtCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../ir/testdata/hlo/*.hlo")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	for _, f := range files {
		var stdout, stderr bytes.Buffer
		if code := runMain([]string{"fmt", f}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "HloModule ") {
			t.Errorf("%s: exit status %d, stderr %s", f, code, stderr.String())
		}
	}
}
