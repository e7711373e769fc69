package eval

// batch-norm-training, batch-norm-inference and batch-norm-grad with the
// formulas of XLA's BatchNormExpander (which is how XLA's CPU backend runs
// them), evaluated in float64 and rounded once to the element type. N is the
// number of elements per feature (all dimensions but feature_index).
//
//	training:  mean = Σx/N, var = Σx²/N - mean² (XLA's E[x²]-E[x]²),
//	           y = (x - mean) · rsqrt(var + ε) · scale + offset
//	inference: y = x · s + (offset - mean · s), s = scale · rsqrt(var + ε)
//	grad:      with r = rsqrt(var + ε), d = x - mean:
//	           grad_scale  = Σ(dy · d) · r
//	           grad_offset = Σ dy
//	           grad_x      = scale · r / N · (N·dy - Σdy - d · Σ(dy·d) / (var + ε))

import (
	"fmt"
	"math"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() {
	register(evalBatchNormTraining, ir.OpBatchNormTraining)
	register(evalBatchNormInference, ir.OpBatchNormInference)
	register(evalBatchNormGrad, ir.OpBatchNormGrad)
}

// featureLayout checks a batch-norm operand and its per-feature operands and
// returns the operand transposed so the feature dimension is last, with the
// permutation that undoes it.
type featureLayout struct {
	dims     []int
	features int
	perN     int
	perm     []int // operand → feature-last
	inverse  []int // feature-last → operand
}

func batchNormLayout(in *ir.Instruction, x *ir.Literal, perFeature []*ir.Literal) (*featureLayout, error) {
	s := x.Shape()
	if !s.IsArray() || !s.Elem.IsFloat() {
		return nil, fmt.Errorf("operand has shape %v, expected a floating-point array", s)
	}
	fi := in.FeatureIndex
	if fi < 0 || fi >= s.Rank() {
		return nil, fmt.Errorf("feature_index %d is out of range for rank %d", fi, s.Rank())
	}
	f := s.Dims[fi]
	for i, p := range perFeature {
		ps := p.Shape()
		if ps.Elem != s.Elem || ps.Rank() != 1 || ps.Dims[0] != f {
			return nil, fmt.Errorf("per-feature operand %d has shape %v, expected %v[%d]", i+1, ps, s.Elem, f)
		}
	}
	l := &featureLayout{dims: s.Dims, features: f}
	for d := 0; d < s.Rank(); d++ {
		if d != fi {
			l.perm = append(l.perm, d)
		}
	}
	l.perm = append(l.perm, fi)
	l.inverse = make([]int, len(l.perm))
	for i, p := range l.perm {
		l.inverse[p] = i
	}
	if f > 0 {
		l.perN = numElements(s.Dims) / f
	}
	return l, nil
}

// load returns x's values with the feature dimension last.
func (l *featureLayout) load(x *ir.Literal) []float64 {
	return transposeFloats(floatValues(x), l.dims, l.perm)
}

// store writes feature-last values back in the operand's layout.
func (l *featureLayout) store(t ir.ElementType, v []float64) (*ir.Literal, error) {
	last := make([]int, len(l.perm))
	for i, p := range l.perm {
		last[i] = l.dims[p]
	}
	return storeFloat64s(t, l.dims, transposeFloats(v, last, l.inverse))
}

// transposeFloats returns v (row-major over dims) transposed by perm.
func transposeFloats(v []float64, dims, perm []int) []float64 {
	c, _, err := ops.Transpose(8, dims, perm)
	if err != nil {
		panic(err) // the permutations above are valid by construction
	}
	out := make([]float64, len(v))
	if c.Count() > 0 {
		c.Run(ops.Bytes(out), ops.Bytes(v), 0, 0)
	}
	return out
}

// storeFloat64s writes float64 values into a new literal of real float type
// t, rounding once to t.
func storeFloat64s(t ir.ElementType, dims []int, xs []float64) (*ir.Literal, error) {
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	setFloats(out, xs)
	return out, nil
}

func checkBatchNormResult(in *ir.Instruction, x *ir.Literal, n int) error {
	s, f := x.Shape(), x.Shape().Dims[in.FeatureIndex]
	if n == 1 {
		if !s.Compatible(in.Shape) {
			return fmt.Errorf("result shape %v, expected %v", in.Shape, s)
		}
		return nil
	}
	want := ir.MakeTuple(s, ir.MakeShape(s.Elem, f), ir.MakeShape(s.Elem, f))
	if !want.Compatible(in.Shape) {
		return fmt.Errorf("result shape %v, expected %v", in.Shape, want)
	}
	return nil
}

func evalBatchNormTraining(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 3 {
		return nil, fmt.Errorf("expected 3 operands (operand, scale, offset), found %d", len(ops))
	}
	l, err := batchNormLayout(in, ops[0], ops[1:])
	if err != nil {
		return nil, err
	}
	if err := checkBatchNormResult(in, ops[0], 3); err != nil {
		return nil, err
	}
	t := ops[0].Shape().Elem
	x := l.load(ops[0])
	scale, offset := floatValues(ops[1]), floatValues(ops[2])
	eps := float64(in.Epsilon)
	f, n := l.features, float64(l.perN)
	mean, variance := make([]float64, f), make([]float64, f)
	sq := make([]float64, f)
	for i, v := range x {
		mean[i%f] += v
		sq[i%f] += v * v
	}
	for c := range mean {
		mean[c] /= n
		variance[c] = sq[c]/n - mean[c]*mean[c]
	}
	y := make([]float64, len(x))
	for i, v := range x {
		c := i % f
		y[i] = (v-mean[c])/math.Sqrt(variance[c]+eps)*scale[c] + offset[c]
	}
	out, err := l.store(t, y)
	if err != nil {
		return nil, err
	}
	m, _ := storeFloat64s(t, []int{f}, mean)
	v, _ := storeFloat64s(t, []int{f}, variance)
	return ir.NewTupleLiteral(out, m, v), nil
}

func evalBatchNormInference(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 5 {
		return nil, fmt.Errorf("expected 5 operands (operand, scale, offset, mean, variance), found %d", len(ops))
	}
	l, err := batchNormLayout(in, ops[0], ops[1:])
	if err != nil {
		return nil, err
	}
	if err := checkBatchNormResult(in, ops[0], 1); err != nil {
		return nil, err
	}
	x := l.load(ops[0])
	scale, offset, mean, variance := floatValues(ops[1]), floatValues(ops[2]), floatValues(ops[3]), floatValues(ops[4])
	eps := float64(in.Epsilon)
	f := l.features
	mul, add := make([]float64, f), make([]float64, f)
	for c := range mul {
		mul[c] = scale[c] / math.Sqrt(variance[c]+eps)
		add[c] = offset[c] - mean[c]*mul[c]
	}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v*mul[i%f] + add[i%f]
	}
	return l.store(ops[0].Shape().Elem, y)
}

