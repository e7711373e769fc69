package eval

// rng-bit-generator, rng (rng_uniform, rng_normal) and
// rng-get-and-update-state.
//
// rng-bit-generator reproduces the bit streams of XLA's CPU backend, which
// expands the op with RngBitGeneratorExpander into the generators of
// xla/hlo/builder/lib/prng.cc (ThreeFryBitGenerator, PhiloxBitGenerator):
//
//   - The state is u64. state[0] is the key. THREE_FRY takes u64[2] and uses
//     state[1] as a 64-bit counter. PHILOX takes u64[3] (counter = state[1]
//     low, state[2] high, 128 bits) or u64[2] (counter = state[1] low,
//     state[0] high, XLA's GetPhiloxStateOp) and returns a u64[2] state
//     that way. RNG_DEFAULT is PHILOX, the algorithm XLA's CPU compiler
//     passes to RngBitGeneratorExpander. The new state is the key followed by
//     the advanced counter.
//   - THREE_FRY (Threefry-2x32, 20 rounds; key halves = low, high word of
//     state[0]; counter halves = low, high word): 64-bit outputs use counter
//     state[1]+i for element i (row-major) and return x0 | x1<<32; the
//     counter advances by the element count. 32-bit outputs split the shape
//     in two along its first even dimension (or, with none, its largest;
//     a scalar counts as [2]): element 2a+b of that dimension is output x_b
//     of the counter for index a of the half shape; the counter advances by
//     the half shape's element count.
//   - PHILOX (Philox-4x32, 10 rounds; key = low, high word of state[0]):
//     block i (counter+i, as four words low to high) yields four u32;
//     32-bit element 4i+j is word j; 64-bit element 2i+j is word 2j | word
//     2j+1 << 32. The counter advances by the number of blocks.
//   - Types narrower than 32 bits take the low bits of the 32-bit stream of
//     the same shape (prng.cc's *RngBitNarrow). Any element type of 4, 8, 16,
//     32 or 64 bits is filled by bitcasting those unsigned bits.
//
// rng uses the same Philox generator the way XLA's RngExpander does: key =
// Options.Seed, counter = the evaluator's 128-bit state (starting at 0), which
// then advances by the number of 32-bit words the op consumes (element count
// times width/32, at least 1 per element), as rng-get-and-update-state does.
//
//   - rng_uniform on floats: XLA's ConvertRandomBitsToUniformFloatingPoint:
//     bits >> (width - mantissa bits) scaled by 2^-mantissa gives [0, 1),
//     then value*(b-a)+a with each operation rounded to the type, so the
//     result is in [a, b) up to that rounding.
//   - rng_uniform on integers: XLA's ConvertRandomBitsToUniformInt: with
//     range = b - a (unsigned), dist = bits mod range, the result is
//     a + dist/2 + (dist - dist/2), wrapping. XLA implements 32- and 64-bit
//     types; the same formula is applied to narrower integer types.
//   - rng_normal: XLA's NormalFloatingPointDistribution: uniform [0, 1) pairs
//     (u0, u1) drawn over the shape split in two as for THREE_FRY above, the
//     Box-Muller transform sin(2πu1)·r, cos(2πu1)·r with r = sqrt(-2
//     ln(max(u0, 1e-7))), then mu + sigma·z. The transcendental functions are
//     evaluated in float64 and rounded to the type, so normal values can
//     differ from XLA's (whose F32 log/sin/cos are approximations) in the
//     last bits.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unsafe"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalRngBitGenerator, ir.OpRngBitGenerator)
	register(evalRng, ir.OpRng)
	register(evalRngGetAndUpdateState, ir.OpRngGetAndUpdateState)
}

// rngState is the state of the generator behind the stateful `rng` op: the
// Philox key (Options.Seed) and a 128-bit counter.
type rngState struct {
	seed   uint64
	lo, hi uint64
}

func newRNGState(seed uint64) *rngState { return &rngState{seed: seed} }

// advance returns the current counter and moves it forward by delta.
func (s *rngState) advance(delta uint64) (lo, hi uint64) {
	lo, hi = s.lo, s.hi
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, delta, 0)
	s.hi += carry
	return lo, hi
}

// ---- the block ciphers ----------------------------------------------------

// threefry2x32 is Threefry-2x32 with 20 rounds (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011).
func threefry2x32(key, ctr [2]uint32) [2]uint32 {
	rot := [8]uint32{13, 15, 26, 6, 17, 29, 16, 24}
	ks := [3]uint32{key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]}
	x0, x1 := ctr[0]+ks[0], ctr[1]+ks[1]
	for i := 0; i < 5; i++ {
		r := rot[(i%2)*4 : (i%2)*4+4]
		for _, n := range r {
			x0 += x1
			x1 = bits.RotateLeft32(x1, int(n))
			x1 ^= x0
		}
		x0 += ks[(i+1)%3]
		x1 += ks[(i+2)%3] + uint32(i+1)
	}
	return [2]uint32{x0, x1}
}

