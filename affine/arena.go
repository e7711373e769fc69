package affine

// The simplifier builds many expressions that only live while it runs: the
// passes rewrite an expression several times before it reaches its final
// form. It builds them in an arena of nodes that it keeps from one
// simplification to the next, and copies out of it only what it returns.
// The arena also remembers the nodes it built and the nodes the simplifier
// met, by structure, so that building an expression that already exists
// returns the existing one: its range and its simplification are then
// already in the memo, and comparing it is comparing pointers.

// builder makes the nodes of new expressions: the zero builder on the heap,
// a simplifier's builder in its arena.
type builder struct{ a *arena }

// binary builds the node lhs op rhs as it is, except that an operation on two
// constants is evaluated (XLA's CreateSymbolicBinaryOp). Evaluating a
// division or remainder by zero, or an overflowing sum or product, keeps the
// node unevaluated.
func (b builder) binary(o op, lhs, rhs Expr) Expr {
	if x, ok := lhs.Constant(); ok {
		if y, ok := rhs.Constant(); ok {
			if v, ok := evalOp(o, x, y); ok {
				return b.constant(v)
			}
		}
	}
	h := binaryHash(o, lhs.Hash(), rhs.Hash())
	if b.a == nil {
		return Expr{&node{op: o, lhs: lhs, rhs: rhs, x: h, scratch: lhs.isScratch() || rhs.isScratch()}}
	}
	en := &b.a.known[h%arenaKnown]
	if en.n != nil && en.gen == b.a.gen {
		if n := en.n; n.x == h && n.op == o && n.lhs.Equal(lhs) && n.rhs.Equal(rhs) {
			return Expr{n}
		}
	}
	n := b.a.alloc()
	*n = node{op: o, lhs: lhs, rhs: rhs, x: h, scratch: true}
	*en = knownNode{n, b.a.gen}
	return Expr{n}
}

// constant is Const(c), built by b when it needs a node of its own.
func (b builder) constant(c int64) Expr {
	if b.a == nil || (-preallocConsts <= c && c < preallocConsts) {
		return Const(c)
	}
	en := &b.a.known[leafHash(opConst, c)%arenaKnown]
	if en.n != nil && en.gen == b.a.gen && en.n.op == opConst && en.n.val() == c {
		return Expr{en.n}
	}
	n := b.a.alloc()
	*n = node{op: opConst, x: uint64(c), scratch: true}
	*en = knownNode{n, b.a.gen}
	return Expr{n}
}

// meet remembers the operation e, which the simplifier met, so that
// building the same expression returns it.
func (b builder) meet(e Expr) {
	if b.a != nil && e.IsBinary() {
		b.a.known[e.n.x%arenaKnown] = knownNode{e.n, b.a.gen}
	}
}

// arena hands out nodes from chunks that it reuses after reset. A node of
// the arena is marked scratch, and so is every node built above one, so that
// detach finds what must be copied out before the arena is reset.
type arena struct {
	chunks [][]node
	cur    int // the chunk being filled
	next   int // its first free node
	// known holds nodes built or met since the last reset, direct-mapped
	// by structural hash: a collision only loses an entry. Entries of an
	// older generation are stale.
	known [arenaKnown]knownNode
	gen   uint32
}

type knownNode struct {
	n   *node
	gen uint32
}

const (
	arenaChunk      = 128 // nodes per chunk
	arenaKeptChunks = 16  // chunks kept for the next simplification (64 KiB)
	arenaKnown      = 1024
)

func (a *arena) alloc() *node {
	if a.cur == len(a.chunks) {
		a.chunks = append(a.chunks, make([]node, arenaChunk))
	}
	c := a.chunks[a.cur]
	n := &c[a.next]
	if a.next++; a.next == len(c) {
		a.cur, a.next = a.cur+1, 0
	}
	return n
}

// reset makes every node of the arena free again. Nothing built in it may be
// used afterwards. The nodes are cleared so that they do not keep the
// expressions they pointed to alive; chunks beyond a few are dropped.
func (a *arena) reset() {
	for i := 0; i < a.cur; i++ {
		clear(a.chunks[i])
	}
	if a.cur < len(a.chunks) {
		clear(a.chunks[a.cur][:a.next])
	}
	if len(a.chunks) > arenaKeptChunks {
		clear(a.chunks[arenaKeptChunks:])
		a.chunks = a.chunks[:arenaKeptChunks]
	}
	a.cur, a.next = 0, 0
	if a.gen++; a.gen == 0 {
		a.known = [arenaKnown]knownNode{}
		a.gen = 1
	}
}

// detacher copies expressions out of an arena, each shared node once.
type detacher map[*node]*node

// detach returns e with every scratch node copied to the heap; an
// expression without one is returned as it is.
func (d *detacher) detach(e Expr) Expr {
	if !e.isScratch() {
		return e
	}
	if c, ok := (*d)[e.n]; ok {
		return Expr{c}
	}
	c := &node{op: e.n.op, x: e.n.x}
	if e.IsBinary() {
		c.lhs, c.rhs = d.detach(e.n.lhs), d.detach(e.n.rhs)
	}
	if *d == nil {
		*d = make(detacher)
	}
	(*d)[e.n] = c
	return Expr{c}
}
