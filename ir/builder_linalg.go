package ir

import "slices"

// The Builder's linear-algebra and signal operations: cholesky,
// triangular-solve, fft and batch normalization.

// Cholesky adds the Cholesky factor of each matrix of a (the lower triangle
// if lower, else the upper one).
func (b *Builder) Cholesky(a Op, lower bool) Op {
	const op = "cholesky"
	if !b.use(op, a) {
		return Op{b: b}
	}
	s, err := InferCholeskyShape(a.in.Shape)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpCholesky, Shape: s, Operands: []*Instruction{a.in}}
	in.Lower = lower
	return b.emit(in)
}

// TriangularSolve adds the solution x of op(a)·x = b (leftSide) or
// x·op(a) = b, a triangular (lower or upper, optionally with a unit
// diagonal), op(a) being a, its transpose or its adjoint.
func (b *Builder) TriangularSolve(a, rhs Op, leftSide, lower, unitDiagonal bool, transposeA TransposeKind) Op {
	const op = "triangular-solve"
	if !b.use(op, a, rhs) {
		return Op{b: b}
	}
	opts := TriangularSolveOptions{LeftSide: leftSide, Lower: lower, UnitDiagonal: unitDiagonal, TransposeA: transposeA}
	s, err := InferTriangularSolveShape(a.in.Shape, rhs.in.Shape, opts)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpTriangularSolve, Shape: s, Operands: []*Instruction{a.in, rhs.in}}
	in.TriangularSolve = &opts
	return b.emit(in)
}

// Fft adds the Fourier transform of the given type over the innermost
// len(length) dimensions of x.
func (b *Builder) Fft(x Op, typ FFTType, length []int) Op {
	const op = "fft"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferFftShape(x.in.Shape, typ, length)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpFft, Shape: s, Operands: []*Instruction{x.in}}
	in.FFTType, in.FFTLength = typ, slices.Clone(length)
	return b.emit(in)
}

// BatchNormTraining adds the normalization of x over every dimension but
// featureIndex, returning the tuple (normalized, batch mean, batch variance).
func (b *Builder) BatchNormTraining(x, scale, offset Op, epsilon float32, featureIndex int) Op {
	const op = "batch-norm-training"
	if !b.use(op, x, scale, offset) {
		return Op{b: b}
	}
	s, err := InferBatchNormTrainingShape(x.in.Shape, scale.in.Shape, offset.in.Shape, featureIndex)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpBatchNormTraining, Shape: s, Operands: []*Instruction{x.in, scale.in, offset.in}}
	in.Epsilon, in.FeatureIndex = epsilon, featureIndex
	return b.emit(in)
}

// BatchNormInference adds the normalization of x with the given mean and
// variance per feature.
func (b *Builder) BatchNormInference(x, scale, offset, mean, variance Op, epsilon float32, featureIndex int) Op {
	const op = "batch-norm-inference"
	if !b.use(op, x, scale, offset, mean, variance) {
		return Op{b: b}
	}
	s, err := InferBatchNormInferenceShape(x.in.Shape, scale.in.Shape, offset.in.Shape, mean.in.Shape, variance.in.Shape, featureIndex)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpBatchNormInference, Shape: s, Operands: []*Instruction{x.in, scale.in, offset.in, mean.in, variance.in}}
	in.Epsilon, in.FeatureIndex = epsilon, featureIndex
	return b.emit(in)
}

// BatchNormGrad adds the gradients of batch normalization, returning the
// tuple (grad operand, grad scale, grad offset).
func (b *Builder) BatchNormGrad(x, scale, mean, variance, gradOutput Op, epsilon float32, featureIndex int) Op {
	const op = "batch-norm-grad"
	if !b.use(op, x, scale, mean, variance, gradOutput) {
		return Op{b: b}
	}
	s, err := InferBatchNormGradShape(x.in.Shape, scale.in.Shape, mean.in.Shape, variance.in.Shape, gradOutput.in.Shape, featureIndex)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpBatchNormGrad, Shape: s, Operands: []*Instruction{x.in, scale.in, mean.in, variance.in, gradOutput.in}}
	in.Epsilon, in.FeatureIndex = epsilon, featureIndex
	return b.emit(in)
}
