package main

import (
	"testing"

	"github.com/kilnml/kiln/asm"
)

// TestSIMDEncodersOverAllOperands checks the streaming kernels' NEON
// encoders (asm/neon_simd.go) against arm64asm for every register, every
// arrangement they accept and a range of immediates.
func TestSIMDEncodersOverAllOperands(t *testing.T) {
	check := func(w asm.Word) {
		t.Helper()
		if got := decode(t, w.Enc); got != w.Text {
			t.Fatalf("encoding %#08x decodes to %q, encoder says %q", w.Enc, got, w.Text)
		}
	}
	for d := 0; d < 32; d++ {
		for m := 0; m < 32; m += 3 {
			n := (d + 2*m + 1) % 32
			D, N, M := asm.V(d), asm.V(n), asm.V(m)
			for _, a := range []asm.Arrangement{asm.S4, asm.D2} {
				for _, f := range []func(asm.Arrangement, asm.VReg, asm.VReg, asm.VReg) asm.Word{
					asm.FSUB, asm.FMUL, asm.FDIV, asm.FMIN, asm.FMLA, asm.FMLS, asm.FCMEQ, asm.FCMGE, asm.FCMGT,
				} {
					check(f(a, D, N, M))
				}
				for _, f := range []func(asm.Arrangement, asm.VReg, asm.VReg) asm.Word{
					asm.FABS, asm.FNEG, asm.FSQRT, asm.FRINTN, asm.FRINTM, asm.FRINTP, asm.FRINTZ, asm.FCVTZS, asm.FCVTNS, asm.SCVTF,
				} {
					check(f(a, D, N))
				}
				check(asm.FCVTL(a, D, N, false))
				check(asm.FCVTL(a, D, N, true))
				check(asm.FCVTN(a, D, N, false))
				check(asm.FCVTN(a, D, N, true))
			}
			for _, a := range []asm.Arrangement{asm.S4, asm.H8, asm.B16, asm.D2} {
				for _, f := range []func(asm.Arrangement, asm.VReg, asm.VReg, asm.VReg) asm.Word{
					asm.ADD, asm.SUB, asm.CMGT, asm.CMEQ, asm.CMTST, asm.UZP1, asm.UZP2, asm.ZIP1, asm.ZIP2, asm.TRN1, asm.TRN2,
				} {
					check(f(a, D, N, M))
				}
				for s := 1; s < 8*a.Size; s += 5 {
					check(asm.SHL(a, D, N, s))
					check(asm.USHR(a, D, N, s))
					check(asm.SSHR(a, D, N, s))
				}
				for i := 0; i < a.Lanes; i++ {
					check(asm.DUPElem(a, D, N, i))
				}
			}
			for _, f := range []func(asm.VReg, asm.VReg, asm.VReg) asm.Word{asm.AND, asm.BIC, asm.ORR, asm.EOR, asm.BSL, asm.BIT, asm.BIF} {
				check(f(D, N, M))
			}
			check(asm.NOT(D, N))
			check(asm.MOV(D, N))
			for b := 0; b < 16; b += 3 {
				check(asm.EXT(D, N, M, b))
			}
			check(asm.UXTL(asm.H8, D, N))
			check(asm.UXTL(asm.S4, D, N))
			check(asm.SXTL(asm.H8, D, N))
			check(asm.SXTL(asm.S4, D, N))
			check(asm.XTN(asm.S4, D, N))
			check(asm.XTN(asm.H8, D, N))
		}
	}
}
