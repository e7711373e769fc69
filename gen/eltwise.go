package main

import (
	"bytes"
	"fmt"
	"go/format"
	"math"
	"strings"
)

// The eltwise family: elementwise kernels (arithmetic, comparisons, select,
// elementary functions, conversions) as vector programs (vprog.go), each
// emitted for AVX-512, AVX2 and NEON and as its pure-Go twin. The root
// package's exported functions call them through the table of the chosen
// level (kernels_tables_<arch>.go, eltwise_twin.go).

func unaryF32(name, doc string, f func(b *vb, x val) val) *vkernel {
	return &vkernel{name: name + "F32", doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32)},
		body: func(c *kctx) { c.out(0, f(c.b, c.in(1))) }}
}

func binaryF32(name, doc string, f func(b *vb, x, y val) val) *vkernel {
	return &vkernel{name: name + "F32", doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), sliceArg("y", eF32)},
		body: func(c *kctx) { c.out(0, f(c.b, c.in(1), c.in(2))) }}
}

func binaryF64(name, doc string, f func(b *vb, x, y val) val) *vkernel {
	return &vkernel{name: name + "F64", doc: doc, lane: vF64, unroll: 4,
		args: []karg{sliceArg("dst", eF64), sliceArg("x", eF64), sliceArg("y", eF64)},
		body: func(c *kctx) { c.out(0, f(c.b, c.in(1), c.in(2))) }}
}

// scalarF32 is f(x[i], s) for a scalar s.
func scalarF32(name, doc string, f func(b *vb, x, s val) val) *vkernel {
	return &vkernel{name: name + "F32", doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("s")},
		body: func(c *kctx) { c.out(0, f(c.b, c.in(1), c.scalar(2))) }}
}

// scalars2F32 is f(x[i], a, b) for scalars a, b.
func scalars2F32(name, doc string, f func(b *vb, x, s, t val) val) *vkernel {
	return &vkernel{name: name + "F32", doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("a"), f32Arg("b")},
		body: func(c *kctx) { c.out(0, f(c.b, c.in(1), c.scalar(2), c.scalar(3))) }}
}

func compareF32(name, doc string, pred int) *vkernel {
	return &vkernel{name: name + "F32", doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", eMask), sliceArg("x", eF32), sliceArg("y", eF32)},
		body: func(c *kctx) { c.out(0, c.b.cmp(pred, c.in(1), c.in(2))) }}
}

func compareScalarF32(name, doc string, pred int) *vkernel {
	return &vkernel{name: name + "F32", doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", eMask), sliceArg("x", eF32), f32Arg("s")},
		body: func(c *kctx) { c.out(0, c.b.cmp(pred, c.in(1), c.scalar(2))) }}
}

// convert is a conversion kernel between element types.
func convert(name, doc string, to, from elem, f func(b *vb, x val) val) *vkernel {
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 4,
		args: []karg{sliceArg("dst", to), sliceArg("x", from)},
		body: func(c *kctx) { c.out(0, f(c.b, c.in(1))) }}
}

// iotaKernel is a kernel writing the index sequence start, start+1, … through f.
func iotaKernel(name, doc string, e elem, f func(b *vb, idx val) val) *vkernel {
	return &vkernel{name: name, doc: doc, lane: vF32, unroll: 4, noTwin: true,
		args:       []karg{sliceArg("dst", e), i32Arg("start")},
		shared:     1,
		initShared: func(c *kctx) []val { return []val{c.b.addi(c.b.iota(), c.scalar(1))} },
		body: func(c *kctx) {
			b := c.b
			pos := c.sharedState(0)
			idx := pos
			if c.copy > 0 {
				idx = b.addi(pos, b.i32(int32(c.copy*c.lanes())))
			}
			c.out(0, f(b, idx))
			if c.copy == c.copies-1 {
				c.setShared(0, b.addi(pos, b.i32(int32(c.copies*c.lanes()))))
			}
		},
	}
}

// nt asks for a kernel's non-temporal variant too.
func nt(k *vkernel) *vkernel {
	k.ntVariant = true
	return k
}

// same is the identity: a conversion done by the load and the store alone.
func same(b *vb, x val) val { return x }

func flip(f func(b *vb, x, y val) val) func(b *vb, x, y val) val {
	return func(b *vb, x, y val) val { return f(b, y, x) }
}

