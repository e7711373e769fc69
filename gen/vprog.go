package main

import (
	"fmt"
	"math"
)

// The vector program: the streaming kernel families (eltwise, reduce) write
// each kernel once, as a straight-line program over vectors, and four
// backends turn it into code: AVX-512 and AVX2 (vx86.go, through avo), NEON
// (vneon.go, through the asm package) and Go (vgo.go: the pure-Go twin,
// which runs the same operations one element at a time).
//
// Every operation has one meaning, the same on every backend, so that the
// twin and the assembly agree bit for bit (NaN payloads aside). Composite
// operations whose best instruction sequence differs per target (XLA's
// NaN-propagating max, say) are expanded by the builder for the target it
// builds for; the backends see only the primitive operations below.

// vkind is the kind of a program value: a vector of lanes of one type, or a
// lane mask (the result of a comparison).
type vkind uint8

const (
	vF32 vkind = iota // float32 lanes
	vI32              // int32 lanes, in the same registers as float32
	vF64              // float64 lanes (half as many)
	vM32              // mask over 32-bit lanes
	vM64              // mask over 64-bit lanes
)

var vkindNames = [...]string{vF32: "f32", vI32: "i32", vF64: "f64", vM32: "m32", vM64: "m64"}

func (k vkind) String() string { return vkindNames[k] }

func (k vkind) isMask() bool { return k == vM32 || k == vM64 }

// maskOf is the mask kind of comparisons between values of kind k.
func (k vkind) maskOf() vkind {
	if k == vF64 {
		return vM64
	}
	return vM32
}

// elem is the element type of a stream in memory and how it converts to and
// from a vector kind on load and store.
type elem uint8

const (
	eF32  elem = iota // float32 ↔ vF32
	eI32              // int32 ↔ vI32
	eF64              // float64 ↔ vF64
	eU16              // uint16 → vI32 zero-extended; vI32 → its low 16 bits
	eU8               // uint8 → vI32 zero-extended; vI32 → its low 8 bits
	eS8               // int8 → vI32 sign-extended; vI32 → its low 8 bits
	eMask             // uint8 0/1 ↔ vM32 (load: non-zero is true; store: true is 1)
	eS16              // int16 → vI32 sign-extended; vI32 → its low 16 bits
	// The narrow floating-point types, as their bits. A load widens them to
	// vF32 exactly; a store takes the bits (vI32) that kctx.out rounded the
	// float32 value to, with XLA's rounding.
	eBF16 // bfloat16 (uint16 bits)
	eF16  // IEEE binary16 (uint16 bits)
	eE4M3 // float8_e4m3fn (uint8 bits): loaded as eU8, widened by the program
	eE5M2 // float8_e5m2 (uint8 bits): loaded as eU8, widened by the program
)

var elemGo = [...]string{eF32: "float32", eI32: "int32", eF64: "float64", eU16: "uint16", eU8: "uint8", eS8: "int8", eMask: "uint8",
	eS16: "int16", eBF16: "uint16", eF16: "uint16", eE4M3: "uint8", eE5M2: "uint8"}
var elemSize = [...]int{eF32: 4, eI32: 4, eF64: 8, eU16: 2, eU8: 1, eS8: 1, eMask: 1, eS16: 2, eBF16: 2, eF16: 2, eE4M3: 1, eE5M2: 1}

// kind is the vector kind a stream of e loads to.
func (e elem) kind() vkind {
	switch e {
	case eF32, eBF16, eF16, eE4M3, eE5M2:
		return vF32
	case eF64:
		return vF64
	case eMask:
		return vM32
	}
	return vI32
}

// storeKind is the vector kind a store of e takes on t: the narrow floats'
// bits (kctx.out rounds to them), or float32 for bfloat16 on targets that
// round in the store.
func (e elem) storeKind(t *target) vkind {
	if e == eBF16 && t.nativeBF16 {
		return vF32
	}
	switch e {
	case eBF16, eF16, eE4M3, eE5M2:
		return vI32
	}
	return e.kind()
}

