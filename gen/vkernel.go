package main

import (
	"fmt"
	"strings"
)

// vkernel is one streaming kernel: it walks the n elements of its slice
// arguments (n is the length of the first) a vector at a time, reading some
// slices and writing others, optionally folding values into accumulators
// that its epilogue combines into results. The Go side hands the assembly
// kernels only whole vectors (n a multiple of the lane count); the twin
// handles any n, and the Go wrappers give it the remainder.
type vkernel struct {
	name string // Go name stem; the backends append the target, e.g. "expF32" → expF32AVX512
	doc  string // what it computes, completing "<name> …"
	args []karg
	res  []kres
	// lane is the element kind that sets the step: vF32, or vF64 for
	// float64 kernels.
	lane vkind
	// unroll is the most vectors one main-loop iteration handles.
	unroll int
	// states is the number of accumulators per unrolled copy, shared the
	// number of accumulators common to all copies; kernels with
	// accumulators prefer unrolling (independent chains) to hoisting.
	states, shared int
	init           func(c *kctx) []val // a copy's accumulators' initial values
	initShared     func(c *kctx) []val
	body           func(c *kctx) // one vector
	// flush, when flushEvery > 0, runs after every flushEvery main-loop
	// iterations (and is the place to fold float32 partial sums into
	// float64 totals); finish runs once at the end. Both see every
	// accumulator (c.all, c.sharedAll) and set them with c.update.
	flushEvery int
	flush      func(c *kctx)
	finish     func(c *kctx)
	// ntVariant asks for a second amd64 kernel, named with an NT suffix,
	// whose vector stores are non-temporal (they bypass the caches): for
	// outputs too large for the last-level cache. Its slice to write must be
	// aligned to the vector width; other levels list the ordinary kernel.
	ntVariant bool
	// nt marks that variant.
	nt bool
	// noTwin: the kernel's Go twin is written by hand (reductions).
	noTwin bool
}

// argKind is the Go type class of a kernel argument.
type argKind uint8

const (
	aSlice argKind = iota
	aF32
	aF64
	aI32
)

type karg struct {
	name string
	kind argKind
	elem elem // slices
}

func sliceArg(name string, e elem) karg { return karg{name: name, kind: aSlice, elem: e} }
func f32Arg(name string) karg           { return karg{name: name, kind: aF32} }
func i32Arg(name string) karg           { return karg{name: name, kind: aI32} }

// kres is a kernel result.
type kres struct {
	name   string
	goType string // "float32", "float64", "[16]float32", "[16]int32"
}

// maxVecLanes is the lane count of the widest float32 vector; array
// results have this many elements.
const maxVecLanes = 16

func (r kres) size() int {
	switch r.goType {
	case "float32":
		return 4
	case "float64":
		return 8
	}
	return 4 * maxVecLanes
}

// signature is the Go signature without "func" and the name.
func (k *vkernel) signature() string {
	var ps []string
	for _, a := range k.args {
		switch a.kind {
		case aSlice:
			ps = append(ps, a.name+" []"+elemGo[a.elem])
		case aF32:
			ps = append(ps, a.name+" float32")
		case aF64:
			ps = append(ps, a.name+" float64")
		case aI32:
			ps = append(ps, a.name+" int32")
		}
	}
	s := "(" + strings.Join(ps, ", ") + ")"
	if len(k.res) > 0 {
		var rs []string
		for _, r := range k.res {
			rs = append(rs, r.name+" "+r.goType)
		}
		s += " (" + strings.Join(rs, ", ") + ")"
	}
	return s
}

// kctx is what a kernel's code sees while one copy of it is built.
type kctx struct {
	b      *vb
	k      *vkernel
	copy   int // this copy
	copies int // copies in this block
	loads  map[int]val
	st     [][]val     // every copy's accumulators
	sh     []val       // the shared accumulators
	cur    map[val]val // accumulator → its value so far in this block
	order  *[]val      // accumulators in the order they were first updated
}