// philox4x32 is Philox-4x32 with 10 rounds (same paper).
func philox4x32(key [2]uint32, ctr [4]uint32) [4]uint32 {
	const (
		w0 = 0x9E3779B9
		w1 = 0xBB67AE85
		m0 = 0xD2511F53
		m1 = 0xCD9E8D57
	)
	x := ctr
	k0, k1 := key[0], key[1]
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(m0, x[0])
		hi1, lo1 := bits.Mul32(m1, x[2])
		x = [4]uint32{hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0}
		k0 += w0
		k1 += w1
	}
	return x
}

func splitU64(v uint64) [2]uint32 { return [2]uint32{uint32(v), uint32(v >> 32)} }

// ---- XLA's expansions -----------------------------------------------------

// halfSplit is prng.cc's SplitShapeIntoHalves: the dimension s split in two
// and the sizes around it.
type halfSplit struct {
	outer, d, h, inner int
}

func splitHalves(dims []int) halfSplit {
	if len(dims) == 0 {
		return halfSplit{outer: 1, d: 1, h: 1, inner: 1}
	}
	s := -1
	for i, d := range dims {
		if d%2 == 0 {
			s = i
			break
		}
	}
	if s < 0 {
		for i, d := range dims {
			if s < 0 || d > dims[s] {
				s = i
			}
		}
	}
	return halfSplit{outer: numElements(dims[:s]), d: dims[s], h: (dims[s] + 1) / 2, inner: numElements(dims[s+1:])}
}

// halfCount is the element count of the half shape.
func (p halfSplit) halfCount() int { return p.outer * p.h * p.inner }

// combine fills the n = outer*d*inner outputs from the two halves: output
// (o, 2a+b, i) is pair[b] at half index (o, a, i).
func combine[T any](p halfSplit, pair [2][]T) []T {
	out := make([]T, p.outer*p.d*p.inner)
	for o := 0; o < p.outer; o++ {
		for k := 0; k < p.d; k++ {
			a, b := k/2, k%2
			copy(out[(o*p.d+k)*p.inner:(o*p.d+k+1)*p.inner], pair[b][(o*p.h+a)*p.inner:(o*p.h+a+1)*p.inner])
		}
	}
	return out
}

// threeFryBits32 returns the 32-bit THREE_FRY stream for dims and the new
// counter.
func threeFryBits32(key, ctr uint64, dims []int) ([]uint32, uint64) {
	p := splitHalves(dims)
	n := p.halfCount()
	var pair [2][]uint32
	pair[0], pair[1] = make([]uint32, n), make([]uint32, n)
	k := splitU64(key)
	for j := 0; j < n; j++ {
		x := threefry2x32(k, splitU64(ctr+uint64(j)))
		pair[0][j], pair[1][j] = x[0], x[1]
	}
	return combine(p, pair), ctr + uint64(n)
}

func threeFryBits64(key, ctr uint64, n int) ([]uint64, uint64) {
	out := make([]uint64, n)
	k := splitU64(key)
	for j := range out {
		x := threefry2x32(k, splitU64(ctr+uint64(j)))
		out[j] = uint64(x[0]) | uint64(x[1])<<32
	}
	return out, ctr + uint64(n)
}

// philoxBlocks runs Philox over blocks counter, counter+1, … (128-bit
// arithmetic) and returns the words and the advanced counter.
func philoxBlocks(key, lo, hi uint64, blocks int) ([][4]uint32, uint64, uint64) {
	k := splitU64(key)
	out := make([][4]uint32, blocks)
	for i := range out {
		l, c := bits.Add64(lo, uint64(i), 0)
		h := hi + c
		out[i] = philox4x32(k, [4]uint32{uint32(l), uint32(l >> 32), uint32(h), uint32(h >> 32)})
	}
	l, c := bits.Add64(lo, uint64(blocks), 0)
	return out, l, hi + c
}

func philoxBits32(key, lo, hi uint64, n int) ([]uint32, uint64, uint64) {
	blocks, nlo, nhi := philoxBlocks(key, lo, hi, (n+3)/4)
	out := make([]uint32, n)
	for i := range out {
		out[i] = blocks[i/4][i%4]
	}
	return out, nlo, nhi
}

func philoxBits64(key, lo, hi uint64, n int) ([]uint64, uint64, uint64) {
	blocks, nlo, nhi := philoxBlocks(key, lo, hi, (n+1)/2)
	out := make([]uint64, n)
	for i := range out {
		w := blocks[i/2]
		j := 2 * (i % 2)
		out[i] = uint64(w[j]) | uint64(w[j+1])<<32
	}
	return out, nlo, nhi
}