func evalBatchNormGrad(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 5 {
		return nil, fmt.Errorf("expected 5 operands (operand, scale, mean, variance, grad_output), found %d", len(ops))
	}
	l, err := batchNormLayout(in, ops[0], ops[1:4])
	if err != nil {
		return nil, err
	}
	if !ops[4].Shape().EqualIgnoringLayout(ops[0].Shape()) {
		return nil, fmt.Errorf("grad_output has shape %v, expected the operand's %v", ops[4].Shape(), ops[0].Shape())
	}
	if err := checkBatchNormResult(in, ops[0], 3); err != nil {
		return nil, err
	}
	t := ops[0].Shape().Elem
	x, dy := l.load(ops[0]), l.load(ops[4])
	scale, mean, variance := floatValues(ops[1]), floatValues(ops[2]), floatValues(ops[3])
	eps := float64(in.Epsilon)
	f, n := l.features, float64(l.perN)
	sumDy, sumDyD := make([]float64, f), make([]float64, f)
	for i, v := range x {
		c := i % f
		sumDy[c] += dy[i]
		sumDyD[c] += dy[i] * (v - mean[c])
	}
	gx := make([]float64, len(x))
	for i, v := range x {
		c := i % f
		ve := variance[c] + eps
		r := 1 / math.Sqrt(ve)
		gx[i] = scale[c] * r / n * (n*dy[i] - sumDy[c] - (v-mean[c])*sumDyD[c]/ve)
	}
	gs := make([]float64, f)
	for c := range gs {
		gs[c] = sumDyD[c] / math.Sqrt(variance[c]+eps)
	}
	out, err := l.store(t, gx)
	if err != nil {
		return nil, err
	}
	gScale, _ := storeFloat64s(t, []int{f}, gs)
	gOffset, _ := storeFloat64s(t, []int{f}, sumDy)
	return ir.NewTupleLiteral(out, gScale, gOffset), nil
}
