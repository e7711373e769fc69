package ir

import "slices"

// Shape inference of the linear-algebra and signal ops: cholesky,
// triangular-solve, fft, and the batch-norm family.

// InferCholeskyShape is the shape of cholesky(a): a's, which is a batch of
// square matrices (rank >= 2) of a floating-point or complex type.
func InferCholeskyShape(a Shape) (Shape, error) {
	const op = "cholesky"
	if err := expectArray(op, "a", a); err != nil {
		return Shape{}, err
	}
	if !a.Elem.IsFloatOrComplex() {
		return Shape{}, errf(op, "a must have a floating-point or complex element type, found %s", human(a))
	}
	if a.Rank() < 2 {
		return Shape{}, errf(op, "a must have rank at least 2, found %s", human(a))
	}
	if a.Dims[a.Rank()-2] != a.Dims[a.Rank()-1] {
		return Shape{}, errf(op, "the two minor dimensions of a must be equal, found %s", human(a))
	}
	return a.Clone(), nil
}

// InferTriangularSolveShape is the shape of triangular-solve(a, b): b's. a is
// a batch of square matrices [..., M, M]; b has a's rank, element type
// (floating point or complex) and batch dimensions, and is [..., M, K] when
// left_side, [..., K, M] otherwise.
func InferTriangularSolveShape(a, b Shape, opts TriangularSolveOptions) (Shape, error) {
	const op = "triangular-solve"
	if err := expectArray(op, "a", a); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "b", b); err != nil {
		return Shape{}, err
	}
	if !a.Elem.IsFloatOrComplex() || a.Elem != b.Elem {
		return Shape{}, errf(op, "a and b must have the same floating-point or complex element type, found %s and %s", human(a), human(b))
	}
	if a.Rank() < 2 {
		return Shape{}, errf(op, "a must have rank at least 2, found %s", human(a))
	}
	if b.Rank() != a.Rank() {
		return Shape{}, errf(op, "b %s must have the rank of a %s", human(b), human(a))
	}
	r := a.Rank()
	if a.Dims[r-2] != a.Dims[r-1] {
		return Shape{}, errf(op, "the two minor dimensions of a must be equal, found %s", human(a))
	}
	shared := r - 1
	if opts.LeftSide {
		shared = r - 2
	}
	if a.Dims[r-1] != b.Dims[shared] {
		side := "right"
		if opts.LeftSide {
			side = "left"
		}
		return Shape{}, errf(op, "a %s and b %s: b dimension %d must equal a's size %d (%s side)", human(a), human(b), shared, a.Dims[r-1], side)
	}
	if !slices.Equal(a.Dims[:r-2], b.Dims[:r-2]) {
		return Shape{}, errf(op, "a %s and b %s must have the same batch dimensions", human(a), human(b))
	}
	if opts.TransposeA > Adjoint {
		return Shape{}, errf(op, "invalid transpose_a %d", opts.TransposeA)
	}
	return b.Clone(), nil
}

// InferFftShape is the shape of fft(operand) of the given type over the
// innermost len(length) dimensions (1 to 3): FFT and IFFT keep a complex
// shape; RFFT takes f32 or f64 whose innermost dimensions equal length and
// gives complex with the last dimension length[-1]/2+1; IRFFT takes complex
// whose innermost dimensions equal length except the last, which is
// length[-1]/2+1, and gives the real type with the last dimension length[-1].
func InferFftShape(operand Shape, typ FFTType, length []int) (Shape, error) {
	const op = "fft"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	n := len(length)
	if n < 1 || n > 3 {
		return Shape{}, errf(op, "fft_length %s must have 1 to 3 entries", intList(length))
	}
	for i, l := range length {
		if l < 0 {
			return Shape{}, errf(op, "fft_length %d is negative (%d)", i, l)
		}
	}
	r := operand.Rank()
	if r < n {
		return Shape{}, errf(op, "an fft of rank %d needs an operand of rank at least %d, found %s", n, n, human(operand))
	}
	last := length[n-1]
	switch typ {
	case FFT, IFFT:
		if !operand.Elem.IsComplex() {
			return Shape{}, errf(op, "%v needs a complex operand, found %s", typ, human(operand))
		}
		return operand.Clone(), nil
	case RFFT:
		if operand.Elem != F32 && operand.Elem != F64 {
			return Shape{}, errf(op, "RFFT needs an f32 or f64 operand, found %s", human(operand))
		}
		for i := 0; i < n; i++ {
			if d := r - n + i; operand.Dims[d] != length[i] {
				return Shape{}, errf(op, "RFFT: operand dimension %d has size %d, fft_length %s says %d", d, operand.Dims[d], intList(length), length[i])
			}
		}
		s := operand.WithElem(ComplexOf(operand.Elem))
		if last != 0 {
			s.Dims[r-1] = last/2 + 1
		}
		return s, nil
	case IRFFT:
		if !operand.Elem.IsComplex() {
			return Shape{}, errf(op, "IRFFT needs a complex operand, found %s", human(operand))
		}
		for i := 0; i < n-1; i++ {
			if d := r - n + i; operand.Dims[d] != length[i] {
				return Shape{}, errf(op, "IRFFT: operand dimension %d has size %d, fft_length %s says %d", d, operand.Dims[d], intList(length), length[i])
			}
		}
		if in := operand.Dims[r-1]; (in != 0 || last != 0) && in != last/2+1 {
			return Shape{}, errf(op, "IRFFT: the innermost operand dimension has size %d, expected fft_length[-1]/2+1 = %d", in, last/2+1)
		}
		s := operand.WithElem(operand.Elem.ComplexComponent())
		s.Dims[r-1] = last
		return s, nil
	}
	return Shape{}, errf(op, "invalid fft_type %d", typ)
}

