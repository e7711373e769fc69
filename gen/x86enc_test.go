package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Encodings checked against LLVM's assembler (llvm-mc -show-encoding).
func TestX86Encodings(t *testing.T) {
	m := func(base, index, scale, disp int) xmem { return xmem{base, index, scale, disp} }
	const rax, rcx, rdx, rsi, rdi, r11, r12, r13 = 0, 1, 2, 6, 7, 11, 12, 13
	for _, c := range []struct {
		in   rawInst
		want []byte
	}{
		{vdpbf16ps(3, 17, 30), []byte{0x62, 0x92, 0x76, 0x40, 0x52, 0xde}},
		{vdpbf16psBcst(0, 1, m(rsi, -1, 1, 8)), []byte{0x62, 0xf2, 0x76, 0x58, 0x52, 0x46, 0x02}},
		{vdpbf16psBcst(0, 1, m(r12, rax, 4, 1024)), []byte{0x62, 0xd2, 0x76, 0x58, 0x52, 0x84, 0x84, 0x00, 0x04, 0x00, 0x00}},
		{vpdpbusdVEX(1, 2, 13), []byte{0xc4, 0xc2, 0x6d, 0x50, 0xcd}},
		{ldtilecfg(m(rdi, -1, 1, 0)), []byte{0xc4, 0xe2, 0x78, 0x49, 0x07}},
		{tilerelease(), []byte{0xc4, 0xe2, 0x78, 0x49, 0xc0}},
		{tilezero(3), []byte{0xc4, 0xe2, 0x7b, 0x49, 0xd8}},
		{tileloadd(4, m(rsi, rax, 1, 0)), []byte{0xc4, 0xe2, 0x7b, 0x4b, 0x24, 0x06}},
		{tileloadd(5, m(r13, r11, 1, 64)), []byte{0xc4, 0x82, 0x7b, 0x4b, 0x6c, 0x1d, 0x40}},
		{tilestored(m(rdx, rcx, 1, 0), 1), []byte{0xc4, 0xe2, 0x7a, 0x4b, 0x0c, 0x0a}},
		{tdp("tdpbf16ps", 0, 4, 6), []byte{0xc4, 0xe2, 0x4a, 0x5c, 0xc4}},
		{tdp("tdpbssd", 1, 4, 7), []byte{0xc4, 0xe2, 0x43, 0x5e, 0xcc}},
		{tdp("tdpbusd", 2, 5, 6), []byte{0xc4, 0xe2, 0x49, 0x5e, 0xd5}},
		{vpdpbusd(3, 17, 30), []byte{0x62, 0x92, 0x75, 0x40, 0x50, 0xde}},
		{vcvtneps2bf16(3, 17), []byte{0x62, 0xb2, 0x7e, 0x48, 0x72, 0xd9}},
	} {
		if !bytes.Equal(c.in.bytes, c.want) {
			t.Errorf("%s: % x, want % x", c.in.text, c.in.bytes, c.want)
		}
	}
}

var llvmEncoding = regexp.MustCompile(`encoding: \[([^\]]*)\]`)

// TestX86EncodingsAgainstLLVM assembles every encoder over many operands
// with llvm-mc, when it is installed, and compares the bytes.
func TestX86EncodingsAgainstLLVM(t *testing.T) {
	mc, err := exec.LookPath("llvm-mc")
	if err != nil {
		t.Skip("llvm-mc not installed")
	}
	var ins []rawInst
	for d := 0; d < 32; d += 3 {
		for s := 0; s < 32; s += 5 {
			ins = append(ins, vdpbf16ps(d, s, (d+s)%32), vpdpbusd(d, s, (d+s+1)%32), vcvtneps2bf16(d, s))
			for _, base := range []int{0, 3, 5, 6, 8, 12, 13, 15} {
				for _, disp := range []int{0, 4, -8, 508, 512, 4096} {
					ins = append(ins, vdpbf16psBcst(d, s, xmem{base, -1, 1, disp}))
					if idx := (base + 1) % 16; idx != 4 {
						ins = append(ins, vdpbf16psBcst(d, s, xmem{base, idx, 2, disp}))
					}
				}
			}
		}
	}
	for d := 0; d < 16; d++ {
		ins = append(ins, vpdpbusdVEX(d, (d+3)%16, (d+7)%16), vpdpwssdVEX(d, (d+1)%16, (d+9)%16))
	}
	for tt := 0; tt < 8; tt++ {
		ins = append(ins, tilezero(tt))
		for _, base := range []int{0, 6, 7, 12, 13} {
			for _, idx := range []int{0, 1, 9, 11} {
				if idx == base {
					continue
				}
				ins = append(ins, tileloadd(tt, xmem{base, idx, 1, 64 * tt}), tilestored(xmem{base, idx, 1, 1024 * tt}, tt))
			}
		}
		for _, name := range []string{"tdpbf16ps", "tdpbssd", "tdpbusd", "tdpbsud", "tdpbuud"} {
			ins = append(ins, tdp(name, tt, (tt+1)%8, (tt+2)%8))
		}
	}
	ins = append(ins, ldtilecfg(xmem{7, -1, 1, 0}), ldtilecfg(xmem{12, -1, 1, 64}), tilerelease())
	var src strings.Builder
	for _, in := range ins {
		src.WriteString(in.text + "\n")
	}
	cmd := exec.Command(mc, "-triple=x86_64", "-x86-asm-syntax=intel", "-mattr=+amx-tile,+amx-bf16,+amx-int8,+avx512bf16,+avxvnni", "-show-encoding")
	cmd.Stdin = strings.NewReader(src.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, out)
	}
	encs := llvmEncoding.FindAllStringSubmatch(string(out), -1)
	if len(encs) != len(ins) {
		t.Fatalf("llvm-mc encoded %d instructions, want %d:\n%s", len(encs), len(ins), out)
	}
	for i, e := range encs {
		var want []byte
		for _, b := range strings.Split(e[1], ",") {
			v, err := strconv.ParseUint(strings.TrimSpace(b), 0, 8)
			if err != nil {
				t.Fatalf("%s: %v", e[1], err)
			}
			want = append(want, byte(v))
		}
		if !bytes.Equal(ins[i].bytes, want) {
			t.Errorf("%s: % x, llvm-mc % x", ins[i].text, ins[i].bytes, want)
		}
	}
	t.Logf("%d encodings checked", len(ins))
	_ = fmt.Sprint
}