// rawLoad is the element a load of e reads from memory: bfloat16 and the
// float8 types are read as integers and widened by the program; binary16
// is widened by the load (F16C, FCVTL), with signalling NaNs quieted, and
// the program restores them.
func (e elem) rawLoad() elem {
	switch e {
	case eBF16:
		return eU16
	case eE4M3, eE5M2:
		return eU8
	}
	return e
}

// narrowFloat reports the narrow floating-point elements.
func (e elem) narrowFloat() bool { return e == eBF16 || e == eF16 || e == eE4M3 || e == eE5M2 }

// vop is a primitive operation.
type vop uint8

const (
	opNone vop = iota
	// values
	opConst // a broadcast constant (bits)
	opIota  // the lane numbers 0, 1, … as int32
	opParam // a scalar argument broadcast to every lane (imm: argument index)
	opLoad  // imm: stream argument index, imm2: vector offset (the unrolled copy)
	opStore // args: value; imm, imm2 as opLoad
	opMove  // a register copy (state initial values; moves inserted by allocation)
	opCast  // the same bits as another 32-bit kind (free unless the operand stays live)
	// floating point, kind vF32 or vF64
	opAdd
	opSub
	opMul
	opDiv
	opFMA  // a·b + c, rounded once
	opFNMA // c − a·b, rounded once
	opSqrt
	opMax  // XLA's maximum: NaN if either is NaN, −0 < +0 (targets with maxMinXLA only)
	opMin  // XLA's minimum
	opMaxC // args (x, c): c > x ? c : x — a NaN x stays NaN; a tie of ±0 is target-dependent (canonicalise it, e.g. by adding +0)
	opMinC // args (x, c): c < x ? c : x
	opRound
	opLdexp // (p, n): p·2^n rounded once, n integral (targets with nativeLdexp only)
	// bitwise, any non-mask kind
	opAnd
	opOr
	opXor
	opAndNot // a &^ b
	// int32
	opAddI
	opSubI
	opShl // imm: count
	opShr // logical
	opSar // arithmetic
	// conversions
	opCvtIF  // int32 → float32, round to nearest even
	opCvtFI  // float32 → int32 toward zero; only |x| < 2^31 is defined
	opCvtFIR // float32 → int32 to nearest even; only |x| < 2^31 is defined
	opLoF64  // float32 lanes of the lower half → float64
	opHiF64  // float32 lanes of the upper half → float64
	opPack32 // (lo, hi float64) → float32, round to nearest even
	opCvtF16 // float32 → IEEE binary16 bits in int32 lanes, to nearest even (NaN lanes unspecified)
	// comparisons → mask
	opCmp   // imm: predicate; kind vF32 or vF64
	opCmpGt // int32 signed a > b
	opCmpEq // int32 a == b
	// masks
	opMAnd
	opMOr
	opMNot
	opBlend // (m, a, b): m ? a : b
	// lane movement
	opShuf // imm: width w; lanes i < w/2 take lane i + w/2 (the others are unspecified)
	// results
	opRet    // imm: result index; stores lane 0 (a float32 or float64 result)
	opRetVec // imm: result index; stores every lane (an array result)
)

// Comparison predicates of opCmp. NaN operands compare false except under
// cmpNE and cmpUnord.
const (
	cmpEQ = iota
	cmpNE
	cmpLT
	cmpLE
	cmpGT
	cmpGE
	cmpUnord
)

// Rounding modes of opRound.
const (
	roundNearest = iota // ties to even
	roundFloor
	roundCeil
	roundTrunc
)

var vopNames = map[vop]string{
	opConst: "const", opIota: "iota", opParam: "param", opLoad: "load", opStore: "store", opMove: "move", opCast: "cast",
	opAdd: "add", opSub: "sub", opMul: "mul", opDiv: "div", opFMA: "fma", opFNMA: "fnma", opSqrt: "sqrt",
	opMax: "max", opMin: "min", opMaxC: "maxc", opMinC: "minc", opRound: "round", opLdexp: "ldexp",
	opAnd: "and", opOr: "or", opXor: "xor", opAndNot: "andnot",
	opAddI: "addi", opSubI: "subi", opShl: "shl", opShr: "shr", opSar: "sar",
	opCvtIF: "cvtif", opCvtFI: "cvtfi", opCvtFIR: "cvtfir", opLoF64: "lof64", opHiF64: "hif64", opPack32: "pack32", opCvtF16: "cvtf16",
	opCmp: "cmp", opCmpGt: "cmpgt", opCmpEq: "cmpeq", opMAnd: "mand", opMOr: "mor", opMNot: "mnot", opBlend: "blend",
	opShuf: "shuf", opRet: "ret", opRetVec: "retvec",
}

