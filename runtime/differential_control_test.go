package runtime_test

import (
	"math"

	"github.com/kilnml/kiln/ir"
)

// Generators of control flow (while, conditional, call, composite and
// custom calls, tokens) and of the collectives run with one replica.

func controlGens() []*opGen {
	return []*opGen{
		whileGen(),
		conditionalGen(false),
		conditionalGen(true),
		{name: "call", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			comp := g.arrayComputation("callee", s, func(b *ir.Builder, x, y ir.Op) ir.Op {
				return b.Tuple(combine(b, t, x, y), b.Rev(x, []int{}))
			})
			return g.b.Call(comp, g.operand(s, anyValues), g.operand(s, anyValues))
		}},
		{name: "composite-call", hlo: "call", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			comp := g.arrayComputation("decomposition", s, func(b *ir.Builder, x, y ir.Op) ir.Op { return combine(b, t, y, x) })
			return g.b.CompositeCall(comp, []ir.Op{g.param(s, anyValues), g.param(s, anyValues)}, "diff.min", "{}", 1)
		}},
		{name: "custom-call", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			return g.b.CustomCall("diff.unregistered", []ir.Op{g.param(s, anyValues)}, s)
		}},
		{name: "after-all", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			x := g.param(ir.MakeShape(t, g.dims(g.intn(3))...), anyValues)
			tok := g.b.AfterAll(g.b.CreateToken(), g.b.CreateToken())
			return g.b.Tuple(x, tok)
		}},
	}
}

// arrayComputation builds a computation of two parameters of shape s.
func (g *gen) arrayComputation(name string, s ir.Shape, f func(b *ir.Builder, x, y ir.Op) ir.Op) *ir.Computation {
	sb := g.b.CreateSubBuilder(name)
	x := sb.Parameter(0, s, "x")
	y := sb.Parameter(1, s, "y")
	c, err := sb.BuildWithRoot(f(sb, x, y))
	if err != nil {
		panic(err)
	}
	return c
}

// combine is an op every element type takes: maximum, or for complex
// numbers (which have no order) addition.
func combine(b *ir.Builder, t ir.ElementType, x, y ir.Op) ir.Op {
	if t.IsComplex() {
		return b.Add(x, y)
	}
	return b.Max(x, y)
}

// step is one loop iteration's update of a value of type t: add for
// numbers, xor for PRED.
func step(b *ir.Builder, t ir.ElementType, x, y ir.Op) ir.Op {
	if t == ir.PRED {
		return b.Xor(x, y)
	}
	return b.Add(x, y)
}

// whileGen counts a loop from 0 to a run-time limit (0 to 5, so the body
// may not run at all), updating a value of type t and rotating another
// along its first dimension each iteration.
func whileGen() *opGen {
	return &opGen{name: "while", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
		state := ir.MakeTuple(ir.Scalar(ir.S32), ir.Scalar(ir.S32), s, s)
		cb := g.b.CreateSubBuilder("condition")
		cs := cb.Parameter(0, state, "state")
		cond, err := cb.BuildWithRoot(cb.Lt(cb.GetTupleElement(cs, 0), cb.GetTupleElement(cs, 1)))
		if err != nil {
			panic(err)
		}
		bb := g.b.CreateSubBuilder("body")
		bs := bb.Parameter(0, state, "state")
		x, y := bb.GetTupleElement(bs, 2), bb.GetTupleElement(bs, 3)
		rot := y
		if n := s.Dims[0]; n > 1 {
			rot = bb.ConcatInDim([]ir.Op{bb.SliceInDim(y, 1, n, 1, 0), bb.SliceInDim(y, 0, 1, 1, 0)}, 0)
		}
		body, err := bb.BuildWithRoot(bb.Tuple(
			bb.Add(bb.GetTupleElement(bs, 0), bb.Constant(ir.ScalarLiteral(int32(1)))),
			bb.GetTupleElement(bs, 1), step(bb, t, x, y), rot))
		if err != nil {
			panic(err)
		}
		limit := g.paramOf(g.indices(ir.Scalar(ir.S32), 0, 5))
		init := g.b.Tuple(g.b.Constant(ir.ScalarLiteral(int32(0))), limit, g.param(s, niceValues), g.param(s, niceValues))
		return g.b.While(cond, body, init)
	}}
}

