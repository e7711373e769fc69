package runtime

// rng-bit-generator, rng and rng-get-and-update-state, with the evaluator's
// bit streams (XLA's CPU expansions: Threefry-2x32 and Philox-4x32, the
// half-shape split for 32-bit THREE_FRY and for normal pairs, the uniform
// and normal conversions) computed element by element without buffers.
//
// rng draws from the Philox stream keyed by seed 0 at a counter that
// starts at 0 for every run and advances across the rng ops of the run in
// program order, as one evaluation of the module does. The counter of each
// op is fixed at compile time; a module whose rng ops sit in loop bodies or
// branches (so the counter depends on the run) is refused with an error.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpRngBitGenerator)] = buildRngBitGenerator
	genericSteps[ssa.Op(ir.OpRng)] = buildRng
	genericSteps[ssa.Op(ir.OpRngGetAndUpdateState)] = buildRngGetAndUpdateState
}

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
	p.words = philox4x32(p.key, [4]uint32{uint32(l), uint32(l >> 32), uint32(h), uint32(h >> 32)})
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

// halfSplit is XLA's split of a shape in two along its first even
// dimension (or, with none, its largest).
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
	return halfSplit{outer: prod(dims[:s]), d: dims[s], h: (dims[s] + 1) / 2, inner: prod(dims[s+1:])}
}

