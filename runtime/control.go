package runtime

import (
	"fmt"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
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
	s.inPlace = inPlaceState(body.plan, len(s.state))
	for i, l := range s.state {
		s.next = append(s.next, loc{kind: sched.Arena, off: off, size: l.size})
		if !s.inPlace[i] {
			off += roundUp(l.size, 64)
		}
	}
	body.arena = off
	return s, nil
}

// inPlaceState reports, for each state element of a while loop, whether
// the body's plan writes it over the old one (sched's in-place decision on
// the body's aliases).
func inPlaceState(plan *sched.Plan, leaves int) []bool {
	ok := make([]bool, leaves)
	if len(plan.Results) != leaves {
		return ok
	}
	for _, a := range plan.Aliases {
		if a.Result == a.Param && a.Result < leaves {
			ok[a.Result] = a.InPlace
		}
	}
	return ok
}

func (s *whileStep) name() string { return "while" }

func (s *whileStep) exec(fr *frame) error {
	for i, l := range s.init {
		copy(fr.bytes(s.state[i]), fr.bytes(l))
	}
	cf, bf := fr.sub[s.cond.id], fr.sub[s.body.id]
	cf.ctx, bf.ctx = fr.ctx, fr.ctx
	for {
		if err := fr.cancelled(); err != nil {
			return err
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