// eltwiseKernels lists the family's kernels.
func eltwiseKernels() []*vkernel {
	one := func(b *vb) val { return b.f32(1) }
	return []*vkernel{
		nt(binaryF32("add", "sets dst[i] = x[i] + y[i]", (*vb).add)),
		nt(binaryF32("sub", "sets dst[i] = x[i] - y[i]", (*vb).sub)),
		nt(binaryF32("mul", "sets dst[i] = x[i] * y[i]", (*vb).mul)),
		nt(binaryF32("div", "sets dst[i] = x[i] / y[i]", (*vb).div)),
		binaryF32("max", "sets dst[i] = max(x[i], y[i]) (XLA: NaN-propagating, -0 < +0)", (*vb).max),
		binaryF32("min", "sets dst[i] = min(x[i], y[i]) (XLA: NaN-propagating, -0 < +0)", (*vb).min),
		binaryF32("pow", "sets dst[i] = x[i]^y[i]", vpow),

		nt(scalarF32("addScalar", "sets dst[i] = x[i] + s", (*vb).add)),
		scalarF32("subScalar", "sets dst[i] = x[i] - s", (*vb).sub),
		scalarF32("rsubScalar", "sets dst[i] = s - x[i]", flip((*vb).sub)),
		nt(scalarF32("mulScalar", "sets dst[i] = x[i] * s", (*vb).mul)),
		scalarF32("divScalar", "sets dst[i] = x[i] / s", (*vb).div),
		scalarF32("rdivScalar", "sets dst[i] = s / x[i]", flip((*vb).div)),
		scalarF32("maxScalar", "sets dst[i] = max(x[i], s) (XLA semantics)", (*vb).max),
		scalarF32("minScalar", "sets dst[i] = min(x[i], s) (XLA semantics)", (*vb).min),
		scalarF32("powScalar", "sets dst[i] = x[i]^s", vpow),
		scalarF32("rpowScalar", "sets dst[i] = s^x[i]", flip(vpow)),
		scalars2F32("clamp", "sets dst[i] = min(max(x[i], a), b) (XLA's clamp with lo = a, hi = b)", func(b *vb, x, lo, hi val) val {
			return b.min(b.max(x, lo), hi)
		}),
		scalars2F32("mulAddScalars", "sets dst[i] = x[i]*a + b, rounded once", func(b *vb, x, s, t val) val { return b.fma(x, s, t) }),
		{name: "mulAddF32", doc: "sets dst[i] = x[i]*y[i] + z[i], rounded once", lane: vF32, unroll: 4, ntVariant: true,
			args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), sliceArg("y", eF32), sliceArg("z", eF32)},
			body: func(c *kctx) { c.out(0, c.b.fma(c.in(1), c.in(2), c.in(3))) }},
		{name: "mulScalarAddF32", doc: "sets dst[i] = x[i]*s + y[i], rounded once", lane: vF32, unroll: 4, ntVariant: true,
			args: []karg{sliceArg("dst", eF32), sliceArg("x", eF32), f32Arg("s"), sliceArg("y", eF32)},
			body: func(c *kctx) { c.out(0, c.b.fma(c.in(1), c.scalar(2), c.in(3))) }},

		compareF32("equal", "sets dst[i] = 1 if x[i] == y[i], else 0", cmpEQ),
		compareF32("notEqual", "sets dst[i] = 1 if x[i] != y[i] (NaN included), else 0", cmpNE),
		compareF32("less", "sets dst[i] = 1 if x[i] < y[i], else 0", cmpLT),
		compareF32("lessEqual", "sets dst[i] = 1 if x[i] <= y[i], else 0", cmpLE),
		compareF32("greater", "sets dst[i] = 1 if x[i] > y[i], else 0", cmpGT),
		compareF32("greaterEqual", "sets dst[i] = 1 if x[i] >= y[i], else 0", cmpGE),
		compareScalarF32("equalScalar", "sets dst[i] = 1 if x[i] == s, else 0", cmpEQ),
		compareScalarF32("notEqualScalar", "sets dst[i] = 1 if x[i] != s, else 0", cmpNE),
		compareScalarF32("lessScalar", "sets dst[i] = 1 if x[i] < s, else 0", cmpLT),
		compareScalarF32("lessEqualScalar", "sets dst[i] = 1 if x[i] <= s, else 0", cmpLE),
		compareScalarF32("greaterScalar", "sets dst[i] = 1 if x[i] > s, else 0", cmpGT),
		compareScalarF32("greaterEqualScalar", "sets dst[i] = 1 if x[i] >= s, else 0", cmpGE),
		{name: "selectF32", doc: "sets dst[i] = x[i] if mask[i] != 0, else y[i]", lane: vF32, unroll: 4,
			args: []karg{sliceArg("dst", eF32), sliceArg("mask", eMask), sliceArg("x", eF32), sliceArg("y", eF32)},
			body: func(c *kctx) { c.out(0, c.b.blend(c.in(1), c.in(2), c.in(3))) }},

		unaryF32("neg", "sets dst[i] = -x[i]", (*vb).neg),
		unaryF32("abs", "sets dst[i] = |x[i]|", (*vb).abs),
		unaryF32("sqrt", "sets dst[i] = sqrt(x[i])", (*vb).sqrt),
		unaryF32("rsqrt", "sets dst[i] = 1/sqrt(x[i])", func(b *vb, x val) val { return b.div(one(b), b.sqrt(x)) }),
		unaryF32("reciprocal", "sets dst[i] = 1/x[i]", func(b *vb, x val) val { return b.div(one(b), x) }),
		nt(unaryF32("exp", "sets dst[i] = e^x[i]", vexp)),
		unaryF32("expm1", "sets dst[i] = e^x[i] - 1", vexpm1),
		unaryF32("log", "sets dst[i] = ln(x[i])", vlog),
		unaryF32("log1p", "sets dst[i] = ln(1 + x[i])", vlog1p),
		unaryF32("tanh", "sets dst[i] = tanh(x[i])", vtanh),
		unaryF32("logistic", "sets dst[i] = 1/(1 + e^-x[i])", vlogistic),
		unaryF32("silu", "sets dst[i] = x[i]·logistic(x[i]) (SiLU, swish)", vsilu),
		unaryF32("erf", "sets dst[i] = erf(x[i])", verf),
		unaryF32("gelu", "sets dst[i] = x[i]·Φ(x[i]) (the erf form)", vgelu),
		unaryF32("geluFast", "sets dst[i] = x[i]·Φ(x[i]) (the erf form) in float32 lanes", vgeluFast),
		unaryF32("geluTanh", "sets dst[i] to the tanh approximation of GELU at x[i]", vgeluTanh),
		unaryF32("sinCore", "sets dst[i] = sin(x[i]) for |x[i]| < 2^28, x[i] for larger finite x[i]", vsin),
		unaryF32("cosCore", "sets dst[i] = cos(x[i]) for |x[i]| < 2^28, x[i] for larger finite x[i]", vcos),
		unaryF32("floor", "sets dst[i] = floor(x[i])", func(b *vb, x val) val { return b.round(x, roundFloor) }),
		unaryF32("ceil", "sets dst[i] = ceil(x[i])", func(b *vb, x val) val { return b.round(x, roundCeil) }),
		unaryF32("roundToEven", "rounds x[i] to the nearest integer, ties to even", func(b *vb, x val) val { return b.round(x, roundNearest) }),
		unaryF32("round", "rounds x[i] to the nearest integer, ties away from zero", vroundAway),
		unaryF32("sign", "sets dst[i] to the sign of x[i] (±1, or x[i] for ±0 and NaN)", vsign),
		// maxc leaves ±0 ties to the target (x86 keeps x, NEON gives +0);
		// adding +0 makes every zero +0, as XLA's max(x, 0) does.
		unaryF32("relu", "sets dst[i] = max(x[i], 0) (XLA semantics)", func(b *vb, x val) val {
			z := b.f32(0)
			return b.add(b.maxc(x, z), z)
		}),

		convert("f32ToF16", "rounds x[i] to IEEE binary16 bits, to nearest even", eF16, eF32, same),
		convert("f16ToF32", "widens IEEE binary16 bits x[i] to float32", eF32, eF16, same),
		convert("f32ToBF16", "rounds x[i] to bfloat16 bits, to nearest even", eBF16, eF32, same),
		convert("bf16ToF32", "widens bfloat16 bits x[i] to float32", eF32, eBF16, same),
		convert("f32ToS32", "converts x[i] to int32 as XLA does (toward zero, saturating, NaN to 0)", eI32, eF32, vf32ToS32),
		convert("s32ToF32", "converts x[i] to float32, to nearest even", eF32, eI32, (*vb).cvtif),
		convert("u8ToF32", "converts x[i] to float32", eF32, eU8, (*vb).cvtif),
		convert("s8ToF32", "converts x[i] to float32", eF32, eS8, (*vb).cvtif),
		convert("u16ToF32", "converts x[i] to float32", eF32, eU16, (*vb).cvtif),
		convert("s16ToF32", "converts x[i] to float32", eF32, eS16, (*vb).cvtif),
		convert("f32ToS8", "converts x[i] to int8 as XLA does (toward zero, saturating, NaN to 0)", eS8, eF32, func(b *vb, x val) val { return vf32ToInt(b, x, math.MinInt8, math.MaxInt8) }),
		convert("f32ToU8", "converts x[i] to uint8 as XLA does (toward zero, saturating, NaN to 0)", eU8, eF32, func(b *vb, x val) val { return vf32ToInt(b, x, 0, math.MaxUint8) }),
		convert("f32ToS16", "converts x[i] to int16 as XLA does (toward zero, saturating, NaN to 0)", eS16, eF32, func(b *vb, x val) val { return vf32ToInt(b, x, math.MinInt16, math.MaxInt16) }),
		convert("f32ToU16", "converts x[i] to uint16 as XLA does (toward zero, saturating, NaN to 0)", eU16, eF32, func(b *vb, x val) val { return vf32ToInt(b, x, 0, math.MaxUint16) }),
		convert("f32ToE4M3", "rounds x[i] to float8_e4m3fn bits, to nearest even (beyond ±448 and ±Inf: NaN)", eE4M3, eF32, same),
		convert("e4m3ToF32", "widens float8_e4m3fn bits x[i] to float32", eF32, eE4M3, same),
		convert("f32ToE5M2", "rounds x[i] to float8_e5m2 bits, to nearest even", eE5M2, eF32, same),
		convert("e5m2ToF32", "widens float8_e5m2 bits x[i] to float32", eF32, eE5M2, same),
		convert("bf16ToF16", "rounds bfloat16 bits x[i] to IEEE binary16 bits, to nearest even", eF16, eBF16, same),
		convert("f16ToBF16", "rounds IEEE binary16 bits x[i] to bfloat16 bits, to nearest even", eBF16, eF16, same),
		convert("roundBF16F32", "rounds x[i] to the nearest bfloat16 value, kept as float32", eF32, eF32, func(b *vb, x val) val { return b.asF32(b.shl(vf32ToBF16(b, x), 16)) }),
		convert("roundF16F32", "rounds x[i] to the nearest IEEE binary16 value, kept as float32", eF32, eF32, func(b *vb, x val) val {
			h := vf32ToF16(b, x)
			return vf16ToF32(b, h)
		}),

		{name: "fillF32", doc: "sets every dst[i] = s", lane: vF32, unroll: 4, ntVariant: true,
			args: []karg{sliceArg("dst", eF32), f32Arg("s")},
			body: func(c *kctx) { c.out(0, c.scalar(1)) }},
		iotaKernel("iotaF32", "sets dst[i] = float32(start + i)", eF32, (*vb).cvtif),
		iotaKernel("iotaS32", "sets dst[i] = start + i", eI32, func(b *vb, v val) val { return v }),

		binaryF64("add", "sets dst[i] = x[i] + y[i]", (*vb).add),
		binaryF64("sub", "sets dst[i] = x[i] - y[i]", (*vb).sub),
		binaryF64("mul", "sets dst[i] = x[i] * y[i]", (*vb).mul),
		binaryF64("div", "sets dst[i] = x[i] / y[i]", (*vb).div),
		binaryF64("max", "sets dst[i] = max(x[i], y[i]) (XLA semantics)", (*vb).max),
		binaryF64("min", "sets dst[i] = min(x[i], y[i]) (XLA semantics)", (*vb).min),
	}
}

