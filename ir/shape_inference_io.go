package ir

// Shape inference of the ops that talk to the outside world or draw random
// numbers: infeed, outfeed, send, recv (and their -done halves), rng and
// rng-bit-generator.

// InferInfeedShape is the shape of infeed(token) reading data of shape data:
// the tuple (data, token). data is an array or a tuple of arrays (no nested
// tuples).
func InferInfeedShape(token, data Shape) (Shape, error) {
	const op = "infeed"
	if !token.IsToken() {
		return Shape{}, errf(op, "operand must be a token, found %s", human(token))
	}
	if err := checkTransferShape(op, data); err != nil {
		return Shape{}, err
	}
	return MakeTuple(data, TokenShape()), nil
}

// checkTransferShape accepts an array or a tuple of arrays.
func checkTransferShape(op string, s Shape) error {
	if s.IsArray() {
		return nil
	}
	if !s.IsTuple() {
		return errf(op, "data must be an array or a tuple of arrays, found %s", human(s))
	}
	for i, e := range s.Tuple {
		if !e.IsArray() {
			return errf(op, "data tuple element %d must be an array (no nested tuples or tokens), found %s", i, human(e))
		}
	}
	return nil
}

// InferOutfeedShape is the shape of outfeed(operand, token): a token. The
// declared outfeed shape must be the operand's.
func InferOutfeedShape(operand, token, outfeedShape Shape) (Shape, error) {
	const op = "outfeed"
	if !token.IsToken() {
		return Shape{}, errf(op, "operand 1 must be a token, found %s", human(token))
	}
	if err := checkTransferShape(op, operand); err != nil {
		return Shape{}, err
	}
	if !compatible(outfeedShape, operand) {
		return Shape{}, errf(op, "outfeed_shape %s must be the operand's shape %s", human(outfeedShape), human(operand))
	}
	return TokenShape(), nil
}

// InferSendShape is the shape of send(data, token): the tuple (data, u32[]
// context, token).
func InferSendShape(data, token Shape) (Shape, error) {
	const op = "send"
	if !token.IsToken() {
		return Shape{}, errf(op, "operand 1 must be a token, found %s", human(token))
	}
	if err := checkTransferShape(op, data); err != nil {
		return Shape{}, err
	}
	return MakeTuple(data, scalarOf(U32), TokenShape()), nil
}

// InferSendDoneShape is the shape of send-done(send): a token.
func InferSendDoneShape(send Shape) (Shape, error) {
	if !isTransferContext(send) {
		return Shape{}, errf("send-done", "operand must be the (data, u32[], token) tuple of a send, found %s", human(send))
	}
	return TokenShape(), nil
}

// InferRecvShape is the shape of recv(token) of data of shape data: the tuple
// (data, u32[] context, token).
func InferRecvShape(token, data Shape) (Shape, error) {
	const op = "recv"
	if !token.IsToken() {
		return Shape{}, errf(op, "operand must be a token, found %s", human(token))
	}
	if err := checkTransferShape(op, data); err != nil {
		return Shape{}, err
	}
	return MakeTuple(data, scalarOf(U32), TokenShape()), nil
}

// InferRecvDoneShape is the shape of recv-done(recv): the tuple (data,
// token).
func InferRecvDoneShape(recv Shape) (Shape, error) {
	if !isTransferContext(recv) {
		return Shape{}, errf("recv-done", "operand must be the (data, u32[], token) tuple of a recv, found %s", human(recv))
	}
	return MakeTuple(recv.Tuple[0], TokenShape()), nil
}

func isTransferContext(s Shape) bool {
	return s.IsTuple() && len(s.Tuple) == 3 && compatible(s.Tuple[1], scalarOf(U32)) && s.Tuple[2].IsToken()
}

// InferRngShape checks rng(a, b) drawing an array of shape result from
// distribution: a and b are scalars of one type, the result's element type;
// the uniform distribution takes integers, floats or PRED, the normal
// distribution floats. It returns result.
func InferRngShape(dist RandomDistribution, a, b, result Shape) (Shape, error) {
	const op = "rng"
	if err := expectArray(op, "result", result); err != nil {
		return Shape{}, err
	}
	if !a.IsScalar() || !b.IsScalar() {
		return Shape{}, errf(op, "parameters must be scalars, found %s and %s", human(a), human(b))
	}
	if a.Elem != b.Elem {
		return Shape{}, errf(op, "parameters must have one type, found %s and %s", human(a), human(b))
	}
	t := a.Elem
	switch dist {
	case RngUniform:
		if !t.IsFloat() && !t.IsInteger() && t != PRED {
			return Shape{}, errf(op, "rng_uniform takes integer, floating-point or pred parameters, found %s", t)
		}
	case RngNormal:
		if !t.IsFloat() {
			return Shape{}, errf(op, "rng_normal takes floating-point parameters, found %s", t)
		}
	default:
		return Shape{}, errf(op, "invalid distribution %v", dist)
	}
	if result.Elem != t {
		return Shape{}, errf(op, "result %s must have the parameters' element type %s", human(result), t)
	}
	return result.Clone(), nil
}

// InferRngBitGeneratorShape is the shape of rng-bit-generator(state)
// producing output: the tuple (new state, output). The state is a u64
// vector (2 words for three-fry, 2 or 3 for philox and the default
// algorithm); the output is an array of an unsigned integer type.
func InferRngBitGeneratorShape(alg RandomAlgorithm, state, output Shape) (Shape, error) {
	const op = "rng-bit-generator"
	if !state.IsArray() || state.Rank() != 1 || state.Elem != U64 {
		return Shape{}, errf(op, "state must be a u64 vector, found %s", human(state))
	}
	switch n := state.Dims[0]; alg {
	case RngThreeFry:
		if n != 2 {
			return Shape{}, errf(op, "rng_three_fry needs a state of 2 u64 words, found %s", human(state))
		}
	case RngPhilox, RngDefault:
		if n != 2 && n != 3 {
			return Shape{}, errf(op, "%v needs a state of 2 or 3 u64 words, found %s", alg, human(state))
		}
	default:
		return Shape{}, errf(op, "invalid algorithm %d", alg)
	}
	if err := expectArray(op, "output", output); err != nil {
		return Shape{}, err
	}
	if !output.Elem.IsUnsigned() {
		return Shape{}, errf(op, "output must have an unsigned integer element type, found %s", human(output))
	}
	if output.IsDynamic() {
		return Shape{}, errf(op, "output %s must be static", human(output))
	}
	return MakeTuple(state, output), nil
}
