package runtime

// The generic steps: every op without a dedicated fast path runs the
// definition of its semantics in package ir/ops, planned at compile time
// (dimensions, strides, window taps, called computations compiled to
// programs) and run over the frame's buffers. The files generic_*.go are
// the adapters, one per op family: they resolve buffers and working memory
// and call the plans.

import (
	"errors"
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// maxVariadic bounds the operands of variadic scatter, sort and reduce
// steps, so per-run operand lists live in fixed arrays.
const maxVariadic = 8

// inputBuffer is the buffer a kernel reads value a from.
func inputBuffer(k *sched.Kernel, a *ssa.Value) *sched.Buffer {
	i := indexOf(k.Inputs, a)
	if i < 0 {
		return nil
	}
	return k.In[i]
}

// denseArray reports whether s is a static array with the default layout:
// the form the generic steps run on (after the layout pass every value has
// it).
func denseArray(s ir.Shape) bool {
	return s.IsArray() && s.IsStatic() && s.HasDefaultLayout() && s.Rank() <= ops.MaxRank
}

// argLocs resolves the array arguments of a single-value kernel, or
// reports which one is not a dense array with a buffer.
func argLocs(c *compiler, k *sched.Kernel) ([]loc, error) {
	v := k.Root
	locs := make([]loc, len(v.Args))
	for i, a := range v.Args {
		b := inputBuffer(k, a)
		if b == nil {
			return nil, fmt.Errorf("operand %d of %v has no buffer", i, v.Op)
		}
		if !denseArray(a.Shape) {
			return nil, fmt.Errorf("operand %d of %v has shape %v, expected a dense array", i, v.Op, a.Shape)
		}
		locs[i] = c.loc(b)
	}
	return locs, nil
}

// argShapes lists the shapes of v's arguments.
func argShapes(v *ssa.Value) []ir.Shape {
	out := make([]ir.Shape, len(v.Args))
	for i, a := range v.Args {
		out[i] = a.Shape
	}
	return out
}

// argTypes lists the element types of values.
func argTypes(vs []*ssa.Value) []ir.ElementType {
	out := make([]ir.ElementType, len(vs))
	for i, a := range vs {
		out[i] = a.Shape.Elem
	}
	return out
}

// privateArena reserves n bytes of p's arena for one step's own use (past
// every buffer of the plan) and returns where they live.
func privateArena(p *program, n int) loc {
	off := roundUp(p.arena, 64)
	p.arena = off + n
	return loc{kind: sched.Arena, off: off, size: n}
}

// scratchPlan hands out byte ranges of a step's per-worker scratch at
// compile time; the step then views them at run time.
type scratchPlan struct{ size int }

// take reserves n bytes (64-byte aligned) and returns their offset.
func (s *scratchPlan) take(n int) int {
	off := roundUp(s.size, 64)
	s.size = off + n
	return off
}

// reserve makes the program's per-worker scratch at least the plan's size.
func (s *scratchPlan) reserve(p *program) { p.scratch = max(p.scratch, roundUp(s.size, 64)) }

// reserveScratch makes worker scratch hold at least n bytes.
func reserveScratch(p *program, n int) { p.scratch = max(p.scratch, roundUp(n, 64)) }

// splitTiles cuts total elements into parts of whole tiles for up to
// threads workers; loops below 32K elements stay in one part.
func splitTiles(total, tile, threads int) (parts, perPart int) {
	tiles := (total + tile - 1) / tile
	parts = 1
	if threads > 1 && total >= 1<<15 {
		parts = min(tiles, threads*4)
	}
	perPart = (tiles + parts - 1) / max(parts, 1) * tile
	if perPart > 0 {
		parts = (total + perPart - 1) / perPart
	}
	return parts, perPart
}

// tileSplit cuts total elements into at most parts parts of whole tiles,
// as a loop step splits its work (sched's split, in elements).
func tileSplit(total, tile, parts int) (int, int) {
	tiles := (total + tile - 1) / tile
	parts = min(max(parts, 1), max(tiles, 1))
	perPart := (tiles + parts - 1) / parts * tile
	if perPart > 0 {
		parts = (total + perPart - 1) / perPart
	}
	return parts, perPart
}

// sequenceStep runs steps one after another.
type sequenceStep struct {
	steps []step
	names string
}

func (s *sequenceStep) name() string { return s.names }

func (s *sequenceStep) exec(fr *frame) error {
	for _, st := range s.steps {
		if err := st.exec(fr); err != nil {
			return err
		}
	}
	return nil
}

// leafShapes lists a shape's array (and token) leaves, depth first.
func leafShapes(s ir.Shape) []ir.Shape {
	if !s.IsTuple() {
		return []ir.Shape{s}
	}
	var out []ir.Shape
	for _, e := range s.Tuple {
		out = append(out, leafShapes(e)...)
	}
	return out
}

func indexOf[T comparable](s []T, x T) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

// named is implemented by steps to report their implementation in Stats.
type named interface{ name() string }

func implName(s step) string {
	if n, ok := s.(named); ok {
		return n.name()
	}
	return fmt.Sprintf("%T", s)
}

// opsComputation describes SSA function f as ir/ops' node list. Kiln's
// own ops (not HLO opcodes) get the invalid opcode, which ir/ops refuses.
func opsComputation(f *ssa.Func) *ops.Computation {
	return ops.Describe(f.Name, f.Values, f.Params, f.Root, func(v *ssa.Value) (ops.Node, []*ssa.Value) {
		op, _ := v.Op.IR()
		nd := ops.Node{Op: op, Attrs: &v.Attrs, Shape: v.Shape, Param: v.Attrs.ParameterNumber, Literal: v.Attrs.Literal}
		for _, g := range v.Funcs {
			nd.Called = append(nd.Called, opsComputation(g))
		}
		return nd, v.Args
	})
}

// function compiles a called computation (reducer, comparator, update or
// map body) to an ir/ops function. A computation the compiled path cannot
// run (an op ir/ops does not define for its types, an op that is not
// elementwise) gives a function that reports why when it runs: an op whose
// computation never runs (a reduction of nothing) still compiles.
func (c *compiler) function(f *ssa.Func) (*ops.Func, error) {
	if f == nil {
		return nil, nil
	}
	var paramT, resultT []ir.ElementType
	for i, p := range f.Params {
		if p == nil || !p.Shape.IsScalar() {
			return nil, fmt.Errorf("computation %s: parameter %d is not a scalar", f.Name, i)
		}
		paramT = append(paramT, p.Shape.Elem)
	}
	if f.Root == nil {
		return nil, fmt.Errorf("computation %s has no root", f.Name)
	}
	for _, r := range leafShapes(f.Root.Shape) {
		if !r.IsScalar() {
			return nil, fmt.Errorf("computation %s returns %v, expected scalars", f.Name, f.Root.Shape)
		}
		resultT = append(resultT, r.Elem)
	}
	fn, err := ops.CompileFunc(opsComputation(f))
	if err == nil {
		return fn, nil
	}
	var ue *ops.UnsupportedError
	if errors.As(err, &ue) {
		err = fmt.Errorf("called computation %s: %w (the compiled path runs called computations as scalar programs, which do not take this op)", f.Name, err)
	}
	return ops.NewCallFunc(f.Name, paramT, resultT, func([]byte) error { return err }), nil
}

// oneFunc compiles v's single called computation.
func (c *compiler) oneFunc(v *ssa.Value) (*ops.Func, error) {
	if len(v.Funcs) != 1 {
		return nil, fmt.Errorf("%v calls %d computations, expected 1", v.Op, len(v.Funcs))
	}
	return c.function(v.Funcs[0])
}

// bytesOf resolves locations to the frame's memory, into dst.
func bytesOf(fr *frame, dst [][]byte, locs []loc) [][]byte {
	for i, l := range locs {
		dst[i] = fr.bytes(l)
	}
	return dst[:len(locs)]
}

// errorf is fmt.Errorf, for the adapters' reports of malformed values.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
