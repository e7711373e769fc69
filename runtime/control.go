package runtime

import (
	"fmt"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// whileStep runs a while loop: the state starts as a copy of the operand;
// each iteration runs the condition program on it, and, while it yields
// true, the body program, whose results become the next state. A state
// element the body computes only after its last read of the old value is
// written in place; the others go to a second area of the body's arena and
// are copied back after the iteration.
type whileStep struct {
	init, state []loc
	cond, body  *program
	pred        loc    // in the condition's frame
	next        []loc  // in the body's frame
	inPlace     []bool // the body writes state element i directly
}

func (c *compiler) whileStep(plan *sched.Plan, k *sched.Kernel) (step, error) {
	v := k.Root
	cond, err := c.program(plan.Subplans[v.Funcs[0]])
	if err != nil {
		return nil, fmt.Errorf("condition: %w", err)
	}
	body, err := c.program(plan.Subplans[v.Funcs[1]])
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	s := &whileStep{init: c.leaves(k.In[0]), state: c.leaves(k.Out), cond: cond, body: body}
	// The predicate and the next state live at the end of the subprograms' arenas.
	s.pred = loc{kind: sched.Arena, off: roundUp(cond.arena, 64), size: 1}
	cond.arena = roundUp(cond.arena, 64) + 64
	off := roundUp(body.arena, 64)
	s.inPlace = writesAfterLastRead(body.plan, len(s.state))
	for i, l := range s.state {
		s.next = append(s.next, loc{kind: sched.Arena, off: off, size: l.size})
		if !s.inPlace[i] {
			off += roundUp(l.size, 64)
		}
	}
	body.arena = off
	return s, nil
}

// writesAfterLastRead reports, for each result leaf of a loop body, whether
// the body may write it over the parameter leaf of the same index: the
// kernel producing it runs after every kernel that reads the parameter, or
// is that last reader and a loop reading the parameter only element for
// element (at the position it writes).
func writesAfterLastRead(plan *sched.Plan, leaves int) []bool {
	ok := make([]bool, leaves)
	if len(plan.Results) != leaves {
		return ok
	}
	lastRead := make([]int, leaves)
	for i := range lastRead {
		lastRead[i] = -1
	}
	producer := make([]int, leaves)
	for i := range producer {
		producer[i] = -1
	}
	for ki, k := range plan.Kernels {
		for _, in := range k.In {
			for _, b := range paramLeaves(in) {
				if b.Param < leaves {
					lastRead[b.Param] = ki
				}
			}
		}
		for _, r := range resultLeaves(k.Out) {
			if r.Result < leaves {
				producer[r.Result] = ki
			}
		}
	}
	for i := range ok {
		ok[i] = producer[i] > lastRead[i]
		if p := producer[i]; p >= 0 && p == lastRead[i] {
			k := plan.Kernels[p]
			if updatesInPlace(k, i) {
				ok[i] = true
				continue
			}
			if k.Kind != sched.Loop || k.Loop == nil {
				continue
			}
			ok[i] = true
			for in, b := range k.In {
				for _, l := range paramLeaves(b) {
					if l.Param == i && !sched.ReadsElementwise(k.Loop, in) {
						ok[i] = false
					}
				}
			}
		}
	}
	return ok
}

// updatesInPlace reports whether kernel k is a dynamic-update-slice of
// the whole parameter leaf i that reads the leaf through its operand only:
// written over the leaf, it copies just the update (a loop updating one row
// of a large buffer per iteration then costs the row, not the buffer).
func updatesInPlace(k *sched.Kernel, i int) bool {
	if k.Kind != sched.Generic || k.Root.Op != ssa.Op(ir.OpDynamicUpdateSlice) || len(k.Root.Args) < 2 {
		return false
	}
	a := indexOf(k.Inputs, k.Root.Args[0])
	if a < 0 || k.In[a].Kind == sched.Tuple {
		return false
	}
	root, off := k.In[a].Root()
	if root.Kind != sched.Param || root.Param != i || off != 0 || root.Size() != k.In[a].Size() {
		return false
	}
	for j, b := range k.In {
		for _, l := range paramLeaves(b) {
			if j != a && l.Param == i {
				return false
			}
		}
	}
	return true
}

// paramLeaves resolves a buffer to the parameter leaves whose memory it uses.
func paramLeaves(b *sched.Buffer) []*sched.Buffer {
	if b.Kind == sched.Tuple {
		var out []*sched.Buffer
		for _, e := range b.Elems {
			out = append(out, paramLeaves(e)...)
		}
		return out
	}
	if r, _ := b.Root(); r.Kind == sched.Param {
		return []*sched.Buffer{r}
	}
	return nil
}

// resultLeaves resolves a buffer to the result leaves it writes.
func resultLeaves(b *sched.Buffer) []*sched.Buffer {
	if b.Kind == sched.Tuple {
		var out []*sched.Buffer
		for _, e := range b.Elems {
			out = append(out, resultLeaves(e)...)
		}
		return out
	}
	if r, _ := b.Root(); r.Kind == sched.Result {
		return []*sched.Buffer{r}
	}
	return nil
}

func (s *whileStep) name() string { return "while" }

func (s *whileStep) exec(fr *frame) error {
	for i, l := range s.init {
		copy(fr.bytes(s.state[i]), fr.bytes(l))
	}
	cf, bf := fr.sub[s.cond.id], fr.sub[s.body.id]
	cf.ctx, bf.ctx = fr.ctx, fr.ctx
	for {
		if fr.ctx != nil {
			if err := fr.ctx.Err(); err != nil {
				return err
			}
		}
		for i, l := range s.state {
			cf.params[i] = fr.bytes(l)
		}
		cf.results[0] = cf.bytes(s.pred)
		if err := s.cond.run(cf); err != nil {
			return err
		}
		if cf.results[0][0] == 0 {
			return nil
		}
		for i, l := range s.state {
			bf.params[i] = fr.bytes(l)
			if s.inPlace[i] {
				bf.results[i] = bf.params[i]
			} else {
				bf.results[i] = bf.bytes(s.next[i])
			}
		}
		if err := s.body.run(bf); err != nil {
			return err
		}
		for i, l := range s.state {
			if !s.inPlace[i] {
				copy(fr.bytes(l), bf.results[i])
			}
		}
	}
}

// conditionalStep runs the branch program chosen by a PRED (true: branch 0)
// or an S32 index (out of range: the last branch) on its operand, writing
// the branch's results into the conditional's output.
type conditionalStep struct {
	selector ir.ElementType
	sel      loc
	operands [][]loc
	branches []*program
	out      []loc
}

func (c *compiler) conditionalStep(plan *sched.Plan, k *sched.Kernel) (step, error) {
	v := k.Root
	s := &conditionalStep{selector: v.Args[0].Shape.Elem, out: c.leaves(k.Out)}
	bufOf := func(a int) *sched.Buffer { return k.In[indexOf(k.Inputs, v.Args[a])] }
	s.sel = c.loc(bufOf(0))
	for i, g := range v.Funcs {
		p, err := c.program(plan.Subplans[g])
		if err != nil {
			return nil, fmt.Errorf("branch %d: %w", i, err)
		}
		s.branches = append(s.branches, p)
		s.operands = append(s.operands, c.leaves(bufOf(i+1)))
	}
	return s, nil
}

func (s *conditionalStep) name() string { return "conditional" }

func (s *conditionalStep) exec(fr *frame) error {
	sel := fr.bytes(s.sel)
	b := len(s.branches) - 1
	if s.selector == ir.PRED {
		if sel[0] != 0 {
			b = 0
		} else {
			b = 1
		}
	} else if i := *(*int32)(unsafe.Pointer(&sel[0])); i >= 0 && int(i) < len(s.branches) {
		b = int(i)
	}
	p := s.branches[b]
	bf := fr.sub[p.id]
	bf.ctx = fr.ctx
	for i, l := range s.operands[b] {
		bf.params[i] = fr.bytes(l)
	}
	for i, l := range s.out {
		bf.results[i] = fr.bytes(l)
	}
	return p.run(bf)
}