// conditionalGen picks a branch by a PRED or (indexed) by an S32 index that
// may be out of range (the last branch runs).
func conditionalGen(indexed bool) *opGen {
	name := "conditional"
	if indexed {
		name = "conditional-indexed"
	}
	return &opGen{name: name, hlo: "conditional", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.mainDims()...)
		branch := func(name string, f func(b *ir.Builder, x ir.Op) ir.Op) *ir.Computation {
			sb := g.b.CreateSubBuilder(name)
			c, err := sb.BuildWithRoot(f(sb, sb.Parameter(0, s, "x")))
			if err != nil {
				panic(err)
			}
			return c
		}
		rev := branch("reversed", func(b *ir.Builder, x ir.Op) ir.Op { return b.Rev(x, g.subset(s.Rank())) })
		twice := branch("twice", func(b *ir.Builder, x ir.Op) ir.Op { return step(b, t, x, x) })
		same := branch("same", func(b *ir.Builder, x ir.Op) ir.Op { return b.Copy(x) })
		if !indexed {
			return g.b.Conditional(g.param(ir.Scalar(ir.PRED), anyValues), g.param(s, anyValues), rev, g.param(s, anyValues), twice)
		}
		idx := g.paramOf(g.indices(ir.Scalar(ir.S32), -1, 4))
		return g.b.IndexedConditional(idx, []*ir.Computation{rev, twice, same},
			[]ir.Op{g.param(s, anyValues), g.param(s, anyValues), g.param(s, anyValues)})
	}}
}

// collectiveGens run the collectives in a module of one replica: each
// reduces, gathers or exchanges the one replica's value, with empty
// replica groups or the group {0}.
func collectiveGens() []*opGen {
	groups := func(g *gen) [][]int {
		if g.coin() {
			return nil
		}
		return [][]int{{0}}
	}
	return []*opGen{
		{name: "all-reduce", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			rd := g.reducerFor(t)
			if g.coin() {
				return g.b.AllReduce(g.b.Tuple(g.param(s, anyValues), g.param(s, anyValues)), rd.comp, groups(g))
			}
			return g.b.AllReduce(g.operand(s, anyValues), rd.comp, groups(g))
		}},
		{name: "cross-replica-sum", hlo: "all-reduce", types: numeric, build: func(g *gen, t ir.ElementType) ir.Op {
			return g.b.CrossReplicaSum(g.param(ir.MakeShape(t, g.mainDims()...), anyValues), groups(g))
		}},
		{name: "all-gather", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
			return g.b.AllGather(g.param(s, anyValues), g.intn(s.Rank()), 1, groups(g))
		}},
		{name: "reduce-scatter", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
			return g.b.ReduceScatter(g.param(s, anyValues), g.reducerFor(t).comp, g.intn(s.Rank()), 1, groups(g))
		}},
		{name: "all-to-all", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(1, 3))...)
			return g.b.AllToAll(g.param(s, anyValues), g.intn(s.Rank()), g.intn(s.Rank()), 1, groups(g))
		}},
		{name: "all-to-all-tuple", hlo: "all-to-all", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.between(0, 3))...)
			return g.b.AllToAllTuple([]ir.Op{g.param(s, anyValues)}, groups(g))
		}},
		{name: "collective-permute", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			var pairs [][2]int
			if g.coin() {
				pairs = [][2]int{{0, 0}}
			}
			return g.b.CollectivePermute(g.param(s, anyValues), pairs)
		}},
		{name: "collective-broadcast", types: anyType, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			return g.b.CollectiveBroadcast(g.param(s, anyValues), [][]int{{0}})
		}},
		{name: "replica-id", types: isU32, variant: true, build: func(g *gen, t ir.ElementType) ir.Op {
			return g.b.Tuple(g.b.ReplicaId(), g.b.PartitionId(), g.b.Add(g.b.ReplicaId(), g.param(ir.Scalar(ir.U32), anyValues)))
		}},
	}
}

func isU32(t ir.ElementType) bool { return t == ir.U32 }

