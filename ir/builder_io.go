package ir

// The Builder's side-effecting and random operations: tokens, infeed,
// outfeed, send, recv, replica and partition ids, rng and
// rng-bit-generator.

// CreateToken adds a fresh token (an after-all of nothing).
func (b *Builder) CreateToken() Op {
	const op = "after-all"
	if !b.use(op) {
		return Op{b: b}
	}
	return b.emit(&Instruction{Opcode: OpAfterAll, Shape: TokenShape()})
}

// AfterAll adds a token that orders everything after the given tokens.
func (b *Builder) AfterAll(tokens ...Op) Op {
	const op = "after-all"
	if !b.use(op, tokens...) {
		return Op{b: b}
	}
	if len(tokens) == 0 {
		return b.failf(op, "needs at least one token (CreateToken makes a fresh one)")
	}
	s, err := InferAfterAllShape(shapesOf(tokens))
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpAfterAll, Shape: s, Operands: instructions(tokens)})
}

// Infeed adds a read of one value of shape from the device's infeed queue.
func (b *Builder) Infeed(shape Shape, config string) Op {
	const op = "infeed"
	if !b.use(op) {
		return Op{b: b}
	}
	t := b.CreateToken()
	pair := b.InfeedWithToken(t, shape, config)
	return b.GetTupleElement(pair, 0)
}

// InfeedWithToken adds an infeed ordered after token, returning the tuple
// (data, token).
func (b *Builder) InfeedWithToken(token Op, shape Shape, config string) Op {
	const op = "infeed"
	if !b.use(op, token) {
		return Op{b: b}
	}
	if err := shape.CheckValid(); err != nil {
		return b.failf(op, "invalid shape: %v", err)
	}
	s, err := InferInfeedShape(token.in.Shape, shape)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpInfeed, Shape: s, Operands: []*Instruction{token.in}}
	in.InfeedConfig = config
	return b.emitAsIs(in)
}

// Outfeed adds a write of x to the device's outfeed queue; shape is the
// shape (with layout) the host expects, x's shape. It returns the empty
// tuple, as XLA's client does.
func (b *Builder) Outfeed(x Op, shape Shape, config string) Op {
	const op = "outfeed"
	if !b.use(op, x) {
		return Op{b: b}
	}
	t := b.CreateToken()
	b.OutfeedWithToken(x, t, shape, config)
	return b.Tuple()
}

// OutfeedWithToken adds an outfeed of x ordered after token, returning a
// token.
func (b *Builder) OutfeedWithToken(x, token Op, shape Shape, config string) Op {
	const op = "outfeed"
	if !b.use(op, x, token) {
		return Op{b: b}
	}
	s, err := InferOutfeedShape(x.in.Shape, token.in.Shape, shape)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpOutfeed, Shape: s, Operands: []*Instruction{x.in, token.in}}
	out := shape.Clone()
	in.OutfeedShape = &out
	in.OutfeedConfig = config
	return b.emit(in)
}

// Send adds a send of x on channel, paired with a Recv of the same channel
// in another computation; it returns the send-done token.
func (b *Builder) Send(x Op, channel int64) Op {
	const op = "send"
	if !b.use(op, x) {
		return Op{b: b}
	}
	return b.SendWithToken(x, b.CreateToken(), channel)
}

// SendWithToken adds a send of x ordered after token, and its send-done,
// which it returns.
func (b *Builder) SendWithToken(x, token Op, channel int64) Op {
	const op = "send"
	if !b.use(op, x, token) {
		return Op{b: b}
	}
	if channel <= 0 {
		return b.failf(op, "channel id must be positive, found %d", channel)
	}
	s, err := InferSendShape(x.in.Shape, token.in.Shape)
	if err != nil {
		return b.fail(err)
	}
	send := &Instruction{Opcode: OpSend, Shape: s, Operands: []*Instruction{x.in, token.in}}
	send.ChannelID = channel
	sendOp := b.emit(send)
	done := &Instruction{Opcode: OpSendDone, Shape: TokenShape(), Operands: []*Instruction{sendOp.in}}
	done.ChannelID = channel
	return b.emit(done)
}