// rngBits is the output of a bit generator: one of the slices is set.
type rngBits struct {
	b32 []uint32
	b64 []uint64
}

// storeBits fills an array literal of any 4/8/16/32/64-bit element type
// with the low bits of the generated words.
func storeBits(t ir.ElementType, dims []int, g rngBits) (*ir.Literal, error) {
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	switch t.BitWidth() {
	case 64:
		copy(rawWords[uint64](out.Bytes()), g.b64)
	case 32:
		copy(rawWords[uint32](out.Bytes()), g.b32)
	case 16:
		dst := rawWords[uint16](out.Bytes())
		for i, v := range g.b32 {
			dst[i] = uint16(v)
		}
	case 8:
		dst := rawWords[uint8](out.Bytes())
		for i, v := range g.b32 {
			dst[i] = uint8(v)
		}
	case 4:
		dst := out.Bytes()
		for i, v := range g.b32 {
			b := uint8(v & 0xf)
			if t.IsSigned() && b&8 != 0 {
				b |= 0xf0 // S4 is stored sign-extended
			}
			dst[i] = b
		}
	}
	return out, nil
}

// rawWords views a literal's storage (aligned for any element type) as a
// slice of T.
func rawWords[T uint8 | uint16 | uint32 | uint64](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// bitGeneratorType reports whether rng-bit-generator can fill type t.
func bitGeneratorType(t ir.ElementType) bool {
	switch t.BitWidth() {
	case 4, 8, 16, 32, 64:
		return t != ir.PRED && !t.IsComplex() && t.IsArray()
	}
	return false
}

func evalRngBitGenerator(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand (the state), found %d", len(ops))
	}
	st := ops[0]
	if st.Shape().Elem != ir.U64 || st.Shape().Rank() != 1 {
		return nil, fmt.Errorf("state has shape %v, expected u64[2] or u64[3]", st.Shape())
	}
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 || !in.Shape.Tuple[0].EqualIgnoringLayout(st.Shape()) || !in.Shape.Tuple[1].IsArray() {
		return nil, fmt.Errorf("result shape %v, expected (%v, data array)", in.Shape, st.Shape())
	}
	data := in.Shape.Tuple[1]
	if !bitGeneratorType(data.Elem) {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name, Detail: fmt.Sprintf("output element type %v", data.Elem)}
	}
	state := ir.Values[uint64](st)
	if len(state) != 2 && len(state) != 3 {
		return nil, fmt.Errorf("state has shape %v, expected u64[2] or u64[3]", st.Shape())
	}
	n := data.ElementCount()
	var g rngBits
	newState := make([]uint64, len(state))
	newState[0] = state[0]
	alg := in.RngAlgorithm
	if alg == ir.RngDefault {
		alg = ir.RngPhilox
	}
	switch alg {
	case ir.RngThreeFry:
		if len(state) != 2 {
			return nil, fmt.Errorf("THREE_FRY state has shape %v, expected u64[2]", st.Shape())
		}
		if data.Elem.BitWidth() == 64 {
			g.b64, newState[1] = threeFryBits64(state[0], state[1], n)
		} else {
			g.b32, newState[1] = threeFryBits32(state[0], state[1], data.Dims)
		}
	case ir.RngPhilox:
		var lo, hi uint64
		switch len(state) {
		case 3:
			lo, hi = state[1], state[2]
		case 2:
			lo, hi = state[1], state[0]
		default:
			return nil, fmt.Errorf("PHILOX state has shape %v, expected u64[2] or u64[3]", st.Shape())
		}
		var nlo, nhi uint64
		if data.Elem.BitWidth() == 64 {
			g.b64, nlo, nhi = philoxBits64(state[0], lo, hi, n)
		} else {
			g.b32, nlo, nhi = philoxBits32(state[0], lo, hi, n)
		}
		newState[1] = nlo
		if len(state) == 3 {
			newState[2] = nhi
		}
	default:
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name, Detail: fmt.Sprintf("algorithm %v", in.RngAlgorithm)}
	}
	out, err := storeBits(data.Elem, data.Dims, g)
	if err != nil {
		return nil, err
	}
	ns := ir.MustLiteralFromSlice(newState)
	return ir.NewTupleLiteral(ns, out), nil
}

// ---- rng ------------------------------------------------------------------

func evalRngGetAndUpdateState(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	var delta uint64
	if v, ok := in.RawAttr("delta"); ok {
		d, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("delta=%s is not an integer", v)
		}
		delta = uint64(d)
	}
	lo, hi := e.rng.advance(delta)
	return ir.MustLiteralFromSlice([]uint64{lo, hi}), nil
}

