package eval

// fft: FFT, IFFT, RFFT and IRFFT, as ir/ops defines them (fft.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

func init() { register(evalFft, ir.OpFft) }

func evalFft(e *evaluator, in *ir.Instruction, args []*ir.Literal) (*ir.Literal, error) {
	if len(args) != 1 || !args[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected 1 array operand, found %d operands", len(args))
	}
	x := args[0]
	p, err := ops.NewFFT(in.FFTType, in.FFTLength, x.Shape().Elem, x.Shape().Dims, in.Shape.Elem, in.Shape.Dims)
	if err != nil {
		return nil, err
	}
	out, err := newResult(in.Shape, in.Shape.Dims)
	if err != nil {
		return nil, err
	}
	p.Run(out.Bytes(), x.Bytes(), make([]byte, p.WorkBytes()))
	return out, nil
}