// linalgGens: cholesky of symmetric (Hermitian) positive definite
// matrices, triangular solves of well-conditioned triangles (the triangle
// not read holds garbage), FFTs of every type, and the batch norms.
func linalgGens() []*opGen {
	return []*opGen{
		{name: "cholesky", types: floatOrCplx, build: func(g *gen, t ir.ElementType) ir.Op {
			batch := g.dims(g.intn(3))
			n := g.between(0, 7)
			if g.mode == modeOne {
				n = 1
			}
			lower := g.coin()
			a := g.spd(t, batch, n, lower)
			g.c.terms = max(n, 1)
			// Only the computed triangle is specified.
			g.c.ignore = func(out int, idx []int) bool {
				r, c := idx[len(idx)-2], idx[len(idx)-1]
				return (lower && c > r) || (!lower && r > c)
			}
			return g.b.Cholesky(g.paramOf(a), lower)
		}},
		{name: "triangular-solve", types: floatOrCplx, build: func(g *gen, t ir.ElementType) ir.Op {
			batch := g.dims(g.intn(3))
			m := g.between(0, 7)
			k := g.between(0, 5)
			left, lower, unit := g.coin(), g.coin(), g.coin()
			tk := pickOne(g, ir.NoTranspose, ir.Transpose, ir.Adjoint)
			a := g.triangle(t, batch, m, lower, unit)
			bd := append(append([]int(nil), batch...), m, k)
			if !left {
				bd = append(append([]int(nil), batch...), k, m)
			}
			g.c.terms = max(m, 1)
			return g.b.TriangularSolve(g.paramOf(a), g.param(ir.MakeShape(t, bd...), niceValues), left, lower, unit, tk)
		}},
		{name: "fft", types: linalgTypes, build: func(g *gen, t ir.ElementType) ir.Op {
			batch := g.dims(g.intn(3))
			rank := g.between(1, 3)
			length := g.posDims(rank)
			for prodInts(length)*max(prodInts(batch), 1) > 2*maxElements {
				length[argmax(length)] = g.between(1, 4)
			}
			g.c.terms = prodInts(length)
			if t.IsFloat() {
				x := g.param(ir.MakeShape(t, append(append([]int(nil), batch...), length...)...), niceValues)
				return g.b.Fft(x, ir.RFFT, length)
			}
			typ := pickOne(g, ir.FFT, ir.IFFT, ir.IRFFT)
			in := append(append([]int(nil), batch...), length...)
			if typ == ir.IRFFT {
				in[len(in)-1] = length[rank-1]/2 + 1
			}
			return g.b.Fft(g.param(ir.MakeShape(t, in...), niceValues), typ, length)
		}},
		batchNormGen("batch-norm-training"),
		batchNormGen("batch-norm-inference"),
		batchNormGen("batch-norm-grad"),
	}
}

// spd returns a batch of n×n symmetric (Hermitian) positive definite
// matrices B·Bᴴ + n·I whose unread triangle is overwritten with garbage.
func (g *gen) spd(t ir.ElementType, batch []int, n int, lower bool) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(t, append(append([]int(nil), batch...), n, n)...))
	count := max(prodInts(batch), 0)
	for bi := range count {
		bm := make([]complex128, n*n)
		for i := range bm {
			bm[i] = complex(g.unit(), 0)
			if t.IsComplex() {
				bm[i] = complex(g.unit(), g.unit())
			}
		}
		for i := range n {
			for j := range n {
				var v complex128
				for k := range n {
					v += bm[i*n+k] * complexConj(bm[j*n+k])
				}
				if i == j {
					v = complex(real(v)+float64(n), 0)
				}
				if (lower && j > i) || (!lower && i > j) {
					v = complex(g.unit()*100, g.unit())
				}
				setElem(l, bi*n*n+i*n+j, v)
			}
		}
	}
	return l
}

// triangle returns a batch of m×m triangular matrices with diagonal
// entries of magnitude 1 to 2 and small off-diagonal ones (well
// conditioned), garbage in the other triangle (and on the diagonal when
// unit).
func (g *gen) triangle(t ir.ElementType, batch []int, m int, lower, unit bool) *ir.Literal {
	l := ir.MustNewLiteral(ir.MakeShape(t, append(append([]int(nil), batch...), m, m)...))
	count := max(prodInts(batch), 0)
	for bi := range count {
		for i := range m {
			for j := range m {
				var v complex128
				switch {
				case i == j && unit:
					v = complex(g.unit()*50, 0)
				case i == j:
					v = complex(math.Copysign(1+math.Abs(g.unit()), g.unit()), 0)
				case (lower && j < i) || (!lower && j > i):
					v = complex(g.unit()/float64(m), 0)
					if t.IsComplex() {
						v = complex(g.unit()/float64(m), g.unit()/float64(m))
					}
				default:
					v = complex(g.unit()*100, g.unit()*100)
				}
				setElem(l, bi*m*m+i*m+j, v)
			}
		}
	}
	return l
}

func complexConj(c complex128) complex128 { return complex(real(c), -imag(c)) }

