package main

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kilnml/kiln/asm"
	"golang.org/x/arch/arm64/arm64asm"
)

var wordLine = regexp.MustCompile(`^\s*WORD\s+\$0x([0-9a-fA-F]{8})\s*//\s*(.+?)\s*$`)

// TestWordsDecodeToTheirComments decodes every WORD of the checked-in arm64
// assembly with arm64asm and compares it with the instruction in its comment.
func TestWordsDecodeToTheirComments(t *testing.T) {
	files, err := filepath.Glob("../*_arm64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no arm64 assembly found next to gen/ (%v)", err)
	}
	words := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		line := 0
		for sc.Scan() {
			line++
			text := sc.Text()
			if !strings.Contains(text, "WORD") {
				continue
			}
			m := wordLine.FindStringSubmatch(text)
			if m == nil {
				t.Errorf("%s:%d: WORD without an encoding and a comment: %q", name, line, text)
				continue
			}
			enc, _ := strconv.ParseUint(m[1], 16, 32)
			if got := decode(t, uint32(enc)); got != m[2] {
				t.Errorf("%s:%d: WORD $0x%s decodes to %q, comment says %q", name, line, m[1], got, m[2])
			}
			words++
		}
		f.Close()
	}
	if words == 0 {
		t.Fatal("found no WORD directives to check")
	}
	t.Logf("%d WORD directives checked", words)
}

// TestEncodersOverAllOperands checks the asm package's NEON encoders against
// arm64asm for every register and lane, beyond those the kernels use today.
func TestEncodersOverAllOperands(t *testing.T) {
	for _, arr := range []asm.Arrangement{asm.S4, asm.D2} {
		for d := 0; d < 32; d++ {
			for m := 0; m < 32; m++ {
				n := (d + m + 1) % 32
				ws := []asm.Word{asm.FADD(arr, asm.V(d), asm.V(n), asm.V(m)), asm.FMAX(arr, asm.V(d), asm.V(n), asm.V(m))}
				for lane := 0; lane < arr.Lanes; lane++ {
					ws = append(ws, asm.FMLAElem(arr, asm.V(d), asm.V(n), asm.V(m), lane), asm.FMULElem(arr, asm.V(d), asm.V(n), asm.V(m), lane))
				}
				for _, w := range ws {
					if got := decode(t, w.Enc); got != w.Text {
						t.Fatalf("encoding %#08x decodes to %q, encoder says %q", w.Enc, got, w.Text)
					}
				}
			}
		}
	}
}

func decode(t *testing.T, enc uint32) string {
	t.Helper()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], enc)
	inst, err := arm64asm.Decode(b[:])
	if err != nil {
		return "undecodable: " + err.Error()
	}
	return arm64asm.GNUSyntax(inst)
}