func evalRng(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, fmt.Errorf("expected 2 operands, found %d", len(ops))
	}
	a, b := ops[0], ops[1]
	t := in.Shape.Elem
	if !in.Shape.IsArray() || !a.Shape().IsScalar() || !b.Shape().IsScalar() || a.Shape().Elem != t || b.Shape().Elem != t {
		return nil, fmt.Errorf("operands %v and %v, expected %v scalars", a.Shape(), b.Shape(), t)
	}
	dims := in.Shape.Dims
	n := numElements(dims)
	w := t.BitWidth()
	words := uint64(n) * uint64(max(w/32, 1))
	switch in.Distribution {
	case ir.RngUniform:
		switch {
		case t.IsFloat():
			lo, hi := e.rng.advance(words)
			u := uniformFloats(t, e.opts.Seed, lo, hi, n)
			round := floatRounder(t)
			av, bv := floatValues(a)[0], floatValues(b)[0]
			span := round(bv - av)
			for i, v := range u {
				u[i] = round(round(v*span) + av)
			}
			return storeFloat64s(t, dims, u)
		case t.IsInteger():
			lo, hi := e.rng.advance(words)
			return uniformInts(t, dims, e.opts.Seed, lo, hi, intValues(a)[0], intValues(b)[0])
		}
	case ir.RngNormal:
		if t.IsFloat() {
			lo, hi := e.rng.advance(words)
			z := normalFloats(t, dims, e.opts.Seed, lo, hi)
			round := floatRounder(t)
			mu, sigma := floatValues(a)[0], floatValues(b)[0]
			for i, v := range z {
				z[i] = round(mu + round(sigma*v))
			}
			return storeFloat64s(t, dims, z)
		}
	default:
		return nil, fmt.Errorf("rng has no distribution")
	}
	return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
		Detail: fmt.Sprintf("%v with element type %v", in.Distribution, t)}
}

// philoxWords returns n words of the element type's width (the low bits of
// 32-bit words for narrow types) from the Philox stream at counter (lo, hi).
func philoxWords(t ir.ElementType, key, lo, hi uint64, n int) []uint64 {
	out := make([]uint64, n)
	if t.BitWidth() == 64 {
		b, _, _ := philoxBits64(key, lo, hi, n)
		copy(out, b)
		return out
	}
	b, _, _ := philoxBits32(key, lo, hi, n)
	var mask uint64 = math.MaxUint32
	if w := t.BitWidth(); w < 32 {
		mask = 1<<w - 1
	}
	for i, v := range b {
		out[i] = uint64(v) & mask
	}
	return out
}

// uniformFloats is ConvertRandomBitsToUniformFloatingPoint's [0, 1) step.
func uniformFloats(t ir.ElementType, key, lo, hi uint64, n int) []float64 {
	words := philoxWords(t, key, lo, hi, n)
	m := t.MantissaBits()
	out := make([]float64, n)
	for i, v := range words {
		out[i] = ir.RoundToFloatType(float64(v>>(t.BitWidth()-m)), t) * math.Ldexp(1, -m)
	}
	return out
}

func uniformInts(t ir.ElementType, dims []int, key, lo, hi uint64, a, b int64) (*ir.Literal, error) {
	w := t.BitWidth()
	var mask uint64 = math.MaxUint64
	if w < 64 {
		mask = 1<<w - 1
	}
	words := philoxWords(t, key, lo, hi, numElements(dims))
	span := (uint64(b) - uint64(a)) & mask
	res := make([]int64, len(words))
	for i, v := range words {
		dist := v
		if span != 0 {
			dist = v % span
		}
		half := dist >> 1
		res[i] = wrapInt(t, a+int64(half)+int64((dist-half)&mask))
	}
	return storeInts(t, dims, res)
}

// normalFloats is NormalFloatingPointDistribution for mean 0, deviation 1.
func normalFloats(t ir.ElementType, dims []int, key, lo, hi uint64) []float64 {
	p := splitHalves(dims)
	n := p.halfCount()
	u := uniformFloats(t, key, lo, hi, 2*n) // over [outer, h, 2, inner]
	round := floatRounder(t)
	tiny := round(float64(float32(1e-7)))
	twoPi := round(2 * math.Pi)
	var pair [2][]float64
	pair[0], pair[1] = make([]float64, n), make([]float64, n)
	for o := 0; o < p.outer; o++ {
		for a := 0; a < p.h; a++ {
			for i := 0; i < p.inner; i++ {
				j := (o*p.h+a)*p.inner + i
				x0 := u[((o*p.h+a)*2+0)*p.inner+i]
				x1 := u[((o*p.h+a)*2+1)*p.inner+i]
				u1 := floatMax(x0, tiny)
				v1 := round(twoPi * x1)
				r := round(math.Sqrt(round(-2 * round(math.Log(u1)))))
				pair[0][j] = round(round(math.Sin(v1)) * r)
				pair[1][j] = round(round(math.Cos(v1)) * r)
			}
		}
	}
	return combine(p, pair)
}
