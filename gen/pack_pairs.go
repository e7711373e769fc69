package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The packpairs family: packing operands known only at run time. First,
// the packing of a bfloat16 B for the pair kernels
// (the root package's lowp_pack.go) when B is known only at run time — the
// weights of a model passed as arguments, attention's values. A group row
// of a panel holds, for each of its columns, the elements of two
// consecutive rows of B as one 32-bit word (the first in the low half);
// the kernel builds one group row across every panel: each 16 columns are
// the two rows' 16 elements zero-extended to 32 bits (VPMOVZXWD), the
// second shifted into the high half and the two combined.

const packPairsSig = "func(dst *uint32, panelStride int, r0, r1 *uint16, nr, panels int)"

// emitPackPairs16AVX512 writes the AVX-512 kernel.
func emitPackPairs16AVX512(f *amd64File) string {
	name := "packPairs16AVX512"
	return emitPanelScatter(f, name, packPairsSig, "r0", "r1", 2, []string{
		name + " writes, for each of panels panels of nr columns (nr a multiple of 16), the words r0[j] | r1[j]<<16",
		"of the panel's columns j to dst, the next panel's panelStride words further on."},
		func(a, b reg.Register, j reg.Register, out operand.Mem) {
			lo, hi, w := zmm[0], zmm[1], zmm[2]
			f.VPMOVZXWD(memIdx(a, j, 2, 0), lo)
			f.VPMOVZXWD(memIdx(b, j, 2, 0), hi)
			f.VPSLLD(imm(16), hi, hi)
			f.VPORD(lo, hi, w)
			f.VMOVDQU32(w, out)
		})
}

// emitPanelScatter writes a kernel with the signature
// func(dst, panelStride int, a, b, nr, panels int) (a and b named aName and
// bName, of elem bytes per element): for each of panels panels it calls
// body for its columns j = 0, 16, … < nr, body reading a and b at j and
// writing 16 32-bit results to out; a and b advance nr elements per
// panel, dst panelStride elements.
func emitPanelScatter(f *amd64File, name, sig, aName, bName string, elem uint8, doc []string, body func(a, b, j reg.Register, out operand.Mem)) string {
	f.leafFunction(name, sig, doc...)
	dst, stride := reg.RDI, reg.RDX
	a, b := reg.RSI, reg.RBX
	nr, panels := reg.RCX, reg.R8
	j, p := reg.R9, reg.R10
	f.Load(f.Param("dst"), dst)
	f.Load(f.Param("panelStride"), stride)
	f.SHLQ(imm(2), stride)
	f.Load(f.Param(aName), a)
	f.Load(f.Param(bName), b)
	f.Load(f.Param("nr"), nr)
	f.Load(f.Param("panels"), panels)
	f.TESTQ(panels, panels)
	f.JE(operand.LabelRef("done"))
	f.Label("panel")
	f.MOVQ(dst, p)
	f.XORQ(j, j)
	f.Label("cols")
	f.CMPQ(j, nr)
	f.JGE(operand.LabelRef("next"))
	body(a, b, j, memIdx(p, j, 4, 0))
	f.ADDQ(imm(16), j)
	f.JMP(operand.LabelRef("cols"))
	f.Label("next")
	f.LEAQ(memIdx(a, nr, elem, 0), a)
	f.LEAQ(memIdx(b, nr, elem, 0), b)
	f.ADDQ(stride, dst)
	f.DECQ(panels)
	f.JNE(operand.LabelRef("panel"))
	f.Label("done")
	f.VZEROUPPER()
	f.RET()
	return name
}

func generatePackPairs(o *output) error {
	k := emitPackPairs16AVX512(o.amd64)
	o.set("levelAVX512", "packPairs16", k)
	o.set("levelAVX512", "scaleRowPanels", emitScaleRowPanelsAVX512(o.amd64))
	return nil
}

// The float32 counterpart: scaled weights packed for the convolution
// kernels (the root package's PackWeightsScaled). A row of the weights (one
// tap and input channel, every output channel) is scattered into every
// panel, each of its nr elements multiplied by its channel's factor.

const scaleRowSig = "func(dst *float32, panelStride int, src, scale *float32, nr, panels int)"

// emitScaleRowPanelsAVX512 writes the AVX-512 kernel.
func emitScaleRowPanelsAVX512(f *amd64File) string {
	name := "scaleRowPanelsAVX512"
	return emitPanelScatter(f, name, scaleRowSig, "src", "scale", 4, []string{
		name + " writes, for each of panels panels of nr columns (nr a multiple of 16), src[j]·scale[j] for the",
		"panel's columns j to dst, the next panel's panelStride elements further on."},
		func(a, b reg.Register, j reg.Register, out operand.Mem) {
			x := zmm[0]
			f.VMOVUPS(memIdx(a, j, 4, 0), x)
			f.VMULPS(memIdx(b, j, 4, 0), x, x)
			f.VMOVUPS(x, out)
		})
}