// checkBatchNormOperand checks the operand and feature index common to the
// batch-norm ops and returns the feature count.
func checkBatchNormOperand(op string, operand Shape, featureIndex int) (int, error) {
	if err := expectArray(op, "operand", operand); err != nil {
		return 0, err
	}
	if operand.Rank() < 1 {
		return 0, errf(op, "operand must have rank at least 1, found %s", human(operand))
	}
	if featureIndex < 0 || featureIndex >= operand.Rank() {
		return 0, errf(op, "feature_index %d is out of range for operand %s", featureIndex, human(operand))
	}
	if !operand.Elem.IsFloat() {
		return 0, errf(op, "operand must have a floating-point element type, found %s", human(operand))
	}
	return operand.Dims[featureIndex], nil
}

// checkFeatureVector checks that s is a rank-1 array of the operand's type
// with one entry per feature.
func checkFeatureVector(op, what string, s Shape, t ElementType, features int) error {
	if err := expectArray(op, what, s); err != nil {
		return err
	}
	if s.Rank() != 1 {
		return errf(op, "%s must have rank 1, found %s", what, human(s))
	}
	if s.Elem != t {
		return errf(op, "%s %s must have the operand's element type %s", what, human(s), t)
	}
	if s.Dims[0] != features {
		return errf(op, "%s %s must have one entry per feature (%d)", what, human(s), features)
	}
	return nil
}

// InferBatchNormTrainingShape is the shape of batch-norm-training(operand,
// scale, offset): a tuple of the normalized operand, the batch mean and the
// batch variance (one per feature).
func InferBatchNormTrainingShape(operand, scale, offset Shape, featureIndex int) (Shape, error) {
	const op = "batch-norm-training"
	f, err := checkBatchNormOperand(op, operand, featureIndex)
	if err != nil {
		return Shape{}, err
	}
	if err := checkFeatureVector(op, "scale", scale, operand.Elem, f); err != nil {
		return Shape{}, err
	}
	if err := checkFeatureVector(op, "offset", offset, operand.Elem, f); err != nil {
		return Shape{}, err
	}
	v := MakeShape(operand.Elem, f)
	return MakeTuple(operand, v, v), nil
}

// InferBatchNormInferenceShape is the shape of batch-norm-inference(operand,
// scale, offset, mean, variance): the operand's.
func InferBatchNormInferenceShape(operand, scale, offset, mean, variance Shape, featureIndex int) (Shape, error) {
	const op = "batch-norm-inference"
	f, err := checkBatchNormOperand(op, operand, featureIndex)
	if err != nil {
		return Shape{}, err
	}
	for _, x := range []struct {
		what string
		s    Shape
	}{{"scale", scale}, {"offset", offset}, {"mean", mean}, {"variance", variance}} {
		if err := checkFeatureVector(op, x.what, x.s, operand.Elem, f); err != nil {
			return Shape{}, err
		}
	}
	return operand.Clone(), nil
}

// InferBatchNormGradShape is the shape of batch-norm-grad(operand, scale,
// mean, variance, grad_output): a tuple of the gradients with respect to
// the operand, the scale and the offset.
func InferBatchNormGradShape(operand, scale, mean, variance, gradOutput Shape, featureIndex int) (Shape, error) {
	const op = "batch-norm-grad"
	f, err := checkBatchNormOperand(op, operand, featureIndex)
	if err != nil {
		return Shape{}, err
	}
	for _, x := range []struct {
		what string
		s    Shape
	}{{"scale", scale}, {"mean", mean}, {"variance", variance}} {
		if err := checkFeatureVector(op, x.what, x.s, operand.Elem, f); err != nil {
			return Shape{}, err
		}
	}
	if err := expectArray(op, "grad_output", gradOutput); err != nil {
		return Shape{}, err
	}
	if gradOutput.Elem != operand.Elem || !slices.Equal(gradOutput.Dims, operand.Dims) {
		return Shape{}, errf(op, "grad_output %s must have the shape of operand %s", human(gradOutput), human(operand))
	}
	v := MakeShape(operand.Elem, f)
	return MakeTuple(operand, v, v), nil
}
