package runtime

// Collectives of a program that runs as one replica and one partition, and
// the ops around them. With a single participant every collective is a copy
// of its operands (all-reduce combines one value, all-gather and all-to-all
// concatenate one part, reduce-scatter hands the whole to its one member,
// collective-broadcast and collective-permute from replica 0 to itself); a
// collective-permute with no pair targeting replica 0 gives zeros.
// replica-id and partition-id are 0; after-all makes a token (no data);
// add-dependency, opt-barrier and domain pass their values through. Replica groups
// naming any replica but 0 are left to the evaluator, which reports them.

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	for _, op := range []ir.Opcode{ir.OpAllReduce, ir.OpAllGather, ir.OpAllToAll, ir.OpReduceScatter,
		ir.OpCollectiveBroadcast, ir.OpCollectivePermute} {
		genericSteps[ssa.Op(op)] = buildCollective
	}
	genericSteps[ssa.Op(ir.OpReplicaID)] = buildZeroID
	genericSteps[ssa.Op(ir.OpPartitionID)] = buildZeroID
	genericSteps[ssa.Op(ir.OpAfterAll)] = buildAfterAll
	genericSteps[ssa.Op(ir.OpAddDependency)] = buildPassThrough
	genericSteps[ssa.OpOptBarrier] = buildPassThrough
	genericSteps[ssa.Op(ir.OpDomain)] = buildPassThrough
}

// leafCopyStep copies leaves onto leaves (a nil source clears).
type leafCopyStep struct {
	op       string
	src, dst []loc
	zero     bool
}

func (s *leafCopyStep) name() string { return s.op }

func (s *leafCopyStep) exec(fr *frame) error {
	for i, l := range s.dst {
		if s.zero {
			clear(fr.bytes(l))
			continue
		}
		copy(fr.bytes(l), fr.bytes(s.src[i]))
	}
	return nil
}

// soleReplicaGroups reports whether v's replica groups leave replica 0
// alone: none, or groups naming only replica 0.
func soleReplicaGroups(v *ssa.Value) bool {
	if v.Attrs.UseGlobalDeviceIDs && v.Attrs.ChannelID == 0 {
		return false
	}
	if v.Attrs.ReplicaGroups == nil {
		return true
	}
	for _, g := range v.Attrs.ReplicaGroups.Groups {
		for _, id := range g {
			if id != 0 {
				return false
			}
		}
	}
	return true
}

func buildCollective(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	op, _ := v.Op.IR()
	if !soleReplicaGroups(v) {
		return nil, nil
	}
	var src []loc
	for _, a := range v.Args {
		b := inputBuffer(k, a)
		if b == nil || !a.Shape.IsArray() || !a.Shape.IsStatic() {
			return nil, nil
		}
		src = append(src, c.loc(b))
	}
	dst := c.leaves(k.Out)
	if len(dst) != len(src) {
		return nil, nil
	}
	for i, d := range dst {
		if d.size != src[i].size {
			return nil, nil // the result is not the operand's shape: not a one-replica form
		}
	}
	if op == ir.OpAllToAll && len(v.Attrs.Dimensions) == 0 && len(v.Args) != 1 {
		return nil, nil // the tuple form sends one operand to each member
	}
	s := &leafCopyStep{op: op.String(), src: src, dst: dst}
	if op == ir.OpCollectivePermute {
		if len(v.Args) == 4 {
			return nil, nil // the in-place form
		}
		s.zero = true
		for _, pr := range v.Attrs.SourceTargetPairs {
			if pr[0] != 0 || pr[1] != 0 {
				return nil, nil // names a participant that does not exist
			}
			s.zero = false
		}
	}
	return s, nil
}

func buildZeroID(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if !v.Shape.IsScalar() || v.Shape.Elem != ir.U32 {
		return nil, nil
	}
	op, _ := v.Op.IR()
	return &constStep{out: c.loc(k.Out), data: ir.ScalarLiteral(uint32(0)).Bytes(), op: op.String()}, nil
}

// noopStep is an op with no data to produce (a token).
type noopStep struct{ op string }

func (s *noopStep) name() string      { return s.op }
func (s *noopStep) exec(*frame) error { return nil }

func buildAfterAll(c *compiler, k *sched.Kernel, p *program) (step, error) {
	if !k.Root.Shape.IsToken() {
		return nil, nil
	}
	return &noopStep{op: "after-all"}, nil
}

// buildPassThrough copies an add-dependency's value (its first operand) or
// an opt-barrier's operand, leaf by leaf.
func buildPassThrough(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) == 0 {
		return nil, nil
	}
	b := inputBuffer(k, v.Args[0])
	if b == nil {
		return nil, nil
	}
	src, dst := c.leaves(b), c.leaves(k.Out)
	if len(src) != len(dst) {
		return nil, nil
	}
	op, _ := v.Op.IR()
	return &leafCopyStep{op: op.String(), src: src, dst: dst}, nil
}
