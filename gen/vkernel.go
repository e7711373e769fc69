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
	// states is the number of accumulators per unrolled copy; kernels with
	// accumulators prefer unrolling (independent chains) to hoisting.
	states int
	init   func(c *kctx) []val // the accumulators' initial values
	body   func(c *kctx)       // one vector
	finish func(c *kctx, states [][]val)
	// noTwin: the kernel's Go twin is written by hand (reductions).
	noTwin bool
}

// argKind is the Go type class of a kernel argument.
type argKind uint8

const (
	aSlice argKind = iota
	aF32
	aF64
)

type karg struct {
	name string
	kind argKind
	elem elem // slices
}

func sliceArg(name string, e elem) karg { return karg{name: name, kind: aSlice, elem: e} }
func f32Arg(name string) karg           { return karg{name: name, kind: aF32} }
func f64Arg(name string) karg           { return karg{name: name, kind: aF64} }

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
	b     *vb
	k     *vkernel
	copy  int
	loads map[int]val
	st    []val
	next  []val
}

// in is the vector of slice argument i at this copy's position.
func (c *kctx) in(i int) val {
	if v, ok := c.loads[i]; ok {
		return v
	}
	a := c.k.args[i]
	if a.kind != aSlice {
		panic(fmt.Sprintf("%s: argument %s is not a slice", c.k.name, a.name))
	}
	v := c.b.emit(opLoad, a.elem.kind(), a.elem.kind())
	in := &(*c.b.cur)[len(*c.b.cur)-1]
	in.imm, in.imm2, in.el = i, c.copy, a.elem
	c.loads[i] = v
	return v
}

// out stores v to slice argument i at this copy's position.
func (c *kctx) out(i int, v val) {
	a := c.k.args[i]
	if a.kind != aSlice {
		panic(fmt.Sprintf("%s: argument %s is not a slice", c.k.name, a.name))
	}
	c.b.check(a.elem.kind(), v)
	*c.b.cur = append(*c.b.cur, inst{op: opStore, kind: a.elem.kind(), el: a.elem, args: []val{v}, imm: i, imm2: c.copy})
}

// scalar is scalar argument i broadcast to every lane.
func (c *kctx) scalar(i int) val {
	switch c.k.args[i].kind {
	case aF32:
		return c.b.param(i, vF32)
	case aF64:
		return c.b.param(i, vF64)
	}
	panic(fmt.Sprintf("%s: argument %s is not a scalar", c.k.name, c.k.args[i].name))
}

func (c *kctx) state(j int) val     { return c.st[j] }
func (c *kctx) set(j int, v val)    { c.next[j] = v }
func (c *kctx) lanes() int          { return c.b.t.lanes(c.k.lane) }
func (c *kctx) laneIndex() val      { return c.b.iota() }
func (c *kctx) ret(i int, v val)    { c.b.ret(i, v) }
func (c *kctx) retVec(i int, v val) { c.b.retVec(i, v) }

// build writes the kernel's program for a target with u copies per main-loop
// iteration, and returns the accumulator updates of the two loops.
func (k *vkernel) build(t *target, u int) (*prog, []stateUpdate, []stateUpdate) {
	p := newProg()
	b := &vb{t: t, p: p, cur: &p.pro}
	states := make([][]val, u)
	for cp := 0; cp < u && k.states > 0; cp++ {
		c := &kctx{b: b, k: k, copy: cp, loads: map[int]val{}}
		init := k.init(c)
		if len(init) != k.states {
			panic(fmt.Sprintf("%s: init returned %d values for %d states", k.name, len(init), k.states))
		}
		for _, v := range init {
			s := p.newVal(p.kind(v))
			p.vals[s].pinned = true
			p.pro = append(p.pro, inst{op: opMove, kind: p.kind(v), args: []val{v}, res: s})
			states[cp] = append(states[cp], s)
		}
	}
	run := func(blk *block, copies int) []stateUpdate {
		b.cur = blk
		var ups []stateUpdate
		for cp := 0; cp < copies; cp++ {
			c := &kctx{b: b, k: k, copy: cp, loads: map[int]val{}}
			if k.states > 0 {
				c.st = states[cp]
				c.next = append([]val(nil), states[cp]...)
			}
			k.body(c)
			for j := range c.next {
				if c.next[j] != c.st[j] {
					ups = append(ups, stateUpdate{c.st[j], c.next[j]})
				}
			}
		}
		return ups
	}
	bodyUps := run(&p.body, u)
	tailUps := run(&p.tail, 1)
	b.cur = &p.epi
	if k.finish != nil {
		k.finish(&kctx{b: b, k: k, loads: map[int]val{}}, states)
	}
	return p, bodyUps, tailUps
}

// compile builds and allocates the kernel for a target, choosing how far to
// unroll and which constants to hoist: map kernels keep every constant in a
// register first and unroll as far as the rest allows; accumulating kernels
// unroll first.
func (k *vkernel) compile(t *target) (*allocation, int, error) {
	try := func(u, h int) (*allocation, error) {
		p, bs, ts := k.build(t, u)
		cs := constUses(p)
		if h > len(cs) {
			h = len(cs)
		}
		return allocate(t, p, cs[:h], bs, ts)
	}
	var lastErr error
	if k.states == 0 {
		for u := k.unroll; u >= 1; u-- {
			a, err := try(u, 1<<20)
			if err == nil {
				return a, u, nil
			}
			lastErr = err
		}
	}
	for u := k.unroll; u >= 1; u-- {
		for h := 64; h >= 0; h-- {
			a, err := try(u, h)
			if err == nil {
				return a, u, nil
			}
			lastErr = err
		}
	}
	return nil, 0, fmt.Errorf("%s for %s: %v", k.name, t.name, lastErr)
}