// Recv adds a receive of a value of shape on channel, returning the data.
func (b *Builder) Recv(shape Shape, channel int64) Op {
	const op = "recv"
	if !b.use(op) {
		return Op{b: b}
	}
	done := b.RecvWithToken(b.CreateToken(), shape, channel)
	return b.GetTupleElement(done, 0)
}

// RecvWithToken adds a receive ordered after token and its recv-done, which
// it returns: the tuple (data, token).
func (b *Builder) RecvWithToken(token Op, shape Shape, channel int64) Op {
	const op = "recv"
	if !b.use(op, token) {
		return Op{b: b}
	}
	if channel <= 0 {
		return b.failf(op, "channel id must be positive, found %d", channel)
	}
	if err := shape.CheckValid(); err != nil {
		return b.failf(op, "invalid shape: %v", err)
	}
	s, err := InferRecvShape(token.in.Shape, shape)
	if err != nil {
		return b.fail(err)
	}
	recv := &Instruction{Opcode: OpRecv, Shape: s, Operands: []*Instruction{token.in}}
	recv.ChannelID = channel
	recvOp := b.emitAsIs(recv)
	ds, err := InferRecvDoneShape(s)
	if err != nil {
		return b.fail(err)
	}
	done := &Instruction{Opcode: OpRecvDone, Shape: ds, Operands: []*Instruction{recvOp.in}}
	done.ChannelID = channel
	return b.emitAsIs(done)
}

// ReplicaId adds the id of the replica running the computation (u32[]).
func (b *Builder) ReplicaId() Op {
	if !b.use("replica-id") {
		return Op{b: b}
	}
	return b.emit(&Instruction{Opcode: OpReplicaID, Shape: InferReplicaIDShape()})
}

// PartitionId adds the id of the partition running the computation (u32[]).
func (b *Builder) PartitionId() Op {
	if !b.use("partition-id") {
		return Op{b: b}
	}
	return b.emit(&Instruction{Opcode: OpPartitionID, Shape: InferReplicaIDShape()})
}

func (b *Builder) rng(dist RandomDistribution, p0, p1 Op, shape Shape) Op {
	const op = "rng"
	if !b.use(op, p0, p1) {
		return Op{b: b}
	}
	if err := shape.CheckValid(); err != nil {
		return b.failf(op, "invalid shape: %v", err)
	}
	s, err := InferRngShape(dist, p0.in.Shape, p1.in.Shape, shape)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpRng, Shape: s, Operands: []*Instruction{p0.in, p1.in}}
	in.Distribution = dist
	return b.emitAsIs(in)
}

// RngNormal adds an array of shape drawn from the normal distribution of
// mean mu and standard deviation sigma (floating-point scalars).
func (b *Builder) RngNormal(mu, sigma Op, shape Shape) Op {
	return b.rng(RngNormal, mu, sigma, shape)
}

// RngUniform adds an array of shape drawn uniformly from [a, b).
func (b *Builder) RngUniform(a, hi Op, shape Shape) Op {
	return b.rng(RngUniform, a, hi, shape)
}

// RngBitGenerator adds random bits of shape from the generator state
// initialState with algorithm, returning the tuple (new state, bits). As in
// XLA's client, the bits have the unsigned integer type of shape's element
// width.
func (b *Builder) RngBitGenerator(alg RandomAlgorithm, initialState Op, shape Shape) Op {
	const op = "rng-bit-generator"
	if !b.use(op, initialState) {
		return Op{b: b}
	}
	if err := shape.CheckValid(); err != nil {
		return b.failf(op, "invalid shape: %v", err)
	}
	if !shape.IsArray() {
		return b.failf(op, "output must be an array, found %s", human(shape))
	}
	out := shape.Clone()
	switch shape.Elem.BitWidth() {
	case 8:
		out.Elem = U8
	case 16:
		out.Elem = U16
	case 32:
		out.Elem = U32
	case 64:
		out.Elem = U64
	default:
		return b.failf(op, "no unsigned integer type of the width of %s", shape.Elem)
	}
	s, err := InferRngBitGeneratorShape(alg, initialState.in.Shape, out)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpRngBitGenerator, Shape: s, Operands: []*Instruction{initialState.in}}
	in.RngAlgorithm = alg
	return b.emitAsIs(in)
}
