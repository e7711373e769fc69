// Package detrand fills literals with deterministic pseudo-random values, so
// that example models, benchmarks and tests can run on weights and inputs
// that are the same on every machine without shipping them.
package detrand

import (
	"math"

	"github.com/kilnml/kiln/ir"
)

// Source is a splitmix64 generator: tiny, fast, and the same everywhere.
type Source struct{ state uint64 }

// New returns a source seeded with seed.
func New(seed uint64) *Source { return &Source{state: seed} }

// Uint64 returns the next 64 random bits.
func (s *Source) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Float64 returns a value uniform in [-1, 1).
func (s *Source) Float64() float64 {
	return float64(s.Uint64()>>11)/(1<<52) - 1
}

// Seed derives a seed from a name and an index (a model and a parameter
// number, say), so that each parameter gets its own stream.
func Seed(name string, index int) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h ^ uint64(index)*0x9e3779b97f4a7c15
}

// Literal returns a literal of array shape s filled from seed. Floating-point
// and complex values are uniform in [-a, a) where a = 1/sqrt(fan-in), the
// product of every dimension but the last (so weight matrices keep
// activations of order one; rank-0 and rank-1 values use a = 0.5);
// integers are uniform in [0, 16) (clamped to the type's range), and PRED
// values are fair coin flips.
func Literal(s ir.Shape, seed uint64) *ir.Literal {
	l := ir.MustNewLiteral(s.WithoutLayout())
	src := New(seed)
	scale := 0.5
	if s.Rank() >= 2 {
		fan := 1
		for _, d := range s.Dims[:s.Rank()-1] {
			fan *= d
		}
		scale = 1 / math.Sqrt(float64(max(fan, 1)))
	}
	n := l.ElementCount()
	t := s.Elem
	for i := 0; i < n; i++ {
		switch {
		case t.IsComplex():
			l.SetComplex128At(i, complex(scale*src.Float64(), scale*src.Float64()))
		case t.IsFloat():
			l.SetFloat64At(i, scale*src.Float64())
		case t == ir.PRED:
			l.SetInt64At(i, int64(src.Uint64()&1))
		case t.IsSigned():
			v := int64(src.Uint64() % 16)
			if t == ir.S4 {
				v -= 8
			}
			l.SetInt64At(i, v)
		default:
			l.SetUint64At(i, src.Uint64()%16)
		}
	}
	return l
}
