package eval

// Side-effecting ops that talk to the caller, tokens, and the replica and
// partition ids.
//
//   - infeed reads the next value from Options.Infeed, outfeed writes its
//     operand to Options.Outfeed; both block until the channel is ready
//     (or Options.Context is done).
//   - send writes its operand to Options.Channels[channel_id] when it runs;
//     recv reads from the same map when it runs. send-done and recv-done
//     complete the pairs: send returns (operand, u32 request id 0, token),
//     send-done a token, recv (value, u32 0, token), recv-done (value,
//     token). A send and a recv of one evaluation on an unbuffered channel
//     wait for each other forever; give such channels a buffer.
//   - after-all returns a token (its operands, of any shape, only order
//     it); add-dependency returns its first operand.
//   - replica-id is the evaluator's replica (RunReplicated) or 0;
//     partition-id is 0 (one partition per replica). Both are u32.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalAfterAll, ir.OpAfterAll)
	register(evalAddDependency, ir.OpAddDependency)
	register(evalInfeed, ir.OpInfeed)
	register(evalOutfeed, ir.OpOutfeed)
	register(evalSend, ir.OpSend)
	register(evalSendDone, ir.OpSendDone)
	register(evalRecv, ir.OpRecv)
	register(evalRecvDone, ir.OpRecvDone)
	register(evalReplicaID, ir.OpReplicaID)
	register(evalPartitionID, ir.OpPartitionID)
}

// evalAfterAll returns a token: its operands (tokens, or any values, which
// XLA accepts there too) only order it after their producers.
func evalAfterAll(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	return ir.NewTokenLiteral(), nil
}

func evalAddDependency(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, fmt.Errorf("expected 2 operands (value, token), found %d", len(ops))
	}
	return ops[0], nil
}

// receive reads one value from ch, honouring the evaluation's context.
func (e *evaluator) receive(ch <-chan *ir.Literal, what string) (*ir.Literal, error) {
	if ch == nil {
		return nil, fmt.Errorf("%s: no channel in Options", what)
	}
	var done <-chan struct{}
	if e.opts.Context != nil {
		done = e.opts.Context.Done()
	}
	select {
	case v, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the channel is closed", what)
		}
		if v == nil {
			return nil, fmt.Errorf("%s: received a nil literal", what)
		}
		return v, nil
	case <-done:
		return nil, e.opts.Context.Err()
	}
}

// transmit writes v to ch, honouring the evaluation's context.
func (e *evaluator) transmit(ch chan<- *ir.Literal, v *ir.Literal, what string) error {
	if ch == nil {
		return fmt.Errorf("%s: no channel in Options", what)
	}
	var done <-chan struct{}
	if e.opts.Context != nil {
		done = e.opts.Context.Done()
	}
	select {
	case ch <- v:
		return nil
	case <-done:
		return e.opts.Context.Err()
	}
}

// dataShape is element 0 of a (data, …, token) result shape.
func dataShape(in *ir.Instruction, n int) (ir.Shape, error) {
	s := in.Shape
	if !s.IsTuple() || len(s.Tuple) != n || !s.Tuple[n-1].IsToken() {
		return ir.Shape{}, fmt.Errorf("result shape %v, expected a tuple of %d ending in a token", s, n)
	}
	return s.Tuple[0], nil
}

func evalInfeed(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	want, err := dataShape(in, 2)
	if err != nil {
		return nil, err
	}
	v, err := e.receive(e.opts.Infeed, "infeed")
	if err != nil {
		return nil, err
	}
	if !v.Shape().Compatible(want) {
		return nil, fmt.Errorf("infeed received shape %v, expected %v", v.Shape(), want)
	}
	return ir.NewTupleLiteral(v, ir.NewTokenLiteral()), nil
}

func evalOutfeed(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, fmt.Errorf("expected 2 operands (value, token), found %d", len(ops))
	}
	if in.OutfeedShape != nil && !ops[0].Shape().Compatible(*in.OutfeedShape) {
		return nil, fmt.Errorf("outfeed operand has shape %v, outfeed_shape is %v", ops[0].Shape(), *in.OutfeedShape)
	}
	if err := e.transmit(e.opts.Outfeed, ops[0].Clone(), "outfeed"); err != nil {
		return nil, err
	}
	return ir.NewTokenLiteral(), nil
}

func (e *evaluator) channel(in *ir.Instruction) (chan *ir.Literal, error) {
	ch := e.opts.Channels[in.ChannelID]
	if ch == nil {
		return nil, fmt.Errorf("%v: no channel %d in Options.Channels", in.Opcode, in.ChannelID)
	}
	return ch, nil
}

func requestID() *ir.Literal { return ir.ScalarLiteral[uint32](0) }

func evalSend(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 2 {
		return nil, fmt.Errorf("expected 2 operands (value, token), found %d", len(ops))
	}
	ch, err := e.channel(in)
	if err != nil {
		return nil, err
	}
	if err := e.transmit(ch, ops[0].Clone(), "send"); err != nil {
		return nil, err
	}
	return ir.NewTupleLiteral(ops[0], requestID(), ir.NewTokenLiteral()), nil
}

func evalSendDone(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	return ir.NewTokenLiteral(), nil
}

func evalRecv(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	want, err := dataShape(in, 3)
	if err != nil {
		return nil, err
	}
	ch, err := e.channel(in)
	if err != nil {
		return nil, err
	}
	v, err := e.receive(ch, "recv")
	if err != nil {
		return nil, err
	}
	if !v.Shape().Compatible(want) {
		return nil, fmt.Errorf("recv received shape %v, expected %v", v.Shape(), want)
	}
	return ir.NewTupleLiteral(v, requestID(), ir.NewTokenLiteral()), nil
}

func evalRecvDone(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 || !ops[0].Shape().IsTuple() || len(ops[0].Elements()) != 3 {
		return nil, fmt.Errorf("recv-done takes the (value, u32, token) tuple of a recv")
	}
	return ir.NewTupleLiteral(ops[0].Element(0), ir.NewTokenLiteral()), nil
}

func evalReplicaID(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	return ir.ScalarLiteral(uint32(e.replica)), nil
}

func evalPartitionID(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	return ir.ScalarLiteral(uint32(e.partition)), nil
}
