package runtime

// Kernels over values of run-time size that no fast step can resize (ops
// without one, element types the fused loop does not take, a fused loop
// whose operands a run-time size moves out of the bounds' layout) run the
// generic step of each value, as ir/ops plans it, at the values' actual
// sizes. The sizes depend only on the kernel's symbols, so the plans for
// every value the symbols can take are made at compile time; a run picks
// the plan of its sizes and allocates nothing.

import (
	"errors"
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// maxSizePlans bounds the plans one kernel may have (the product over its
// symbols of their bounds plus one).
const maxSizePlans = 1 << 12

// errNotSized reports a kernel the compiled path cannot run at run-time
// sizes with the program compiled at the bounds; Compile then compiles the
// program without dropping its dynamic marks.
var errNotSized = errors.New("runtime: a kernel cannot follow run-time sizes")

// perSizeStep runs the plan made for the current values of its symbols.
type perSizeStep struct {
	syms   []int // the symbols the kernel's sizes depend on
	bounds []int
	plans  [][]step // by the symbols' values, mixed radix (bound+1)
}

func (s *perSizeStep) name() string { return "per-size" }

func (s *perSizeStep) exec(fr *frame) error {
	idx := 0
	for i, sym := range s.syms {
		idx = idx*(s.bounds[i]+1) + fr.sizes.syms[sym]
	}
	for _, st := range s.plans[idx] {
		if err := st.exec(fr); err != nil {
			return err
		}
	}
	return nil
}

// perSizeStep compiles kernel k value by value for every value of its
// symbols.
func (c *compiler) perSizeStep(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	t := c.sizes
	s := &perSizeStep{}
	seen := map[int]bool{}
	note := func(v *ssa.Value) {
		for _, l := range t.sizesOf(v) {
			for _, e := range l {
				if !e.isStatic() && !seen[e.sym] {
					seen[e.sym] = true
					s.syms = append(s.syms, e.sym)
					s.bounds = append(s.bounds, t.syms[e.sym].bound)
				}
			}
		}
	}
	for _, v := range k.Inputs {
		note(v)
	}
	for _, v := range k.Values {
		note(v)
		if _, ok := genericSteps[v.Op]; !ok {
			return nil, fmt.Errorf("%w: %v has no generic step to run at run-time sizes", errNotSized, v.Op)
		}
	}
	combos := 1
	for _, b := range s.bounds {
		combos *= b + 1
		if combos > maxSizePlans {
			return nil, fmt.Errorf("%w: %s has more than %d combinations of run-time sizes", errNotSized, k, maxSizePlans)
		}
	}
	// Where each value lives: the kernel's buffers for its inputs and
	// root, arena buffers at the bounds for the values inside it.
	where := map[*ssa.Value]*sched.Buffer{}
	for i, v := range k.Inputs {
		where[v] = k.In[i]
	}
	for _, v := range k.Values {
		if v == k.Root {
			where[v] = k.Out
		} else {
			where[v] = arenaBuffer(p, v.Shape)
		}
	}
	base := p.arena
	top := base
	syms := make([]int, len(t.syms))
	for idx := 0; idx < combos; idx++ {
		r := idx
		for i := len(s.syms) - 1; i >= 0; i-- {
			syms[s.syms[i]] = r % (s.bounds[i] + 1)
			r /= s.bounds[i] + 1
		}
		// Every size plan uses the same private memory past the kernel's
		// buffers: only one of them runs at a time.
		q := &program{arena: base, workers: p.workers}
		var steps []step
		for _, v := range k.Values {
			st, err := c.sizedValue(v, where, syms, q)
			if err != nil {
				return nil, fmt.Errorf("%w: %v at sizes %v: %v", errNotSized, v.Op, syms, err)
			}
			steps = append(steps, st)
		}
		top = max(top, q.arena)
		p.scratch = max(p.scratch, q.scratch)
		s.plans = append(s.plans, steps)
	}
	p.arena = top
	return s, nil
}

// sizedValue compiles the generic step of value v at the sizes syms give.
func (c *compiler) sizedValue(v *ssa.Value, where map[*ssa.Value]*sched.Buffer, syms []int, q *program) (step, error) {
	t := c.sizes
	stub := &ssa.Value{ID: v.ID, Op: v.Op, Attrs: v.Attrs, Aux: v.Aux, Funcs: v.Funcs, Name: v.Name, Raw: v.Raw, Func: v.Func,
		Shape: t.actualShape(v, syms)}
	k := &sched.Kernel{Kind: sched.Generic, Root: stub, Values: []*ssa.Value{stub}, Out: atSize(where[v], stub.Shape)}
	args := map[*ssa.Value]*ssa.Value{}
	for _, a := range v.Args {
		av, ok := args[a]
		if !ok {
			av = &ssa.Value{ID: a.ID, Op: ssa.OpParameter, Shape: t.actualShape(a, syms)}
			args[a] = av
			b, ok := where[a]
			if !ok {
				return nil, fmt.Errorf("operand %v has no buffer", a)
			}
			k.Inputs = append(k.Inputs, av)
			k.In = append(k.In, atSize(b, av.Shape))
		}
		stub.Args = append(stub.Args, av)
	}
	return genericSteps[v.Op](c, k, q)
}

// actualShape is v's shape at the sizes syms give (static, layouts kept).
func (t *sizeTable) actualShape(v *ssa.Value, syms []int) ir.Shape {
	sizes := t.sizesOf(v)
	i := 0
	var walk func(s ir.Shape) ir.Shape
	walk = func(s ir.Shape) ir.Shape {
		out := s.Clone()
		out.Dynamic = nil
		if s.IsTuple() {
			for k, e := range s.Tuple {
				out.Tuple[k] = walk(e)
			}
			return out
		}
		if s.IsArray() && i < len(sizes) {
			sizes[i].eval(syms, out.Dims)
		}
		i++
		return out
	}
	return walk(v.Shape)
}

// atSize is a buffer of shape s over the memory of b (same structure):
// the leading bytes of each leaf.
func atSize(b *sched.Buffer, s ir.Shape) *sched.Buffer {
	if b.Kind == sched.Tuple {
		out := &sched.Buffer{Kind: sched.Tuple, Shape: s}
		for i, e := range b.Elems {
			out.Elems = append(out.Elems, atSize(e, s.Tuple[i]))
		}
		return out
	}
	return &sched.Buffer{Kind: sched.Alias, Of: b, Shape: s}
}