func (o vop) String() string { return vopNames[o] }

// val names a program value; 0 is no value.
type val int32

// vinfo is what the program knows of a value.
type vinfo struct {
	kind   vkind
	konst  bool   // a constant: bits holds its lane value
	bits   uint64 // float32 bits in the low half, or float64/int bits
	pinned bool   // lives in one register for the whole kernel (parameters, states, the lane numbers)
}

// inst is one operation of a block.
type inst struct {
	op   vop
	kind vkind // the kind the operation works on
	el   elem  // loads and stores: the stream's element
	args []val
	res  val
	imm  int
	imm2 int
}

// block is a straight-line sequence of operations.
type block []inst

// prog is one kernel's program: the prologue runs once, body once per
// unrolled iteration of the main loop, tail once per single-vector
// iteration, epilogue once at the end.
type prog struct {
	vals   []vinfo // indexed by val; vals[0] unused
	consts map[constKey]val
	pro    block
	body   block
	tail   block
	flush  block
	epi    block
}

func newProg() *prog {
	return &prog{vals: make([]vinfo, 1), consts: map[constKey]val{}}
}

func (p *prog) newVal(k vkind) val {
	p.vals = append(p.vals, vinfo{kind: k})
	return val(len(p.vals) - 1)
}

func (p *prog) kind(v val) vkind { return p.vals[v].kind }

// target describes what a backend offers the builder: the register file and
// which composite operations it has as single instructions.
type target struct {
	name      string // "AVX512", "AVX2", "NEON", "Go"
	vecBytes  int    // vector width; 4 for the Go backend (one float32 lane)
	vecRegs   int
	maskRegs  int  // opmask registers; 0 when masks live in vector registers
	maxMinXLA bool // opMax/opMin exist (NEON FMAX/FMIN, Go); otherwise they are expanded
	scalar    bool // the Go backend: one lane, no horizontal operations
	// nativeLdexp: opLdexp is one instruction (AVX-512's VSCALEFPS).
	nativeLdexp bool
	// nativeBF16: a store to bfloat16 takes the float32 value and rounds it
	// itself (AVX512_BF16); elsewhere kctx.out rounds with integer operations.
	nativeBF16 bool
	// destructive lists the operand positions an instruction's result may
	// overwrite, for instructions that have no separate destination (nil:
	// the result is a separate register, which may still equal an operand's).
	destructive func(in *inst) []int
	// scratch is the number of vector registers an instruction needs besides
	// its operands and result.
	scratch func(in *inst) int
}

var (
	tAVX512 = &target{name: "AVX512", vecBytes: 64, vecRegs: 32, maskRegs: 7, nativeLdexp: true}
	// tAVX512BF16 is AVX-512 with AVX512_BF16: stores to bfloat16 round with
	// VCVTNEPS2BF16 (vx86.go's storeBF16), which takes K6 and K7 as scratch.
	tAVX512BF16 = &target{name: "AVX512BF16", vecBytes: 64, vecRegs: 32, maskRegs: 5, nativeLdexp: true, nativeBF16: true}
	tAVX2       = &target{name: "AVX2", vecBytes: 32, vecRegs: 16}
	tNEON       = &target{name: "NEON", vecBytes: 16, vecRegs: 32, maxMinXLA: true}
	tGo         = &target{name: "Go", vecBytes: 4, vecRegs: 1 << 20, maxMinXLA: true, scalar: true}
)

// lanes is the number of lanes of kind k in one vector.
func (t *target) lanes(k vkind) int {
	if k == vF64 || k == vM64 {
		return max(1, t.vecBytes/8)
	}
	return t.vecBytes / 4
}