// in is the vector of slice argument i at this copy's position, widened
// to float32 for the narrow floating-point types.
func (c *kctx) in(i int) val {
	if v, ok := c.loads[i]; ok {
		return v
	}
	a := c.k.args[i]
	if a.kind != aSlice {
		panic(fmt.Sprintf("%s: argument %s is not a slice", c.k.name, a.name))
	}
	raw := a.elem.rawLoad()
	v := c.b.emit(opLoad, raw.kind(), raw.kind())
	in := &(*c.b.cur)[len(*c.b.cur)-1]
	in.imm, in.imm2, in.el = i, c.copy, raw
	switch a.elem {
	case eBF16:
		v = c.b.asF32(c.b.shl(v, 16))
	case eF16:
		// The hardware quiets signalling NaNs; XLA's widening keeps the
		// payload as it is.
		bits := c.b.emit(opLoad, vI32, vI32)
		ld := &(*c.b.cur)[len(*c.b.cur)-1]
		ld.imm, ld.imm2, ld.el = i, c.copy, eU16
		v = vf16Unquiet(c.b, v, bits)
	case eE4M3:
		v = ve4m3ToF32(c.b, v)
	case eE5M2:
		v = vf16ToF32(c.b, c.b.shl(v, 8))
	}
	c.loads[i] = v
	return v
}

// out stores v to slice argument i at this copy's position. A float32 value
// stored to a narrow floating-point slice is rounded as XLA converts (to
// nearest even; NaN keeps its sign and top payload bits); an int32 value
// stored to a narrower integer slice keeps its low bits (XLA's wrapping
// integer conversion).
func (c *kctx) out(i int, v val) {
	a := c.k.args[i]
	if a.kind != aSlice {
		panic(fmt.Sprintf("%s: argument %s is not a slice", c.k.name, a.name))
	}
	b := c.b
	if a.elem.narrowFloat() && a.elem.storeKind(b.t) != vF32 {
		b.check(vF32, v)
		switch a.elem {
		case eBF16:
			v = vf32ToBF16(b, v)
		case eF16:
			v = vf32ToF16(b, v)
		case eE4M3:
			v = vf32ToE4M3(b, v)
		case eE5M2:
			v = vf32ToE5M2(b, v)
		}
	}
	if b.t == tAVX2 {
		// AVX2 narrows by packing with saturation: keep only the bits
		// the store keeps, so that it wraps as the other targets do.
		switch a.elem {
		case eU16, eS16, eBF16, eF16:
			v = b.and(v, b.i32(0xffff))
		case eU8, eS8, eE4M3, eE5M2:
			v = b.and(v, b.i32(0xff))
		}
	}
	b.check(a.elem.storeKind(b.t), v)
	*b.cur = append(*b.cur, inst{op: opStore, kind: a.elem.storeKind(b.t), el: a.elem, args: []val{v}, imm: i, imm2: c.copy})
}

// scalar is scalar argument i broadcast to every lane.
func (c *kctx) scalar(i int) val {
	switch c.k.args[i].kind {
	case aF32:
		return c.b.param(i, vF32)
	case aF64:
		return c.b.param(i, vF64)
	case aI32:
		return c.b.param(i, vI32)
	}
	panic(fmt.Sprintf("%s: argument %s is not a scalar", c.k.name, c.k.args[i].name))
}

// get is an accumulator's current value in this block.
func (c *kctx) get(s val) val {
	if v, ok := c.cur[s]; ok {
		return v
	}
	return s
}

// update sets an accumulator's value at the end of this block.
func (c *kctx) update(s, v val) {
	if !c.b.p.vals[s].pinned {
		panic(fmt.Sprintf("%s: update of a value that is not an accumulator", c.k.name))
	}
	c.b.check(c.b.p.kind(s), v)
	if c.b.p.vals[v].konst {
		// A constant becomes a value of the block (the allocator loads
		// constants only for the instructions that read them).
		v = c.b.emit(opMove, c.b.p.kind(v), c.b.p.kind(v), v)
	}
	if _, ok := c.cur[s]; !ok {
		*c.order = append(*c.order, s)
	}
	c.cur[s] = v
}

func (c *kctx) state(j int) val       { return c.get(c.st[c.copy][j]) }
func (c *kctx) set(j int, v val)      { c.update(c.st[c.copy][j], v) }
func (c *kctx) sharedState(j int) val { return c.get(c.sh[j]) }
func (c *kctx) setShared(j int, v val) {
	c.update(c.sh[j], v)
}
func (c *kctx) lanes() int          { return c.b.t.lanes(c.k.lane) }
func (c *kctx) ret(i int, v val)    { c.b.ret(i, v) }
func (c *kctx) retVec(i int, v val) { c.b.retVec(i, v) }