func setElem(l *ir.Literal, i int, v complex128) {
	if l.Shape().Elem.IsComplex() {
		l.SetComplex128At(i, v)
	} else {
		l.SetFloat64At(i, real(v))
	}
}

// unit returns a value uniform in [-1, 1).
func (g *gen) unit() float64 { return 2*float64(g.src.Uint64()>>11)/(1<<53) - 1 }

func batchNormGen(name string) *opGen {
	return &opGen{name: name, types: floatOnly, build: func(g *gen, t ir.ElementType) ir.Op {
		s := ir.MakeShape(t, g.dims(g.between(1, 4))...)
		fi := g.intn(s.Rank())
		c := ir.MakeShape(t, s.Dims[fi])
		eps := float32(pickOne(g, 1e-3, 1e-2, 0.1))
		g.c.terms = max(s.ElementCount()/max(s.Dims[fi], 1), 1)
		x := g.param(s, niceValues)
		switch name {
		case "batch-norm-training":
			return g.b.BatchNormTraining(x, g.param(c, niceValues), g.param(c, niceValues), eps, fi)
		case "batch-norm-inference":
			return g.b.BatchNormInference(x, g.param(c, niceValues), g.param(c, niceValues), g.param(c, niceValues),
				g.param(c, positiveValues), eps, fi)
		}
		return g.b.BatchNormGrad(x, g.param(c, niceValues), g.param(c, niceValues), g.param(c, positiveValues),
			g.param(s, niceValues), eps, fi)
	}}
}

// ioGens: infeed, outfeed, send and recv need a host on the other side,
// which neither ir/eval's default options nor an Executable have; both
// must refuse them with an error naming the op. The rng ops are checked
// for range (rng) or exactly (rng-bit-generator, a deterministic
// function of its state).
func ioGens() []*opGen {
	return []*opGen{
		{name: "infeed", types: anyType, needsHost: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			return g.b.GetTupleElement(g.b.InfeedWithToken(g.b.CreateToken(), s, ""), 0)
		}},
		{name: "outfeed", types: anyType, needsHost: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			x := g.param(s, anyValues)
			g.b.OutfeedWithToken(x, g.b.CreateToken(), s, "")
			return g.b.Copy(x)
		}},
		{name: "send", types: anyType, needsHost: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			x := g.param(s, anyValues)
			g.b.SendWithToken(x, g.b.CreateToken(), 1)
			return g.b.Copy(x)
		}},
		{name: "recv", types: anyType, needsHost: true, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.dims(g.intn(3))...)
			return g.b.GetTupleElement(g.b.RecvWithToken(g.b.CreateToken(), s, 1), 0)
		}},
		{name: "rng-uniform", hlo: "rng", types: notComplex, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			lo, hi := float64(g.between(-8, 0)), float64(g.between(1, 8))
			if t.IsUnsigned() || t == ir.PRED {
				lo = 0
			}
			if t == ir.PRED {
				hi = 1
			}
			a, b := ir.MustNewLiteral(ir.Scalar(t)), ir.MustNewLiteral(ir.Scalar(t))
			a.SetFloat64At(0, lo)
			b.SetFloat64At(0, hi)
			g.c.rng, g.c.lo, g.c.hi = "uniform", lo, hi
			if t == ir.PRED || (t.IsFloat() && t.BitWidth() < 32) {
				g.c.hi = math.Nextafter(hi, math.Inf(1)) // rounding may reach hi
			}
			return g.b.RngUniform(g.b.Constant(a), g.b.Constant(b), s)
		}},
		{name: "rng-normal", hlo: "rng", types: floatOnly, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			mu, sigma := ir.MustNewLiteral(ir.Scalar(t)), ir.MustNewLiteral(ir.Scalar(t))
			mu.SetFloat64At(0, g.unit())
			sigma.SetFloat64At(0, 1+g.unit()/2)
			g.c.rng = "normal"
			return g.b.RngNormal(g.b.Constant(mu), g.b.Constant(sigma), s)
		}},
		{name: "rng-bit-generator", types: bitTypes, build: func(g *gen, t ir.ElementType) ir.Op {
			s := ir.MakeShape(t, g.mainDims()...)
			alg := pickOne(g, ir.RngDefault, ir.RngThreeFry, ir.RngPhilox)
			n := 2
			if alg == ir.RngPhilox && g.coin() {
				n = 3
			}
			state := g.param(ir.MakeShape(ir.U64, n), anyValues)
			return g.b.RngBitGenerator(alg, state, s)
		}},
	}
}
