package main

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// The Go backend of the vector programs: the pure-Go twin of a kernel runs
// the program's operations on one element at a time, in the same order and
// with the same roundings as the vector code, so that the twin and the
// assembly agree bit for bit. It uses helpers of the root package
// (twinmath.go): fma32 (a float32 FMA rounded once), maxXLA32 and friends.

// goTwin writes the twin of a kernel without accumulators: a loop over the
// first slice's elements running the program's body.
func goTwin(w *bytes.Buffer, k *vkernel) {
	p, _, _, _ := k.build(tGo, 1, false)
	name := k.name + "Go"
	fmt.Fprintf(w, "\n// %s %s, one element at a time: the pure-Go twin of the assembly kernels %s….\n", name, k.doc, k.name)
	fmt.Fprintf(w, "func %s%s {\n", name, k.signature())
	n := ""
	for _, a := range k.args {
		if a.kind == aSlice {
			n = a.name
			break
		}
	}
	// Bounds: every slice is as long as the first (the wrappers check).
	for _, a := range k.args[1:] {
		if a.kind == aSlice {
			fmt.Fprintf(w, "\t_ = %s[:len(%s)]\n", a.name, n)
		}
	}
	fmt.Fprintf(w, "\tfor i := range %s {\n", n)
	g := &goGen{w: w, p: p, k: k, names: map[val]string{}}
	live := g.liveFrom(p.body)
	for _, in := range p.pro {
		if live[in.res] {
			g.inst(in)
		}
	}
	for _, in := range p.body {
		if in.op == opStore || live[in.res] {
			g.inst(in)
		}
	}
	w.WriteString("\t}\n}\n")
}

type goGen struct {
	w     *bytes.Buffer
	p     *prog
	k     *vkernel
	names map[val]string
}

// liveFrom marks the values the stores of a block depend on.
func (g *goGen) liveFrom(b block) map[val]bool {
	live := map[val]bool{}
	def := map[val]inst{}
	for _, in := range append(append(block{}, g.p.pro...), b...) {
		if in.res != 0 {
			def[in.res] = in
		}
	}
	var mark func(v val)
	mark = func(v val) {
		if live[v] {
			return
		}
		live[v] = true
		in, ok := def[v]
		if !ok {
			return
		}
		args := in.args
		if in.op == opPack32 {
			args = args[:1] // one lane: the upper half is the same value
		}
		for _, a := range args {
			mark(a)
		}
	}
	for _, in := range b {
		if in.op == opStore {
			mark(in.args[0])
		}
	}
	return live
}

func goType(k vkind) string {
	switch k {
	case vF32:
		return "float32"
	case vI32:
		return "int32"
	case vF64:
		return "float64"
	}
	return "bool"
}

// ref is the Go expression of a value: a literal for constants.
func (g *goGen) ref(v val) string {
	info := g.p.vals[v]
	if !info.konst {
		n, ok := g.names[v]
		if !ok {
			panic(fmt.Sprintf("%s: Go twin reads value %d before it is defined", g.k.name, v))
		}
		return n
	}
	switch info.kind {
	case vF32:
		f := math.Float32frombits(uint32(info.bits))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || (f == 0 && math.Signbit(float64(f))) {
			return fmt.Sprintf("math.Float32frombits(0x%08x)", uint32(info.bits))
		}
		return "float32(" + strconv.FormatFloat(float64(f), 'g', -1, 32) + ")"
	case vF64:
		f := math.Float64frombits(info.bits)
		if math.IsNaN(f) || math.IsInf(f, 0) || (f == 0 && math.Signbit(f)) {
			return fmt.Sprintf("math.Float64frombits(0x%016x)", info.bits)
		}
		return "float64(" + strconv.FormatFloat(f, 'g', -1, 64) + ")"
	case vI32:
		return "int32(" + strconv.Itoa(int(int32(uint32(info.bits)))) + ")"
	}
	panic("constant of kind " + info.kind.String())
}

func (g *goGen) def(v val, expr string) {
	name := fmt.Sprintf("v%d", v)
	g.names[v] = name
	fmt.Fprintf(g.w, "\t\t%s := %s\n", name, expr)
}