// vb builds a program for one target; the kernel's code calls its methods.
type vb struct {
	t   *target
	p   *prog
	cur *block
}

func (b *vb) emit(op vop, k vkind, res vkind, args ...val) val {
	in := inst{op: op, kind: k, args: args}
	if res != 255 {
		in.res = b.p.newVal(res)
	}
	*b.cur = append(*b.cur, in)
	return in.res
}

const noResult vkind = 255

func (b *vb) check(want vkind, vs ...val) {
	for _, v := range vs {
		if v == 0 {
			panic("vector program: use of a missing value")
		}
		if got := b.p.kind(v); got != want {
			panic(fmt.Sprintf("vector program: operand of kind %v where %v is expected", got, want))
		}
	}
}

func (b *vb) float(vs ...val) vkind {
	k := b.p.kind(vs[0])
	if k != vF32 && k != vF64 {
		panic(fmt.Sprintf("vector program: floating-point operation on %v", k))
	}
	b.check(k, vs...)
	return k
}

// ---- values ----

type constKey struct {
	kind vkind
	bits uint64
}

// constBits is a constant of kind k with the given lane bits.
func (b *vb) constBits(k vkind, bits uint64) val {
	key := constKey{k, bits}
	if v, ok := b.p.consts[key]; ok {
		return v
	}
	v := b.p.newVal(k)
	b.p.vals[v].konst = true
	b.p.vals[v].bits = bits
	b.p.consts[key] = v
	return v
}

// f32 is a float32 constant.
func (b *vb) f32(x float32) val { return b.constBits(vF32, uint64(math.Float32bits(x))) }

// f64 is a float64 constant.
func (b *vb) f64(x float64) val { return b.constBits(vF64, math.Float64bits(x)) }

// i32 is an int32 constant.
func (b *vb) i32(x int32) val { return b.constBits(vI32, uint64(uint32(x))) }

// u32 is a float32 constant given by its bits.
func (b *vb) u32(bits uint32) val { return b.constBits(vF32, uint64(bits)) }

// fconst is a constant of the float kind k.
func (b *vb) fconst(k vkind, x float64) val {
	if k == vF64 {
		return b.f64(x)
	}
	return b.f32(float32(x))
}

// ---- arithmetic ----

func (b *vb) add(x, y val) val { return b.emit(opAdd, b.float(x, y), b.float(x), x, y) }
func (b *vb) sub(x, y val) val { return b.emit(opSub, b.float(x, y), b.float(x), x, y) }
func (b *vb) mul(x, y val) val { return b.emit(opMul, b.float(x, y), b.float(x), x, y) }
func (b *vb) div(x, y val) val { return b.emit(opDiv, b.float(x, y), b.float(x), x, y) }
func (b *vb) sqrt(x val) val   { return b.emit(opSqrt, b.float(x), b.float(x), x) }
func (b *vb) fma(x, y, z val) val {
	k := b.float(x, y, z)
	return b.emit(opFMA, k, k, x, y, z)
}

// fnma is z − x·y, rounded once.
func (b *vb) fnma(x, y, z val) val {
	k := b.float(x, y, z)
	return b.emit(opFNMA, k, k, x, y, z)
}

// maxc is max(x, c) for a constant (or at least non-zero, non-NaN) c; a NaN x stays NaN.
func (b *vb) maxc(x, c val) val { return b.emit(opMaxC, b.float(x, c), b.float(x), x, c) }

// minc is min(x, c) for a constant c; a NaN x stays NaN.
func (b *vb) minc(x, c val) val { return b.emit(opMinC, b.float(x, c), b.float(x), x, c) }

func (b *vb) round(x val, mode int) val {
	k := b.float(x)
	v := b.emit(opRound, k, k, x)
	(*b.cur)[len(*b.cur)-1].imm = mode
	return v
}