func generateEltwise(o *output) error {
	ks := withTyped(eltwiseKernels(), eltwiseTyped)
	if err := generateStreamFamily(o, "eltwise", ks); err != nil {
		return err
	}
	o.shared = append(o.shared, outFile{"eltwise_typed.go", typedWrappers("eltwise", ks, eltwiseTyped)})
	return nil
}

// generateStreamFamily adds a family of vector-program kernels: the amd64
// and arm64 assembly, each level's table entry (a pointer to the family's
// kernel set) and the Go file with the kernel-set type and the twins.
func generateStreamFamily(o *output, family string, ks []*vkernel) error {
	typ := family + "Kernels"
	// The table's fields: every kernel, then the non-temporal variants.
	fields := make([]string, 0, len(ks))
	for _, k := range ks {
		fields = append(fields, k.name)
	}
	var nts []*vkernel
	for _, k := range ks {
		if k.ntVariant {
			nts = append(nts, ntClone(k))
			fields = append(fields, k.name+"NT")
		}
	}
	// amd64
	pool := newConstPool(o.amd64, family+"Consts")
	x86Names := map[*target][]string{}
	for _, t := range []*target{tAVX512, tAVX2} {
		for _, k := range append(append([]*vkernel(nil), ks...), nts...) {
			name, err := emitX86VKernel(o.amd64, pool, k, t)
			if err != nil {
				return err
			}
			x86Names[t] = append(x86Names[t], name)
		}
	}
	// arm64
	var neonNames []string
	for _, k := range ks {
		name, err := emitNEONVKernel(o.arm64, k)
		if err != nil {
			return err
		}
		neonNames = append(neonNames, name)
	}
	for _, k := range ks {
		if k.ntVariant { // NEON stores as usual
			neonNames = append(neonNames, k.name+tNEON.name)
		}
	}
	// The kernels that store bfloat16 again for AVX512_BF16 (VCVTNEPS2BF16).
	bf16Names := append([]string(nil), x86Names[tAVX512]...)
	for i, k := range ks {
		if storesBF16(k) {
			name, err := emitX86VKernel(o.amd64, pool, k, tAVX512BF16)
			if err != nil {
				return err
			}
			bf16Names[i] = name
		}
	}
	pool.emit(o.amd64)
	entry := func(t *target, names []string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "&%s{\nlanes: %d,\n", typ, t.lanes(vF32))
		for i, field := range fields {
			fmt.Fprintf(&b, "%s: %s,\n", field, names[i])
		}
		b.WriteString("}")
		return b.String()
	}
	o.set("levelAVX512", family, entry(tAVX512, x86Names[tAVX512]))
	o.set("levelAVX512BF16", family, entry(tAVX512, bf16Names))
	o.set("levelAVX2", family, entry(tAVX2, x86Names[tAVX2]))
	o.set("levelNEON", family, entry(tNEON, neonNames))
	o.shared = append(o.shared, outFile{family + "_twin.go", streamTwins(family, typ, ks, nts)})
	return nil
}