func (g *goGen) inst(in inst) {
	r := func(i int) string { return g.ref(in.args[i]) }
	f64 := in.kind == vF64
	bits := func(x string) string {
		if f64 {
			return "math.Float64bits(" + x + ")"
		}
		return "math.Float32bits(" + x + ")"
	}
	fromBits := func(x string) string {
		if f64 {
			return "math.Float64frombits(" + x + ")"
		}
		return "math.Float32frombits(" + x + ")"
	}
	ft := goType(in.kind)
	sfx := "32"
	if f64 {
		sfx = "64"
	}
	switch in.op {
	case opParam:
		g.def(in.res, g.k.args[in.imm].name)
	case opLoad:
		x := g.k.args[in.imm].name + "[i]"
		switch in.el {
		case eU16, eU8, eS8, eS16:
			x = "int32(" + x + ")"
		case eF16:
			x = "f16ToF32Quiet(" + x + ")"
		case eMask:
			x = x + " != 0"
		}
		g.def(in.res, x)
	case opStore:
		x := r(0)
		switch in.el {
		case eU16, eBF16, eF16:
			x = "uint16(" + x + ")"
		case eS16:
			x = "int16(" + x + ")"
		case eU8, eE4M3, eE5M2:
			x = "uint8(" + x + ")"
		case eS8:
			x = "int8(" + x + ")"
		case eMask:
			x = "b2u8(" + x + ")"
		}
		fmt.Fprintf(g.w, "\t\t%s[i] = %s\n", g.k.args[in.imm].name, x)
	case opMove:
		g.def(in.res, r(0))
	case opCast:
		if g.p.kind(in.res) == vI32 {
			g.def(in.res, "int32(math.Float32bits("+r(0)+"))")
		} else {
			g.def(in.res, "math.Float32frombits(uint32("+r(0)+"))")
		}
	case opAdd:
		g.def(in.res, r(0)+" + "+r(1))
	case opSub:
		g.def(in.res, r(0)+" - "+r(1))
	case opMul: // the conversion keeps the compiler from fusing it into an FMA
		g.def(in.res, ft+"("+r(0)+" * "+r(1)+")")
	case opDiv:
		g.def(in.res, r(0)+" / "+r(1))
	case opFMA:
		g.def(in.res, "fma"+sfx+"("+r(0)+", "+r(1)+", "+r(2)+")")
	case opFNMA:
		g.def(in.res, "fma"+sfx+"(-"+r(0)+", "+r(1)+", "+r(2)+")")
	case opSqrt:
		if f64 {
			g.def(in.res, "math.Sqrt("+r(0)+")")
		} else {
			g.def(in.res, "float32(math.Sqrt(float64("+r(0)+")))")
		}
	case opMax:
		g.def(in.res, "maxXLA"+sfx+"("+r(0)+", "+r(1)+")")
	case opMin:
		g.def(in.res, "minXLA"+sfx+"("+r(0)+", "+r(1)+")")
	case opMaxC:
		g.def(in.res, "maxc"+sfx+"("+r(0)+", "+r(1)+")")
	case opMinC:
		g.def(in.res, "minc"+sfx+"("+r(0)+", "+r(1)+")")
	case opRound:
		fn := map[int]string{roundNearest: "math.RoundToEven", roundFloor: "math.Floor", roundCeil: "math.Ceil", roundTrunc: "math.Trunc"}[in.imm]
		if f64 {
			g.def(in.res, fn+"("+r(0)+")")
		} else {
			g.def(in.res, "float32("+fn+"(float64("+r(0)+")))")
		}
	case opAnd, opOr, opXor, opAndNot:
		o := map[vop]string{opAnd: " & ", opOr: " | ", opXor: " ^ ", opAndNot: " &^ "}[in.op]
		if in.kind == vI32 {
			g.def(in.res, r(0)+o+r(1))
		} else {
			g.def(in.res, fromBits(bits(r(0))+o+bits(r(1))))
		}
	case opAddI:
		g.def(in.res, r(0)+" + "+r(1))
	case opSubI:
		g.def(in.res, r(0)+" - "+r(1))
	case opShl:
		g.def(in.res, fmt.Sprintf("%s << %d", r(0), in.imm))
	case opShr:
		g.def(in.res, fmt.Sprintf("int32(uint32(%s) >> %d)", r(0), in.imm))
	case opSar:
		g.def(in.res, fmt.Sprintf("%s >> %d", r(0), in.imm))
	case opCvtIF:
		g.def(in.res, "float32("+r(0)+")")
	case opCvtFI:
		g.def(in.res, "cvtfi("+r(0)+")")
	case opCvtFIR:
		g.def(in.res, "cvtfir("+r(0)+")")
	case opLoF64, opHiF64:
		g.def(in.res, "float64("+r(0)+")")
	case opPack32:
		g.def(in.res, "float32("+r(0)+")")
	case opCvtF16:
		g.def(in.res, "int32(f32ToF16("+r(0)+"))")
	case opCmp:
		x, y := r(0), r(1)
		switch in.imm {
		case cmpEQ:
			g.def(in.res, x+" == "+y)
		case cmpNE:
			g.def(in.res, x+" != "+y)
		case cmpLT:
			g.def(in.res, x+" < "+y)
		case cmpLE:
			g.def(in.res, x+" <= "+y)
		case cmpGT:
			g.def(in.res, x+" > "+y)
		case cmpGE:
			g.def(in.res, x+" >= "+y)
		case cmpUnord:
			if x == y {
				g.def(in.res, x+" != "+x)
			} else {
				g.def(in.res, x+" != "+x+" || "+y+" != "+y)
			}
		}
	case opCmpGt:
		g.def(in.res, r(0)+" > "+r(1))
	case opCmpEq:
		g.def(in.res, r(0)+" == "+r(1))
	case opMAnd:
		g.def(in.res, r(0)+" && "+r(1))
	case opMOr:
		g.def(in.res, r(0)+" || "+r(1))
	case opMNot:
		g.def(in.res, "!"+r(0))
	case opBlend:
		g.def(in.res, "sel"+map[vkind]string{vF32: "F32", vI32: "I32", vF64: "F64"}[in.kind]+"("+r(0)+", "+r(1)+", "+r(2)+")")
	default:
		panic(fmt.Sprintf("%s: no Go code for %v", g.k.name, in.op))
	}
}