// max is XLA's maximum: NaN when either operand is NaN, and −0 < +0.
func (b *vb) max(x, y val) val {
	k := b.float(x, y)
	if b.t.maxMinXLA {
		return b.emit(opMax, k, k, x, y)
	}
	// x > y, or x NaN: x. Equal (only ±0 differ): x & y, so +0 wins. Else y
	// (which covers a NaN y).
	gt := b.or(b.cmp(cmpGT, x, y), b.cmp(cmpUnord, x, x))
	eq := b.cmp(cmpEQ, x, y)
	return b.blend(gt, x, b.blend(eq, b.and(x, y), y))
}

// min is XLA's minimum: NaN when either operand is NaN, and −0 < +0.
func (b *vb) min(x, y val) val {
	k := b.float(x, y)
	if b.t.maxMinXLA {
		return b.emit(opMin, k, k, x, y)
	}
	lt := b.or(b.cmp(cmpLT, x, y), b.cmp(cmpUnord, x, x))
	eq := b.cmp(cmpEQ, x, y)
	return b.blend(lt, x, b.blend(eq, b.orBits(x, y), y))
}

// ---- bitwise ----

func (b *vb) bitwise(op vop, x, y val) val {
	k := b.p.kind(x)
	if k.isMask() {
		panic("vector program: bitwise operation on a mask")
	}
	b.check(k, y)
	return b.emit(op, k, k, x, y)
}

func (b *vb) and(x, y val) val {
	if b.p.kind(x).isMask() {
		return b.mand(x, y)
	}
	return b.bitwise(opAnd, x, y)
}

// or is a mask or, or (for values) the bitwise or.
func (b *vb) or(x, y val) val {
	if b.p.kind(x).isMask() {
		b.check(b.p.kind(x), y)
		return b.emit(opMOr, b.p.kind(x), b.p.kind(x), x, y)
	}
	return b.bitwise(opOr, x, y)
}

func (b *vb) orBits(x, y val) val { return b.bitwise(opOr, x, y) }
func (b *vb) xor(x, y val) val    { return b.bitwise(opXor, x, y) }
func (b *vb) andNot(x, y val) val { return b.bitwise(opAndNot, x, y) }
func (b *vb) mand(x, y val) val   { return b.emit(opMAnd, b.p.kind(x), b.p.kind(x), x, y) }
func (b *vb) mnot(x val) val      { return b.emit(opMNot, b.p.kind(x), b.p.kind(x), x) }
func (b *vb) asI32(x val) val     { return b.reinterpret(x, vI32) }
func (b *vb) asF32(x val) val     { return b.reinterpret(x, vF32) }
func (b *vb) signBit(k vkind) val { return b.fsign(k) }
func (b *vb) neg(x val) val       { return b.xor(x, b.signBit(b.float(x))) }
func (b *vb) abs(x val) val       { return b.andNot(x, b.signBit(b.float(x))) }
func (b *vb) copySign(mag, sgn val) val {
	s := b.signBit(b.float(mag, sgn))
	return b.orBits(b.andNot(mag, s), b.and(sgn, s))
}

func (b *vb) fsign(k vkind) val {
	if k == vF64 {
		return b.constBits(vF64, 1<<63)
	}
	return b.u32(1 << 31)
}

// reinterpret changes the kind of a 32-bit value without changing its bits.
// It is free: the value keeps its register.
func (b *vb) reinterpret(x val, k vkind) val {
	from := b.p.kind(x)
	if from == k {
		return x
	}
	if (from != vF32 && from != vI32) || (k != vF32 && k != vI32) {
		panic(fmt.Sprintf("vector program: cannot reinterpret %v as %v", from, k))
	}
	if b.p.vals[x].konst {
		return b.constBits(k, b.p.vals[x].bits)
	}
	return b.emit(opCast, from, k, x)
}

// ---- int32 ----

func (b *vb) addi(x, y val) val { b.check(vI32, x, y); return b.emit(opAddI, vI32, vI32, x, y) }
func (b *vb) subi(x, y val) val { b.check(vI32, x, y); return b.emit(opSubI, vI32, vI32, x, y) }

func (b *vb) shift(op vop, x val, n int) val {
	b.check(vI32, x)
	v := b.emit(op, vI32, vI32, x)
	(*b.cur)[len(*b.cur)-1].imm = n
	return v
}