// storeRandom stores the low bits of a generated word as element i of type t.
func storeRandom(dst []byte, t ir.ElementType, i int, v uint64) {
	switch t.BitWidth() {
	case 64:
		elems[uint64](dst)[i] = v
	case 32:
		elems[uint32](dst)[i] = uint32(v)
	case 16:
		elems[uint16](dst)[i] = uint16(v)
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

type rngBitGeneratorStep struct {
	state, newState, data loc
	t                     ir.ElementType
	dims                  []int
	n                     int
	threeFry              bool
	stateLen              int
}

func buildRngBitGenerator(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	st := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	outs := c.leaves(k.Out)
	if b == nil || !denseArray(st) || st.Elem != ir.U64 || st.Rank() != 1 || len(outs) != 2 || !v.Shape.IsTuple() || len(v.Shape.Tuple) != 2 {
		return nil, nil
	}
	data := v.Shape.Tuple[1]
	t := data.Elem
	switch t.BitWidth() {
	case 4, 8, 16, 32, 64:
	default:
		return nil, nil
	}
	if t == ir.PRED || t.IsComplex() || !denseArray(data) {
		return nil, nil
	}
	s := &rngBitGeneratorStep{state: c.loc(b), newState: outs[0], data: outs[1], t: t, dims: data.Dims, n: data.ElementCount(), stateLen: st.Dims[0]}
	switch v.Attrs.RngAlgorithm {
	case ir.RngThreeFry:
		if s.stateLen != 2 {
			return nil, nil
		}
		s.threeFry = true
	case ir.RngPhilox, ir.RngDefault:
		if s.stateLen != 2 && s.stateLen != 3 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	return s, nil
}

func (s *rngBitGeneratorStep) name() string { return "rng-bit-generator" }

func (s *rngBitGeneratorStep) exec(fr *frame) error {
	state := elems[uint64](fr.bytes(s.state))
	key, ctr := state[0], state[1]
	var ctrHi uint64
	if !s.threeFry {
		ctrHi = key
		if s.stateLen == 3 {
			ctrHi = state[2]
		}
	}
	out := fr.bytes(s.data)
	newState := elems[uint64](fr.bytes(s.newState))
	w := s.t.BitWidth()
	if s.threeFry {
		kk := splitU64(key)
		if w == 64 {
			for j := 0; j < s.n; j++ {
				x := threefry2x32(kk, splitU64(ctr+uint64(j)))
				storeRandom(out, s.t, j, uint64(x[0])|uint64(x[1])<<32)
			}
			newState[0], newState[1] = key, ctr+uint64(s.n)
			return nil
		}
		p := splitHalves(s.dims)
		for o := 0; o < p.outer; o++ {
			for a := 0; a < p.h; a++ {
				for i := 0; i < p.inner; i++ {
					j := (o*p.h+a)*p.inner + i
					x := threefry2x32(kk, splitU64(ctr+uint64(j)))
					storeRandom(out, s.t, (o*p.d+2*a)*p.inner+i, uint64(x[0]))
					if 2*a+1 < p.d {
						storeRandom(out, s.t, (o*p.d+2*a+1)*p.inner+i, uint64(x[1]))
					}
				}
			}
		}
		newState[0], newState[1] = key, ctr+uint64(p.outer*p.h*p.inner)
		return nil
	}
	stream := newPhiloxStream(key, ctr, ctrHi)
	blocks := (s.n + 3) / 4
	if w == 64 {
		blocks = (s.n + 1) / 2
		for i := 0; i < s.n; i++ {
			storeRandom(out, s.t, i, stream.word64(i))
		}
	} else {
		for i := 0; i < s.n; i++ {
			storeRandom(out, s.t, i, uint64(stream.word32(i)))
		}
	}
	nlo, c := bits.Add64(ctr, uint64(blocks), 0)
	nhi := ctrHi + c
	newState[0], newState[1] = key, nlo
	if s.stateLen == 3 {
		newState[2] = nhi
	}
	return nil
}

// rngCounter is the counter rng op v starts at: the words the stateful rng
// ops before it in the entry function consume. It reports an error when
// stateful rng ops sit where the counter depends on the run.
func rngCounter(v *ssa.Value) (uint64, error) {
	f := v.Func
	if f == nil || f.Program == nil || f != f.Program.Entry {
		return 0, fmt.Errorf("%s inside a loop body, branch or called computation is not supported by the compiled path (its generator state depends on the run)", v.Op)
	}
	for _, g := range f.Program.Funcs {
		if g == f {
			continue
		}
		for _, w := range g.Values {
			if isStatefulRng(w.Op) {
				return 0, fmt.Errorf("%s: the module has %s ops inside loop bodies or branches, so the generator state depends on the run; not supported by the compiled path", v.Op, w.Op)
			}
		}
	}
	var ctr uint64
	for _, w := range f.Values {
		if w == v {
			return ctr, nil
		}
		if isStatefulRng(w.Op) {
			n, err := rngWords(w)
			if err != nil {
				return 0, err
			}
			ctr += n
		}
	}
	return 0, fmt.Errorf("%s is not in its function", v.Op)
}

func isStatefulRng(op ssa.Op) bool {
	return op == ssa.Op(ir.OpRng) || op == ssa.Op(ir.OpRngGetAndUpdateState)
}

// rngWords is how far an op advances the generator's counter.
func rngWords(v *ssa.Value) (uint64, error) {
	if v.Op == ssa.Op(ir.OpRngGetAndUpdateState) {
		for _, a := range v.Raw {
			if a.Name == "delta" {
				d, err := strconv.ParseInt(a.Value, 10, 64)
				if err != nil {
					return 0, fmt.Errorf("rng-get-and-update-state: delta=%s is not an integer", a.Value)
				}
				return uint64(d), nil
			}
		}
		return 0, nil
	}
	w := v.Shape.Elem.BitWidth()
	return uint64(v.Shape.ElementCount()) * uint64(max(w/32, 1)), nil
}

type rngGetAndUpdateStateStep struct {
	out loc
	ctr uint64
}

func buildRngGetAndUpdateState(c *compiler, k *sched.Kernel, p *program) (step, error) {
	ctr, err := rngCounter(k.Root)
	if err != nil {
		return nil, err
	}
	if s := k.Root.Shape; !denseArray(s) || s.Elem != ir.U64 || s.ElementCount() != 2 {
		return nil, nil
	}
	return &rngGetAndUpdateStateStep{out: c.loc(k.Out), ctr: ctr}, nil
}

func (s *rngGetAndUpdateStateStep) name() string { return "rng-get-and-update-state" }

func (s *rngGetAndUpdateStateStep) exec(fr *frame) error {
	out := elems[uint64](fr.bytes(s.out))
	out[0], out[1] = s.ctr, 0
	return nil
}

type rngStep struct {
	a, b, out loc
	t         ir.ElementType
	dims      []int
	n         int
	ctr       uint64
	normal    bool
}

func buildRng(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	t := v.Shape.Elem
	if len(v.Args) != 2 || !denseArray(v.Shape) {
		return nil, nil
	}
	ab, bb := inputBuffer(k, v.Args[0]), inputBuffer(k, v.Args[1])
	if ab == nil || bb == nil || !v.Args[0].Shape.IsScalar() || !v.Args[1].Shape.IsScalar() || v.Args[0].Shape.Elem != t || v.Args[1].Shape.Elem != t {
		return nil, nil
	}
	switch {
	case v.Attrs.Distribution == ir.RngUniform && (t.IsFloat() || t.IsInteger()):
	case v.Attrs.Distribution == ir.RngNormal && t.IsFloat():
	default:
		return nil, nil
	}
	ctr, err := rngCounter(v)
	if err != nil {
		return nil, err
	}
	return &rngStep{a: c.loc(ab), b: c.loc(bb), out: c.loc(k.Out), t: t, dims: v.Shape.Dims, n: v.Shape.ElementCount(),
		ctr: ctr, normal: v.Attrs.Distribution == ir.RngNormal}, nil
}

func (s *rngStep) name() string { return "rng" }

// word returns the stream's word i in the element type's width (the low
// bits of 32-bit words for narrower types).
func (s *rngStep) word(st *philoxStream, i int) uint64 {
	w := s.t.BitWidth()
	if w == 64 {
		return st.word64(i)
	}
	v := uint64(st.word32(i))
	if w < 32 {
		v &= 1<<w - 1
	}
	return v
}

// uniform is XLA's conversion of word i to a float in [0, 1).
func (s *rngStep) uniform(st *philoxStream, i int) float64 {
	t := s.t
	m := t.MantissaBits()
	return ir.RoundToFloatType(float64(s.word(st, i)>>(t.BitWidth()-m)), t) * math.Ldexp(1, -m)
}

func (s *rngStep) exec(fr *frame) error {
	t := s.t
	out := fr.bytes(s.out)
	st := newPhiloxStream(0, s.ctr, 0)
	round := func(x float64) float64 { return ir.RoundToFloatType(x, t) }
	if t.IsInteger() {
		var a, b [1]int64
		loadInts(a[:], fr.bytes(s.a), t, 0)
		loadInts(b[:], fr.bytes(s.b), t, 0)
		w := t.BitWidth()
		var mask uint64 = math.MaxUint64
		if w < 64 {
			mask = 1<<w - 1
		}
		span := (uint64(b[0]) - uint64(a[0])) & mask
		for i := 0; i < s.n; i++ {
			dist := s.word(&st, i)
			if span != 0 {
				dist %= span
			}
			half := dist >> 1
			v := [1]int64{wrapInt(t, a[0]+int64(half)+int64((dist-half)&mask))}
			storeInts(out, t, i, v[:])
		}
		return nil
	}
	var a, b [1]float64
	loadFloats(a[:], fr.bytes(s.a), t, 0)
	loadFloats(b[:], fr.bytes(s.b), t, 0)
	if !s.normal {
		span := round(b[0] - a[0])
		for i := 0; i < s.n; i++ {
			v := [1]float64{round(round(s.uniform(&st, i)*span) + a[0])}
			storeFloats(out, t, i, v[:])
		}
		return nil
	}
	mu, sigma := a[0], b[0]
	p := splitHalves(s.dims)
	tiny := round(float64(float32(1e-7)))
	twoPi := round(2 * math.Pi)
	for o := 0; o < p.outer; o++ {
		for h := 0; h < p.h; h++ {
			for i := 0; i < p.inner; i++ {
				x0 := s.uniform(&st, ((o*p.h+h)*2+0)*p.inner+i)
				x1 := s.uniform(&st, ((o*p.h+h)*2+1)*p.inner+i)
				u1 := floatMax(x0, tiny)
				v1 := round(twoPi * x1)
				r := round(math.Sqrt(round(-2 * round(math.Log(u1)))))
				z0 := round(round(math.Sin(v1)) * r)
				z1 := round(round(math.Cos(v1)) * r)
				v := [1]float64{round(mu + round(sigma*z0))}
				storeFloats(out, t, (o*p.d+2*h)*p.inner+i, v[:])
				if 2*h+1 < p.d {
					v[0] = round(mu + round(sigma*z1))
					storeFloats(out, t, (o*p.d+2*h+1)*p.inner+i, v[:])
				}
			}
		}
	}
	return nil
}
