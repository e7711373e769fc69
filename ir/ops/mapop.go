package ops

// map: the mapped computation applied element by element, each op of it
// rounded to its type as the computation stores it. A compiled program
// runs over tiles of elements; any other computation per element.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// MapPlan applies a computation of N scalars to N operands of one shape.
type MapPlan struct {
	Fn *Func
	T  ir.ElementType
}

// NewMap plans map of operands of types ts with computation f, whose result
// is of type t.
func NewMap(ts []ir.ElementType, t ir.ElementType, f *Func) (*MapPlan, error) {
	if f == nil {
		return nil, fmt.Errorf("map has no computation")
	}
	if len(f.ParamT) != len(ts) {
		return nil, fmt.Errorf("computation %s takes %d parameters, map has %d operands", f.Name, len(f.ParamT), len(ts))
	}
	for i, pt := range f.ParamT {
		if pt != ts[i] {
			return nil, fmt.Errorf("computation %s: parameter %d has type %v, operand %d %v", f.Name, i, pt, i, ts[i])
		}
	}
	if len(f.ResultT) != 1 || f.ResultT[0] != t {
		return nil, fmt.Errorf("computation %s returns %v, the map's result is %v", f.Name, f.ResultT, t)
	}
	if c := f.Computation(); c != nil && c.Nodes[c.Root].Op == ir.OpTuple {
		return nil, fmt.Errorf("computation %s returns a tuple, map needs a scalar", f.Name)
	}
	return &MapPlan{Fn: f, T: t}, nil
}

// ScratchBytes is the register memory Run needs.
func (p *MapPlan) ScratchBytes() int {
	if p.Fn.Tiled() {
		return p.Fn.TileBytes()
	}
	return p.Fn.RegBytes()
}

// Run computes n output elements from the operands args.
func (p *MapPlan) Run(out []byte, args [][]byte, n int, scratch []byte) error {
	fn := p.Fn
	if !fn.Tiled() {
		for i := 0; i < n; i++ {
			for j, a := range args {
				fn.Load(scratch, j, a, i)
			}
			if err := fn.Run(scratch); err != nil {
				return err
			}
			fn.Store(scratch, 0, out, i)
		}
		return nil
	}
	fn.LoadConstsTile(scratch)
	for start := 0; start < n; start += Tile {
		m := min(Tile, n-start)
		for j, a := range args {
			fn.LoadTile(scratch, j, a, start, m)
		}
		fn.RunTile(scratch, m)
		fn.StoreTile(scratch, 0, out, start, m)
	}
	return nil
}