func (b *vb) shl(x val, n int) val { return b.shift(opShl, x, n) }
func (b *vb) shr(x val, n int) val { return b.shift(opShr, x, n) }
func (b *vb) sar(x val, n int) val { return b.shift(opSar, x, n) }

func (b *vb) cmpgt(x, y val) val { b.check(vI32, x, y); return b.emit(opCmpGt, vI32, vM32, x, y) }
func (b *vb) cmpeq(x, y val) val { b.check(vI32, x, y); return b.emit(opCmpEq, vI32, vM32, x, y) }

// ---- conversions ----

func (b *vb) cvtif(x val) val  { b.check(vI32, x); return b.emit(opCvtIF, vI32, vF32, x) }
func (b *vb) cvtfi(x val) val  { b.check(vF32, x); return b.emit(opCvtFI, vF32, vI32, x) }
func (b *vb) cvtfir(x val) val { b.check(vF32, x); return b.emit(opCvtFIR, vF32, vI32, x) }
func (b *vb) lo64(x val) val   { b.check(vF32, x); return b.emit(opLoF64, vF32, vF64, x) }
func (b *vb) cvtf16(x val) val { b.check(vF32, x); return b.emit(opCvtF16, vF32, vI32, x) }
func (b *vb) hi64(x val) val   { b.check(vF32, x); return b.emit(opHiF64, vF32, vF64, x) }
func (b *vb) pack32(lo, hi val) val {
	b.check(vF64, lo, hi)
	return b.emit(opPack32, vF64, vF32, lo, hi)
}

// ---- comparisons and masks ----

func (b *vb) cmp(pred int, x, y val) val {
	k := b.float(x, y)
	v := b.emit(opCmp, k, k.maskOf(), x, y)
	(*b.cur)[len(*b.cur)-1].imm = pred
	return v
}

func (b *vb) isNaN(x val) val { return b.cmp(cmpUnord, x, x) }

// blend is m ? x : y, lane by lane.
func (b *vb) blend(m, x, y val) val {
	k := b.p.kind(x)
	b.check(k, y)
	if b.p.kind(m) != k.maskOf() {
		panic(fmt.Sprintf("vector program: blend of %v values under a %v mask", k, b.p.kind(m)))
	}
	return b.emit(opBlend, k, k, m, x, y)
}

// ---- horizontal and results ----

// horizontal folds the lanes of x into lane 0 with f, halving the width at
// each step.
func (b *vb) horizontal(x val, f func(x, y val) val) val {
	k := b.float(x)
	for w := b.t.lanes(k); w > 1; w /= 2 {
		s := b.emit(opShuf, k, k, x)
		(*b.cur)[len(*b.cur)-1].imm = w
		x = f(x, s)
	}
	return x
}

func (b *vb) hadd(x val) val { return b.horizontal(x, b.add) }

func (b *vb) ret(i int, x val) {
	*b.cur = append(*b.cur, inst{op: opRet, kind: b.p.kind(x), args: []val{x}, imm: i})
}

func (b *vb) retVec(i int, x val) {
	*b.cur = append(*b.cur, inst{op: opRetVec, kind: b.p.kind(x), args: []val{x}, imm: i})
}

// ---- whole-kernel values ----

// param is scalar argument i broadcast to every lane, computed once.
func (b *vb) param(i int, k vkind) val {
	for _, in := range b.p.pro {
		if in.op == opParam && in.imm == i {
			return in.res
		}
	}
	v := b.p.newVal(k)
	b.p.vals[v].pinned = true
	b.p.pro = append(b.p.pro, inst{op: opParam, kind: k, res: v, imm: i})
	return v
}

// iota is the vector of lane numbers, computed once.
func (b *vb) iota() val {
	for _, in := range b.p.pro {
		if in.op == opIota {
			return in.res
		}
	}
	v := b.p.newVal(vI32)
	b.p.vals[v].pinned = true
	b.p.pro = append(b.p.pro, inst{op: opIota, kind: vI32, res: v})
	return v
}
