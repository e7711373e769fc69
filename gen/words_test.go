package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
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
			got := decode(t, uint32(enc))
			if strings.HasPrefix(got, "undecodable") {
				// An extension arm64asm does not know: re-encode the comment
				// with the asm package's encoder (checked against LLVM in
				// TestExtensionsAgainstLLVM).
				got = reencode(m[2], uint32(enc))
			}
			if got != m[2] {
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

// extensions are the encoders of the instructions arm64asm cannot decode,
// by mnemonic.
var extensions = map[string]func(d, n, m asm.VReg) asm.Word{
	"sdot":  asm.SDOT,
	"usdot": asm.USDOT,
	"bfdot": asm.BFDOT,
}

var vregs = regexp.MustCompile(`v(\d+)\.`)

// reencode returns text when its instruction, encoded by the asm package,
// is enc, and a description of the mismatch otherwise.
func reencode(text string, enc uint32) string {
	mn, _, _ := strings.Cut(text, " ")
	f, ok := extensions[mn]
	rs := vregs.FindAllStringSubmatch(text, -1)
	if !ok || len(rs) != 3 {
		return "undecodable: no encoder for " + text
	}
	r := func(i int) asm.VReg { v, _ := strconv.Atoi(rs[i][1]); return asm.V(v) }
	if w := f(r(0), r(1), r(2)); w.Enc != enc || w.Text != text {
		return fmt.Sprintf("%s (encoder gives %#08x)", w.Text, w.Enc)
	}
	return text
}

// TestExtensionsAgainstLLVM assembles the extension encoders' texts with
// llvm-mc, when it is installed, over every register, and compares.
func TestExtensionsAgainstLLVM(t *testing.T) {
	mc, err := exec.LookPath("llvm-mc")
	if err != nil {
		t.Skip("llvm-mc not installed")
	}
	var ws []asm.Word
	for d := 0; d < 32; d++ {
		for _, f := range []func(d, n, m asm.VReg) asm.Word{asm.SDOT, asm.USDOT, asm.BFDOT} {
			ws = append(ws, f(asm.V(d), asm.V((d+7)%32), asm.V((d+13)%32)))
		}
		ws = append(ws, asm.SMLAL(asm.V(d), asm.V((d+3)%32), asm.V((d+5)%32), d%2 == 0), asm.ADDP(asm.S4, asm.V(d), asm.V((d+1)%32), asm.V((d+2)%32)))
	}
	var src strings.Builder
	for _, w := range ws {
		src.WriteString(w.Text + "\n")
	}
	cmd := exec.Command(mc, "-triple=aarch64", "-mattr=+bf16,+i8mm,+dotprod", "-show-encoding")
	cmd.Stdin = strings.NewReader(src.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, out)
	}
	encs := regexp.MustCompile(`encoding: \[0x(..),0x(..),0x(..),0x(..)\]`).FindAllStringSubmatch(string(out), -1)
	if len(encs) != len(ws) {
		t.Fatalf("llvm-mc encoded %d instructions, want %d", len(encs), len(ws))
	}
	for i, e := range encs {
		v, _ := strconv.ParseUint(e[4]+e[3]+e[2]+e[1], 16, 32)
		if uint32(v) != ws[i].Enc {
			t.Errorf("%s: %#08x, llvm-mc %#08x", ws[i].Text, ws[i].Enc, v)
		}
	}
}