// all returns every copy's accumulator j, current in this block.
func (c *kctx) all(j int) []val {
	vs := make([]val, len(c.st))
	for u := range c.st {
		vs[u] = c.get(c.st[u][j])
	}
	return vs
}

// build writes the kernel's program for a target with u copies per main-loop
// iteration, and returns the accumulator updates of the loop blocks.
func (k *vkernel) build(t *target, u int, interleave bool) (p *prog, bodyUps, tailUps, flushUps []stateUpdate) {
	p = newProg()
	b := &vb{t: t, p: p, cur: &p.pro}
	pin := func(v val) val {
		s := p.newVal(p.kind(v))
		p.vals[s].pinned = true
		p.pro = append(p.pro, inst{op: opMove, kind: p.kind(v), args: []val{v}, res: s})
		return s
	}
	states := make([][]val, u)
	var shared []val
	ctx := func(cp, copies int) *kctx {
		return &kctx{b: b, k: k, copy: cp, copies: copies, loads: map[int]val{}, st: states, sh: shared, cur: map[val]val{}, order: new([]val)}
	}
	for cp := 0; cp < u && k.states > 0; cp++ {
		init := k.init(ctx(cp, u))
		if len(init) != k.states {
			panic(fmt.Sprintf("%s: init returned %d values for %d states", k.name, len(init), k.states))
		}
		for _, v := range init {
			states[cp] = append(states[cp], pin(v))
		}
	}
	if k.shared > 0 {
		for _, v := range k.initShared(ctx(0, u)) {
			shared = append(shared, pin(v))
		}
	}
	ups := func(c *kctx) []stateUpdate {
		var us []stateUpdate
		for _, s := range *c.order {
			if c.cur[s] != s {
				us = append(us, stateUpdate{s, c.cur[s]})
			}
		}
		return us
	}
	// The copies of the main loop are built separately and interleaved
	// instruction by instruction, so that the dependency chains of
	// different copies sit next to each other in the instruction stream
	// and the scheduler finds independent work within its window.
	run := func(blk *block, copies int) []stateUpdate {
		c := ctx(0, copies)
		parts := make([]block, copies)
		for cp := 0; cp < copies; cp++ {
			b.cur = &parts[cp]
			c.copy = cp
			c.loads = map[int]val{}
			k.body(c)
		}
		for i := 0; interleave; i++ {
			more := false
			for _, part := range parts {
				if i < len(part) {
					*blk = append(*blk, part[i])
					more = true
				}
			}
			if !more {
				break
			}
		}
		if !interleave {
			for _, part := range parts {
				*blk = append(*blk, part...)
			}
		}
		b.cur = blk
		return ups(c)
	}
	bodyUps = run(&p.body, u)
	tailUps = run(&p.tail, 1)
	if k.flushEvery > 0 {
		b.cur = &p.flush
		c := ctx(0, u)
		k.flush(c)
		flushUps = ups(c)
	}
	b.cur = &p.epi
	if k.finish != nil {
		k.finish(ctx(0, u))
	}
	return p, bodyUps, tailUps, flushUps
}

// compile builds and allocates the kernel for a target, choosing how far to
// unroll and which constants to hoist: the most copies that fit, interleaved
// if they can be, then as many constants in registers as remain free (the
// others are broadcast from memory where they are used, which costs a load
// but no register). The copies are what hides the latency of the long
// dependency chains of the elementary functions.
func (k *vkernel) compile(t *target) (*allocation, int, error) {
	try := func(u, h int, interleave bool) (*allocation, error) {
		p, bs, ts, fs := k.build(t, u, interleave)
		cs := constUses(p)
		if h > len(cs) {
			h = len(cs)
		}
		return allocate(t, p, cs[:h], bs, ts, fs)
	}
	var lastErr error
	for u := k.unroll; u >= 1; u-- {
		// Interleaved copies need more registers than copies one after
		// the other, which still give the core independent work.
		for _, il := range []bool{true, false} {
			for h := 64; h >= 0; h-- {
				a, err := try(u, h, il)
				if err == nil {
					return a, u, nil
				}
				lastErr = err
			}
			if u == 1 {
				break
			}
		}
	}
	return nil, 0, fmt.Errorf("%s for %s: %v", k.name, t.name, lastErr)
}