// storesBF16 reports whether a kernel stores to a bfloat16 slice.
func storesBF16(k *vkernel) bool {
	for _, a := range k.args {
		if a.kind == aSlice && a.elem == eBF16 && a.name == "dst" {
			return true
		}
	}
	return false
}

// streamTwins writes the Go file shared by every build: the type of a
// family's kernel set, the set of twins (the generic level) and the twins.
func streamTwins(family, typ string, ks, nts []*vkernel) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by command: %s. DO NOT EDIT.\n\npackage kiln\n\nimport \"math\"\n\n", generatedBy)
	fmt.Fprintf(&b, "// %s is the %s family's kernels of one instruction-set level. The\n", typ, family)
	b.WriteString("// assembly kernels take whole vectors only: their slices' length must be a\n")
	b.WriteString("// multiple of lanes (float32 lanes; half as many float64 lanes), and the\n")
	b.WriteString("// Go twin handles the rest. The twins' set has lanes 1.\n")
	fmt.Fprintf(&b, "type %s struct {\n\tlanes int\n", typ)
	for _, k := range append(append([]*vkernel(nil), ks...), nts...) {
		fmt.Fprintf(&b, "\t%s func%s\n", k.name, k.signature())
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "// %sGo is the set of pure-Go twins, the generic level.\n", family)
	fmt.Fprintf(&b, "var %sGo = &%s{\n\tlanes: 1,\n", family, typ)
	for _, k := range ks {
		fmt.Fprintf(&b, "\t%s: %sGo,\n", k.name, k.name)
	}
	for _, k := range nts {
		fmt.Fprintf(&b, "\t%s: %sGo,\n", k.name, k.name[:len(k.name)-2])
	}
	b.WriteString("}\n")
	for _, k := range ks {
		if !k.noTwin {
			goTwin(&b, k)
		}
	}
	b.WriteString("\nvar _ = math.Float32bits\n")
	return mustFormat(b.Bytes())
}

func mustFormat(src []byte) []byte {
	out, err := format.Source(src)
	if err != nil {
		panic(fmt.Sprintf("generated Go does not parse: %v\n%s", err, src))
	}
	return out
}
