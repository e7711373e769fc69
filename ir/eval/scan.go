package eval

// scan, as ir/ops plans it (scan.go): the body called once per index of
// the scanned dimension.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() { register(evalScan, ir.OpScan) }

func evalScan(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	body := in.ToApply
	if body == nil {
		return nil, fmt.Errorf("scan has no to_apply computation")
	}
	nc := in.NumCarries
	if nc < 0 || nc >= len(args) {
		return nil, fmt.Errorf("num_carries=%d for %d operands: a scan needs at least one input", nc, len(args))
	}
	inputs, carries := args[:len(args)-nc], append([]*ir.Literal{}, args[len(args)-nc:]...)
	results := []ir.Shape{in.Shape}
	if in.Shape.IsTuple() {
		results = in.Shape.Tuple
	}
	nOut := len(results) - nc
	if nOut < 0 {
		return nil, fmt.Errorf("result shape %v has fewer elements than the %d carries", in.Shape, nc)
	}
	if len(in.Dimensions) != 1 {
		return nil, fmt.Errorf("scan has dimensions=%v, expected one", in.Dimensions)
	}
	dim := in.Dimensions[0]
	var ins, outs []int
	var inDims, outDims [][]int
	for _, x := range inputs {
		if !x.Shape().IsArray() {
			return nil, fmt.Errorf("scan input of shape %v, expected an array", x.Shape())
		}
		ins, inDims = append(ins, x.Shape().Elem.ByteSize()), append(inDims, x.Shape().Dims)
	}
	for j := 0; j < nOut; j++ {
		r := results[j]
		if !r.IsArray() || dim >= r.Rank() {
			return nil, fmt.Errorf("scan output %d has shape %v, expected an array with the scanned dimension %d", j, r, dim)
		}
		sl := append(append([]int{}, r.Dims[:dim]...), r.Dims[dim+1:]...)
		outs, outDims = append(outs, r.Elem.ByteSize()), append(outDims, sl)
	}
	p, err := ops.NewScan(ins, inDims, outs, outDims, dim, in.IsReverse)
	if err != nil {
		return nil, err
	}
	stacked := make([]*ir.Literal, nOut)
	for j := range stacked {
		if stacked[j], err = newResult(results[j], p.OutputDims(j)); err != nil {
			return nil, fmt.Errorf("output %d: %w", j, err)
		}
	}
	for k := 0; k < p.Steps; k++ {
		if err := e.checkContext(); err != nil {
			return nil, err
		}
		i := p.Index(k)
		stepArgs := make([]*ir.Literal, 0, len(args))
		for j, x := range inputs {
			s, err := newArray(x.Shape().Elem, p.InputSlice(j))
			if err != nil {
				return nil, err
			}
			p.Slice(j, s.Bytes(), x.Bytes(), i)
			stepArgs = append(stepArgs, s)
		}
		stepArgs = append(stepArgs, carries...)
		res, err := e.call(body, stepArgs)
		if err != nil {
			return nil, fmt.Errorf("body %s, step %d: %w", body.Name, k, err)
		}
		vals := []*ir.Literal{res}
		if res.Shape().IsTuple() {
			vals = res.Elements()
		}
		if len(vals) != len(results) {
			return nil, fmt.Errorf("body %s returned %d values, the scan has %d results", body.Name, len(vals), len(results))
		}
		for j := 0; j < nOut; j++ {
			if !vals[j].Shape().IsArray() || !ir.SameDimensions(vals[j].Shape(), ir.MakeShape(vals[j].Shape().Elem, outDims[j]...)) || vals[j].Shape().Elem != results[j].Elem {
				return nil, fmt.Errorf("body %s returned %v as output %d, expected %v%v", body.Name, vals[j].Shape(), j, results[j].Elem, outDims[j])
			}
			p.Place(j, stacked[j].Bytes(), vals[j].Bytes(), i)
		}
		copy(carries, vals[nOut:])
	}
	out := append(stacked, carries...)
	if !in.Shape.IsTuple() {
		return out[0], nil
	}
	return ir.NewTupleLiteral(out...), nil
}
