package sched

import (
	"math"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// EpilogueKind names one stage of a GEMM epilogue.
type EpilogueKind uint8

// Epilogue stages, in the order they may appear after the dot.
const (
	EpilogueBias     EpilogueKind = iota // + bias[n]: a per-column vector broadcast along the rows
	EpilogueResidual                     // + r, a tensor of the dot's shape
	EpilogueReLU                         // max(x, 0)
	EpilogueGelu                         // kiln.gelu (erf or tanh form)
	EpilogueSiLU                         // x·logistic(x)
)

var epilogueKindNames = [...]string{"bias", "residual", "relu", "gelu", "silu"}

func (k EpilogueKind) String() string { return epilogueKindNames[k] }

// EpilogueStage is one fused value of a GEMM epilogue: its kind, the value,
// and the operand it adds (the bias vector or the residual), if any.
type EpilogueStage struct {
	Kind    EpilogueKind
	Value   *ssa.Value
	Operand *ssa.Value
	// Extra is a value the stage computes besides Value (SiLU's logistic).
	Extra *ssa.Value
}

// String names the stage for dumps: bias, residual, relu, gelu-erf,
// gelu-tanh.
func (st EpilogueStage) String() string {
	if st.Kind == EpilogueGelu {
		if st.Value.Aux == ssa.GeluTanh {
			return "gelu-tanh"
		}
		return "gelu-erf"
	}
	return st.Kind.String()
}

// matchEpilogue recognises v as the end of a chain dot → [+ bias] →
// [+ residual] → [relu | gelu | silu] over a float32 dot that runs as a GEMM (or a
// canonical float32 convolution, whose kernels take the same epilogue),
// where each value in the chain is used only by the next; reshapes that keep
// the bytes and the GEMM's N as the last dimension may sit between them (the
// canonical dot is rank 3). It returns the dot, the chain's stages in order,
// and the reshapes passed through.
func matchEpilogue(v *ssa.Value, users map[*ssa.Value][]*ssa.Value) (*ssa.Value, []EpilogueStage, []*ssa.Value, bool) {
	var stages []EpilogueStage
	var through []*ssa.Value
	cur := v
	uses := 1 // the users cur may have: the next stage (and SiLU's logistic)
	for {
		if cur != v && len(users[cur]) != uses {
			return nil, nil, nil, false
		}
		uses = 1
		if cur.Op == ssa.OpReshape && cur != v && isByteReinterpretation(cur) {
			through = append(through, cur)
			cur = cur.Args[0]
			continue
		}
		if cur.Op == ssa.OpDot || cur.Op == ssa.OpConvolution {
			if cur == v || cur.Shape.Elem != ir.F32 || cur.Args[0].Shape.Elem != ir.F32 || cur.Args[1].Shape.Elem != ir.F32 {
				return nil, nil, nil, false
			}
			// The columns the bias runs along: the GEMM's N, or the
			// convolution's output channels (its last dimension).
			var n int
			if cur.Op == ssa.OpDot {
				g, ok := gemmOf(cur)
				if !ok {
					return nil, nil, nil, false
				}
				n = g.N
			} else {
				g, ok := convOf(cur)
				if !ok {
					return nil, nil, nil, false
				}
				n = g.OutChannels
			}
			for _, st := range stages {
				if d := st.Value.Shape.Dims; len(d) == 0 || d[len(d)-1] != n {
					return nil, nil, nil, false
				}
			}
			// Stages were collected from the end backwards.
			for i, j := 0, len(stages)-1; i < j; i, j = i+1, j-1 {
				stages[i], stages[j] = stages[j], stages[i]
			}
			if !epilogueOrderOK(stages) {
				return nil, nil, nil, false
			}
			return cur, stages, through, true
		}
		st, next, ok := epilogueStage(cur, users)
		if !ok {
			return nil, nil, nil, false
		}
		if st.Kind == EpilogueSiLU {
			uses = 2
		}
		stages = append(stages, st)
		cur = next
	}
}

// epilogueStage matches one value of the chain and returns the value below it.
func epilogueStage(v *ssa.Value, users map[*ssa.Value][]*ssa.Value) (EpilogueStage, *ssa.Value, bool) {
	if v.Shape.Elem != ir.F32 || !v.Shape.HasDefaultLayout() {
		return EpilogueStage{}, nil, false
	}
	switch v.Op {
	case ssa.OpAdd:
		for i := 0; i < 2; i++ {
			x, o := v.Args[i], v.Args[1-i]
			if isColumnBias(o, v.Shape) {
				return EpilogueStage{Kind: EpilogueBias, Value: v, Operand: o.Args[0]}, x, true
			}
		}
		// A residual: the chain continues through the operand that is a dot
		// or a bias add (tried first), the other is added as a tensor.
		for _, i := range residualOrder(v, users) {
			x, o := v.Args[i], v.Args[1-i]
			if o.Shape.EqualIgnoringLayout(v.Shape) && o.Op != ssa.OpBroadcast {
				return EpilogueStage{Kind: EpilogueResidual, Value: v, Operand: o}, x, true
			}
		}
	case ssa.OpMaximum:
		for i := 0; i < 2; i++ {
			if isScalarZero(v.Args[1-i]) {
				return EpilogueStage{Kind: EpilogueReLU, Value: v}, v.Args[i], true
			}
		}
	case ssa.OpGelu:
		return EpilogueStage{Kind: EpilogueGelu, Value: v}, v.Args[0], true
	}
	if v.Op == ssa.OpMultiply {
		// SiLU: x·logistic(x), the logistic used only here.
		for i := 0; i < 2; i++ {
			x, l := v.Args[i], v.Args[1-i]
			if l.Op == ssa.Op(ir.OpLogistic) && l.Args[0] == x && len(users[l]) == 1 && l.Shape.Elem == ir.F32 {
				return EpilogueStage{Kind: EpilogueSiLU, Value: v, Extra: l}, x, true
			}
		}
	}
	return EpilogueStage{}, nil, false
}

// residualOrder lists which operand of an add may continue the chain: a
// dot, or an add of a bias, used only by this add.
func residualOrder(v *ssa.Value, users map[*ssa.Value][]*ssa.Value) []int {
	chainLike := func(x *ssa.Value) bool {
		if len(users[x]) != 1 {
			return false
		}
		for x.Op == ssa.OpReshape && isByteReinterpretation(x) && len(users[x.Args[0]]) == 1 {
			x = x.Args[0]
		}
		return x.Op == ssa.OpDot || (x.Op == ssa.OpAdd && (isColumnBias(x.Args[0], x.Shape) || isColumnBias(x.Args[1], x.Shape)))
	}
	switch {
	case chainLike(v.Args[0]):
		return []int{0}
	case chainLike(v.Args[1]):
		return []int{1}
	}
	return nil
}

// epilogueOrderOK accepts bias, then residual, then one activation, each
// at most once.
func epilogueOrderOK(stages []EpilogueStage) bool {
	last := EpilogueKind(0)
	for i, s := range stages {
		if i > 0 && s.Kind <= last {
			return false
		}
		if (s.Kind == EpilogueReLU || s.Kind == EpilogueGelu || s.Kind == EpilogueSiLU) && i != len(stages)-1 {
			return false
		}
		last = s.Kind
	}
	return len(stages) > 0
}

// isColumnBias reports whether b broadcasts a rank-1 vector along the last
// dimension of shape s (the N dimension of a GEMM output).
func isColumnBias(b *ssa.Value, s ir.Shape) bool {
	return b.Op == ssa.OpBroadcast && b.Args[0].Shape.Rank() == 1 && len(b.Attrs.Dimensions) == 1 &&
		b.Attrs.Dimensions[0] == s.Rank()-1 && b.Args[0].Shape.Elem == ir.F32
}

// isScalarZero reports whether v is +0 broadcast from a scalar constant (or
// a scalar constant itself).
func isScalarZero(v *ssa.Value) bool {
	if v.Op == ssa.OpBroadcast && v.Args[0].Shape.IsScalar() {
		v = v.Args[0]
	}
	if !v.IsConstant() || !v.Shape.IsScalar() || v.Shape.Elem != ir.F32 {
		return false
	}
	x := v.Attrs.Literal.Float32s()[0]
	return x == 0 && !math.Signbit(float64(x))
}
