package ops

// rng-bit-generator and rng (rng_uniform, rng_normal).
//
// rng-bit-generator reproduces the bit streams of XLA's CPU backend, which
// expands the op with RngBitGeneratorExpander into the generators of
// xla/hlo/builder/lib/prng.cc (ThreeFryBitGenerator, PhiloxBitGenerator):
//
//   - The state is u64. state[0] is the key. THREE_FRY takes u64[2] and uses
//     state[1] as a 64-bit counter. PHILOX takes u64[3] (counter = state[1]
//     low, state[2] high, 128 bits) or u64[2] (counter = state[1] low,
//     state[0] high, XLA's GetPhiloxStateOp) and returns its state the same
//     way. RNG_DEFAULT is PHILOX, the algorithm XLA's CPU compiler passes to
//     RngBitGeneratorExpander. The new state is the key followed by the
//     advanced counter.
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
// rng uses the same Philox generator the way XLA's RngExpander does: a key
// (the seed) and a 128-bit counter that the user advances by RngWords for
// every op, as rng-get-and-update-state does.
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

	"github.com/kilnml/kiln/ir"
)

// Threefry2x32 is Threefry-2x32 with 20 rounds (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011).
func Threefry2x32(key, ctr [2]uint32) [2]uint32 {
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

// Philox4x32 is Philox-4x32 with 10 rounds (same paper).
func Philox4x32(key [2]uint32, ctr [4]uint32) [4]uint32 {
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

// philoxStream yields the words of the Philox stream at a 128-bit counter,
// computing each block once.
type philoxStream struct {
	key    [2]uint32
	lo, hi uint64
	block  int64
	words  [4]uint32
}

func newPhiloxStream(key, lo, hi uint64) philoxStream {
	return philoxStream{key: splitU64(key), lo: lo, hi: hi, block: -1}
}

func (p *philoxStream) load(b int64) {
	if b == p.block {
		return
	}
	l, c := bits.Add64(p.lo, uint64(b), 0)
	h := p.hi + c
	p.words = Philox4x32(p.key, [4]uint32{uint32(l), uint32(l >> 32), uint32(h), uint32(h >> 32)})
	p.block = b
}

// word32 is 32-bit word i of the stream.
func (p *philoxStream) word32(i int) uint32 {
	p.load(int64(i / 4))
	return p.words[i%4]
}

// word64 is 64-bit word i of the stream (two 32-bit words, low first).
func (p *philoxStream) word64(i int) uint64 {
	p.load(int64(i / 2))
	j := 2 * (i % 2)
	return uint64(p.words[j]) | uint64(p.words[j+1])<<32
}

// word is word i in the width of type t (the low bits of 32-bit words for
// narrower types).
func (p *philoxStream) word(t ir.ElementType, i int) uint64 {
	w := t.BitWidth()
	if w == 64 {
		return p.word64(i)
	}
	v := uint64(p.word32(i))
	if w < 32 {
		v &= 1<<w - 1
	}
	return v
}

// halfSplit is prng.cc's SplitShapeIntoHalves: the dimension split in two
// and the sizes around it.
type halfSplit struct{ outer, d, h, inner int }

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
	return halfSplit{outer: Count(dims[:s]), d: dims[s], h: (dims[s] + 1) / 2, inner: Count(dims[s+1:])}
}

// storeRandom stores the low bits of a generated word as element i of type
// t (S4 sign-extended).
func storeRandom(dst []byte, t ir.ElementType, i int, v uint64) {
	switch t.BitWidth() {
	case 64:
		Elems[uint64](dst)[i] = v
	case 32:
		Elems[uint32](dst)[i] = uint32(v)
	case 16:
		Elems[uint16](dst)[i] = uint16(v)
	case 8:
		dst[i] = uint8(v)
	case 4:
		b := uint8(v & 0xf)
		if t.IsSigned() && b&8 != 0 {
			b |= 0xf0
		}
		dst[i] = b
	}
}

// RngBitGenerator checks rng-bit-generator's algorithm, state length and
// output type; it returns the algorithm to run (RNG_DEFAULT resolved).
func RngBitGenerator(alg ir.RandomAlgorithm, stateLen int, t ir.ElementType) (ir.RandomAlgorithm, error) {
	switch t.BitWidth() {
	case 4, 8, 16, 32, 64:
	default:
		return 0, &UnsupportedError{Op: ir.OpRngBitGenerator, Detail: fmt.Sprintf("output element type %v", t)}
	}
	if t == ir.PRED || t.IsComplex() || !t.IsArray() {
		return 0, &UnsupportedError{Op: ir.OpRngBitGenerator, Detail: fmt.Sprintf("output element type %v", t)}
	}
	if alg == ir.RngDefault {
		alg = ir.RngPhilox
	}
	switch alg {
	case ir.RngThreeFry:
		if stateLen != 2 {
			return 0, fmt.Errorf("THREE_FRY state has shape u64[%d], expected u64[2]", stateLen)
		}
	case ir.RngPhilox:
		if stateLen != 2 && stateLen != 3 {
			return 0, fmt.Errorf("PHILOX state has shape u64[%d], expected u64[2] or u64[3]", stateLen)
		}
	default:
		return 0, &UnsupportedError{Op: ir.OpRngBitGenerator, Detail: fmt.Sprintf("algorithm %v", alg)}
	}
	return alg, nil
}

// GenerateBits runs rng-bit-generator with algorithm alg (checked by
// RngBitGenerator) from state, filling out (type t, dimensions dims) and
// newState.
func GenerateBits(alg ir.RandomAlgorithm, state, newState []uint64, t ir.ElementType, dims []int, out []byte) {
	n := Count(dims)
	key, ctr := state[0], state[1]
	w := t.BitWidth()
	if alg == ir.RngThreeFry {
		kk := splitU64(key)
		if w == 64 {
			for j := 0; j < n; j++ {
				x := Threefry2x32(kk, splitU64(ctr+uint64(j)))
				storeRandom(out, t, j, uint64(x[0])|uint64(x[1])<<32)
			}
			newState[0], newState[1] = key, ctr+uint64(n)
			return
		}
		p := splitHalves(dims)
		if n > 0 {
			for o := 0; o < p.outer; o++ {
				for a := 0; a < p.h; a++ {
					for i := 0; i < p.inner; i++ {
						j := (o*p.h+a)*p.inner + i
						x := Threefry2x32(kk, splitU64(ctr+uint64(j)))
						storeRandom(out, t, (o*p.d+2*a)*p.inner+i, uint64(x[0]))
						if 2*a+1 < p.d {
							storeRandom(out, t, (o*p.d+2*a+1)*p.inner+i, uint64(x[1]))
						}
					}
				}
			}
		}
		newState[0], newState[1] = key, ctr+uint64(p.outer*p.h*p.inner)
		return
	}
	ctrHi := key
	if len(state) == 3 {
		ctrHi = state[2]
	}
	stream := newPhiloxStream(key, ctr, ctrHi)
	blocks := (n + 3) / 4
	if w == 64 {
		blocks = (n + 1) / 2
	}
	for i := 0; i < n; i++ {
		storeRandom(out, t, i, stream.word(t, i))
	}
	nlo, c := bits.Add64(ctr, uint64(blocks), 0)
	newState[0], newState[1] = key, nlo
	if len(state) == 3 {
		newState[2] = ctrHi + c
	}
}

// RngWords is how far an rng op of type t and n elements advances the
// generator's counter.
func RngWords(t ir.ElementType, n int) uint64 {
	return uint64(n) * uint64(max(t.BitWidth()/32, 1))
}

// CheckRng reports whether rng defines distribution dist for type t.
func CheckRng(dist ir.RandomDistribution, t ir.ElementType) error {
	switch {
	case dist == ir.RngUniform && (t.IsFloat() || t.IsInteger()):
	case dist == ir.RngNormal && t.IsFloat():
	case dist != ir.RngUniform && dist != ir.RngNormal:
		return fmt.Errorf("rng has no distribution")
	default:
		return &UnsupportedError{Op: ir.OpRng, Detail: fmt.Sprintf("%v with element type %v", dist, t)}
	}
	return nil
}

// Rng runs rng with distribution dist (checked by CheckRng) over the Philox
// stream keyed by seed at counter (lo, hi), with the scalar parameters a and
// b (low and high, or mean and deviation), filling out (type t, dims).
func Rng(dist ir.RandomDistribution, t ir.ElementType, dims []int, seed, lo, hi uint64, a, b, out []byte) {
	n := Count(dims)
	st := newPhiloxStream(seed, lo, hi)
	if t.IsInteger() {
		av, bv := IntAt(a, t, 0), IntAt(b, t, 0)
		w := t.BitWidth()
		var mask uint64 = math.MaxUint64
		if w < 64 {
			mask = 1<<w - 1
		}
		span := (uint64(bv) - uint64(av)) & mask
		for i := 0; i < n; i++ {
			dist := st.word(t, i)
			if span != 0 {
				dist %= span
			}
			half := dist >> 1
			SetIntAt(out, t, i, av+int64(half)+int64((dist-half)&mask))
		}
		return
	}
	round := func(x float64) float64 { return RoundFloat(t, x) }
	m := t.MantissaBits()
	uniform := func(i int) float64 {
		return round(float64(st.word(t, i)>>(t.BitWidth()-m))) * math.Ldexp(1, -m)
	}
	av, bv := FloatAt(a, t, 0), FloatAt(b, t, 0)
	if dist == ir.RngUniform {
		span := round(bv - av)
		for i := 0; i < n; i++ {
			SetFloatAt(out, t, i, round(round(uniform(i)*span)+av))
		}
		return
	}
	if n == 0 {
		return
	}
	mu, sigma := av, bv
	p := splitHalves(dims)
	tiny := round(float64(float32(1e-7)))
	twoPi := round(2 * math.Pi)
	for o := 0; o < p.outer; o++ {
		for h := 0; h < p.h; h++ {
			for i := 0; i < p.inner; i++ {
				x0 := uniform(((o*p.h+h)*2+0)*p.inner + i)
				x1 := uniform(((o*p.h+h)*2+1)*p.inner + i)
				u1 := FloatMax(x0, tiny)
				v1 := round(twoPi * x1)
				r := round(math.Sqrt(round(-2 * round(math.Log(u1)))))
				z0 := round(round(math.Sin(v1)) * r)
				z1 := round(round(math.Cos(v1)) * r)
				SetFloatAt(out, t, (o*p.d+2*h)*p.inner+i, round(mu+round(sigma*z0)))
				if 2*h+1 < p.d {
					SetFloatAt(out, t, (o*p.d+2*h+1)*p.inner+i, round(mu+round(sigma*z1)))
				}
			}
		}
	}
}
