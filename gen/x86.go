package main

import (
	"bytes"
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// vecArch is one amd64 vector level as the templates see it.
type vecArch struct {
	name  string // in function names: "AVX512", "AVX2"
	level string // the root package's level constant: "levelAVX512"
	bytes int    // vector width
	regs  int    // vector registers
	kmask bool   // opmask registers (AVX-512): masked loads/stores and masked FMA
}

var (
	avx512 = vecArch{name: "AVX512", level: "levelAVX512", bytes: 64, regs: 32, kmask: true}
	avx2   = vecArch{name: "AVX2", level: "levelAVX2", bytes: 32, regs: 16}
)

// vec returns vector register i at the arch's width.
func (v vecArch) vec(i int) reg.VecPhysical {
	if i < 0 || i >= v.regs {
		panic(fmt.Sprintf("%s has no vector register %d", v.name, i))
	}
	if v.bytes == 64 {
		return zmm[i]
	}
	return ymm[i]
}

var zmm = []reg.VecPhysical{reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7, reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
	reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23, reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31}

var ymm = []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7, reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}

var opmasks = []reg.OpmaskPhysical{reg.K1, reg.K2, reg.K3, reg.K4, reg.K5, reg.K6, reg.K7}

// op is an avo instruction constructor taking its operands in Go order.
type op func(c *build.Context, ops ...operand.Op)

// elemType gives the instruction forms of one element type.
type elemType struct {
	goType string // "float32"
	prefix string // BLAS prefix: "s", "d"
	size   int    // bytes
	shift  uint64 // log2(size)
	fma    op     // VFMADD231Px
	mul    op
	max    op
	bcast  op // VBROADCASTSx
	// masked forms (AVX-512 zeroing masking, AVX2 VMASKMOV)
	fmaZ     func(c *build.Context, m, x, k, dst operand.Op)
	addZ     func(c *build.Context, m, x, k, dst operand.Op)
	maskmov  func(c *build.Context, a, b, d operand.Op)
	add      op
	movu     op // VMOVUPx: the element size sets the granularity of masked stores
	fmaBcast op // VFMADD231Px.BCST: FMA with an embedded broadcast of a memory element
}

var (
	f32 = elemType{
		goType: "float32", prefix: "s", size: 4, shift: 2,
		fma: (*build.Context).VFMADD231PS, mul: (*build.Context).VMULPS, max: (*build.Context).VMAXPS,
		bcast: (*build.Context).VBROADCASTSS,
		fmaZ:  (*build.Context).VFMADD231PS_Z, addZ: (*build.Context).VADDPS_Z,
		maskmov: (*build.Context).VMASKMOVPS, add: (*build.Context).VADDPS, movu: (*build.Context).VMOVUPS, fmaBcast: (*build.Context).VFMADD231PS_BCST,
	}
	f64 = elemType{
		goType: "float64", prefix: "d", size: 8, shift: 3,
		fma: (*build.Context).VFMADD231PD, mul: (*build.Context).VMULPD, max: (*build.Context).VMAXPD,
		bcast: (*build.Context).VBROADCASTSD,
		fmaZ:  (*build.Context).VFMADD231PD_Z, addZ: (*build.Context).VADDPD_Z,
		maskmov: (*build.Context).VMASKMOVPD, add: (*build.Context).VADDPD, movu: (*build.Context).VMOVUPD, fmaBcast: (*build.Context).VFMADD231PD_BCST,
	}
)

// lanes is the number of elements of e in one vector of v.
func (v vecArch) lanes(e elemType) int { return v.bytes / e.size }

// amd64File collects the functions of one family for one output file.
type amd64File struct {
	*build.Context
}

// leafFunction starts an assembly kernel: a NOSPLIT function whose
// pointer arguments do not escape (it keeps none), with its signature and,
// where given, its doc lines.
func (f *amd64File) leafFunction(name, sig string, doc ...string) {
	f.Function(name)
	f.Attributes(attr.NOSPLIT)
	f.Pragma("noescape")
	f.SignatureExpr(sig)
	if len(doc) > 0 {
		f.Doc(doc...)
	}
}

func newAMD64File() *amd64File {
	c := build.NewContext()
	c.ConstraintExpr("!purego")
	return &amd64File{Context: c}
}

// render compiles the file and prints its assembly and Go declarations.
func (f *amd64File) render() (asm, stubs []byte, err error) {
	file, err := f.Result()
	if err != nil {
		return nil, nil, err
	}
	cfg := printer.Config{Argv: []string{"go", "run", "./gen"}, Pkg: "kiln"}
	var asmOut, stubOut bytes.Buffer
	if err := pass.Compile.Execute(file); err != nil {
		return nil, nil, err
	}
	a, err := printer.NewGoAsm(cfg).Print(file)
	if err != nil {
		return nil, nil, err
	}
	asmOut.Write(a)
	s, err := printer.NewStubs(cfg).Print(file)
	if err != nil {
		return nil, nil, err
	}
	stubOut.Write(s)
	return asmOut.Bytes(), stubOut.Bytes(), nil
}

// mem is a memory operand base+disp.
func mem(base reg.Register, disp int) operand.Mem { return operand.Mem{Base: base, Disp: disp} }

// memIdx is a memory operand base+index*scale+disp.
func memIdx(base, index reg.Register, scale uint8, disp int) operand.Mem {
	return operand.Mem{Base: base, Index: index, Scale: scale, Disp: disp}
}

func imm(x int) operand.Constant { return operand.Imm(uint64(x)) }

// addrOf is the stack address of a parameter or result.
func addrOf(c gotypes.Component) operand.Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// loadMask sets up the lane masks of the vectors of a partial tile from the
// driver's int32 prefix mask (-1 enabled, 0 disabled): opmask registers on
// AVX-512, vector registers (sign-extended for float64) on AVX2.
func loadMask(f *amd64File, v vecArch, e elemType, maskPtr reg.Register, nvec int, vmask []reg.VecPhysical, tmp int) {
	l := v.lanes(e)
	for i := 0; i < nvec; i++ {
		m := mem(maskPtr, i*l*4)
		switch {
		case v.kmask && e.size == 4:
			f.VMOVDQU32(m, zmm[tmp])
			f.VPMOVD2M(zmm[tmp], opmasks[i])
		case v.kmask:
			f.VMOVDQU32(m, zmm[tmp].AsY())
			f.VPMOVD2M(zmm[tmp].AsY(), opmasks[i])
		case e.size == 4:
			f.VMOVDQU(m, vmask[i])
		default:
			f.VPMOVSXDQ(m, vmask[i])
		}
	}
}

// emitStepLoop writes a loop of count steps, unroll at a time, then one at
// a time: step(u) emits the u-th step of a group, advance(n) moves the
// pointers on by n steps, and the loop leaves count at zero and jumps to
// done. The labels are "loop" and "tail".
func emitStepLoop(f *amd64File, count reg.Register, unroll int, step func(u int), advance func(n int), done string) {
	f.Label("loop")
	f.CMPQ(count, imm(unroll))
	f.JL(operand.LabelRef("tail"))
	for u := 0; u < unroll; u++ {
		step(u)
	}
	advance(unroll)
	f.SUBQ(imm(unroll), count)
	f.JMP(operand.LabelRef("loop"))
	f.Label("tail")
	f.TESTQ(count, count)
	f.JE(operand.LabelRef(done))
	step(0)
	advance(1)
	f.DECQ(count)
	f.JMP(operand.LabelRef("tail"))
}
