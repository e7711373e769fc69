package eval

// Collective ops across the replicas of one process: all-reduce,
// all-gather, all-to-all, collective-permute, reduce-scatter and
// collective-broadcast, and RunReplicated, which runs one evaluator per
// replica in its own goroutine. The replicas meet at a rendezvous: the k-th
// execution of a collective instruction by each member of a replica group is
// one exchange.
//
// Participants follow XLA's CollectiveOpGroupMode with one partition per
// replica: without channel_id the ids in replica_groups are replica ids
// (cross-replica); all-reduce, all-gather and reduce-scatter with channel_id
// are cross-replica-and-partition (use_global_device_ids=false) or use
// flattened device ids (true), which with one partition are replica ids as
// well; all-to-all, collective-permute and collective-broadcast with
// channel_id are cross-partition, so each replica exchanges only with itself
// (partition 0). Empty replica_groups mean one group of all participants in
// id order. The order of a group is the order of results: all-gather and
// all-to-all concatenate in group order, reduce-scatter hands shard i to the
// i-th member, all-reduce combines the members' values in group order,
// f(f(v0, v1), v2)…, with the same standard-reducer fast path as reduce. A
// module with num_partitions above 1 is not supported.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// allReplicas returns 0, 1, …, n-1.
func allReplicas(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func init() {
	register(evalAllReduce, ir.OpAllReduce)
	register(evalAllGather, ir.OpAllGather)
	register(evalAllToAll, ir.OpAllToAll)
	register(evalCollectivePermute, ir.OpCollectivePermute)
	register(evalReduceScatter, ir.OpReduceScatter)
	register(evalCollectiveBroadcast, ir.OpCollectiveBroadcast)
}

// RunReplicated evaluates the module's entry computation on `replicas`
// replicas at once, one goroutine each, replica r taking args[r]. It returns
// each replica's results (tuple results as their elements, as Run does). An
// error in any replica stops them all; the error of the replica that failed
// first is returned.
func RunReplicated(m *ir.Module, replicas int, args [][]*ir.Literal) ([][]*ir.Literal, error) {
	return RunReplicatedWithOptions(m, Options{}, replicas, args)
}

// RunReplicatedWithOptions is RunReplicated with explicit options, shared by
// every replica (Channels then connect send and recv across replicas).
func RunReplicatedWithOptions(m *ir.Module, opts Options, replicas int, args [][]*ir.Literal) ([][]*ir.Literal, error) {
	if m == nil || m.Entry == nil {
		return nil, errors.New("eval: module has no entry computation")
	}
	if replicas < 1 {
		return nil, fmt.Errorf("eval: %d replicas, expected at least 1", replicas)
	}
	if len(args) != replicas {
		return nil, fmt.Errorf("eval: %d argument lists for %d replicas", len(args), replicas)
	}
	if p := numPartitions(m); p > 1 {
		return nil, fmt.Errorf("eval: module has num_partitions=%d; only one partition per replica is supported", p)
	}
	rv := newRendezvous(replicas)
	if opts.Context != nil {
		stop := context.AfterFunc(opts.Context, func() { rv.fail(-1, opts.Context.Err()) })
		defer stop()
	}
	results := make([][]*ir.Literal, replicas)
	var wg sync.WaitGroup
	for r := 0; r < replicas; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			e := newEvaluator(m, opts, r, replicas)
			e.collective = rv
			out, err := e.call(m.Entry, args[r])
			if err != nil {
				rv.fail(r, err)
				return
			}
			rv.finish(r)
			if out.Shape().IsTuple() {
				results[r] = out.Elements()
			} else {
				results[r] = []*ir.Literal{out}
			}
		}(r)
	}
	wg.Wait()
	if rv.err != nil {
		if rv.errReplica < 0 {
			return nil, rv.err
		}
		return nil, fmt.Errorf("replica %d: %w", rv.errReplica, rv.err)
	}
	return results, nil
}

func numPartitions(m *ir.Module) int {
	for _, a := range m.Attributes {
		if a.Name == "num_partitions" {
			if n, err := strconv.Atoi(a.Value); err == nil {
				return n
			}
		}
	}
	return 1
}

// rendezvous is where the replicas of a replicated evaluation meet to
// exchange the operands of collective ops.
type rendezvous struct {
	mu         sync.Mutex
	cond       *sync.Cond
	seq        []map[*ir.Instruction]int // per replica: executions so far of each collective
	slots      map[exchangeKey]*exchangeSlot
	finished   []bool
	err        error
	errReplica int
}

type exchangeKey struct {
	in    *ir.Instruction
	seq   int
	first int // the group's first member: groups of one instruction are disjoint
}

type exchangeSlot struct {
	values  [][]*ir.Literal // by position in the group
	arrived int
	read    int
}

func newRendezvous(replicas int) *rendezvous {
	rv := &rendezvous{seq: make([]map[*ir.Instruction]int, replicas), slots: map[exchangeKey]*exchangeSlot{},
		finished: make([]bool, replicas)}
	for i := range rv.seq {
		rv.seq[i] = map[*ir.Instruction]int{}
	}
	rv.cond = sync.NewCond(&rv.mu)
	return rv
}

// errPeerFailed is returned to replicas stopped because another one failed.
var errPeerFailed = errors.New("stopped: another replica failed")

func (rv *rendezvous) fail(replica int, err error) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.err == nil && !errors.Is(err, errPeerFailed) {
		rv.err, rv.errReplica = err, replica
	}
	if replica >= 0 {
		rv.finished[replica] = true
	}
	rv.cond.Broadcast()
}

func (rv *rendezvous) finish(replica int) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.finished[replica] = true
	rv.cond.Broadcast()
}

// exchange deposits this replica's values for the current execution of in
// and waits for every member of group; it returns all members' values in
// group order.
func (rv *rendezvous) exchange(replica int, in *ir.Instruction, group []int, values []*ir.Literal) ([][]*ir.Literal, error) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	seq := rv.seq[replica][in]
	rv.seq[replica][in] = seq + 1
	key := exchangeKey{in: in, seq: seq, first: group[0]}
	slot := rv.slots[key]
	if slot == nil {
		slot = &exchangeSlot{values: make([][]*ir.Literal, len(group))}
		rv.slots[key] = slot
	}
	pos := indexOf(group, replica)
	slot.values[pos] = values
	slot.arrived++
	rv.cond.Broadcast()
	for slot.arrived < len(group) {
		if rv.err != nil {
			return nil, errPeerFailed
		}
		for i, r := range group {
			if slot.values[i] == nil && rv.finished[r] {
				return nil, fmt.Errorf("replica %d finished without reaching this %v (execution %d)", r, in.Opcode, seq+1)
			}
		}
		rv.cond.Wait()
	}
	out := append([][]*ir.Literal{}, slot.values...)
	slot.read++
	if slot.read == len(group) {
		delete(rv.slots, key)
	}
	return out, nil
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// crossPartition reports whether a collective with channel_id runs across
// partitions (XLA's kCrossPartition mode), which with one partition per
// replica means each replica alone.
func crossPartition(in *ir.Instruction) bool {
	if in.ChannelID == 0 {
		return false
	}
	switch in.Opcode {
	case ir.OpAllToAll, ir.OpCollectivePermute, ir.OpCollectiveBroadcast:
		return true
	}
	return false
}

// group returns the replicas this replica exchanges with for in, in group
// order.
func (e *evaluator) group(in *ir.Instruction) ([]int, error) {
	var groups [][]int
	if in.ReplicaGroups != nil {
		groups = in.ReplicaGroups.Groups
	}
	if in.ChannelID == 0 && in.UseGlobalDeviceIDs {
		return nil, fmt.Errorf("use_global_device_ids=true needs a channel_id")
	}
	if crossPartition(in) {
		for _, g := range groups {
			for _, id := range g {
				if id != 0 {
					return nil, fmt.Errorf("replica group names partition %d; the module runs one partition", id)
				}
			}
		}
		return []int{e.replica}, nil
	}
	if len(groups) == 0 {
		return allReplicas(e.replicas), nil
	}
	seen := make([]bool, e.replicas)
	var mine []int
	for _, g := range groups {
		for _, id := range g {
			if id < 0 || id >= e.replicas {
				return nil, fmt.Errorf("replica group names replica %d, there are %d replicas", id, e.replicas)
			}
			if seen[id] {
				return nil, fmt.Errorf("replica %d appears in two replica groups", id)
			}
			seen[id] = true
		}
		if indexOf(g, e.replica) >= 0 {
			mine = g
		}
	}
	if mine == nil {
		return nil, fmt.Errorf("replica %d is in no replica group of %v", e.replica, groups)
	}
	return mine, nil
}

// gather exchanges values with the members of group and returns them in
// group order.
func (e *evaluator) gather(in *ir.Instruction, group []int, values []*ir.Literal) ([][]*ir.Literal, error) {
	if len(group) == 1 {
		return [][]*ir.Literal{values}, nil
	}
	if e.collective == nil {
		return nil, fmt.Errorf("a group of %d replicas needs RunReplicated", len(group))
	}
	return e.collective.exchange(e.replica, in, group, values)
}

func checkArrays(ops []*ir.Literal) error {
	for i, o := range ops {
		if !o.Shape().IsArray() {
			return fmt.Errorf("operand %d has shape %v, expected an array", i, o.Shape())
		}
	}
	return nil
}

// checkResults compares computed results with the instruction's shape.
func checkResults(in *ir.Instruction, outs []*ir.Literal) error {
	shapes, err := resultArrayShapes(in.Shape, len(outs))
	if err != nil {
		return err
	}
	for i, o := range outs {
		if !o.Shape().Compatible(shapes[i]) {
			return fmt.Errorf("result %d has shape %v, the instruction declares %v", i, o.Shape(), shapes[i])
		}
	}
	return nil
}

// ---- all-reduce and reduce-scatter ----------------------------------------

// combineAll reduces the members' values of one operand in group order.
func (e *evaluator) combineAll(in *ir.Instruction, vals []*ir.Literal) (*ir.Literal, error) {
	t := vals[0].Shape().Elem
	for _, v := range vals {
		if !v.Shape().EqualIgnoringLayout(vals[0].Shape()) {
			return nil, fmt.Errorf("replicas contribute shapes %v and %v, expected equal", vals[0].Shape(), v.Shape())
		}
	}
	if len(vals) == 1 {
		return vals[0].Clone(), nil
	}
	f, err := e.function(in.ToApply)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, fmt.Errorf("%v has no to_apply computation", in.Opcode)
	}
	comb, err := ops.NewCombiner(f, []ir.ElementType{t})
	if err != nil {
		return nil, err
	}
	out := vals[0].Clone()
	scratch := make([]byte, comb.ScratchBytes())
	comb.Begin(scratch)
	cur := [][]byte{out.Bytes()}
	for _, v := range vals[1:] {
		upd := [][]byte{v.Bytes()}
		for i := 0; i < out.ElementCount(); i++ {
			if err := comb.Apply(scratch, cur, i, upd, i); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (e *evaluator) allReduce(in *ir.Instruction, ops []*ir.Literal) ([]*ir.Literal, []int, error) {
	if err := checkArrays(ops); err != nil {
		return nil, nil, err
	}
	group, err := e.group(in)
	if err != nil {
		return nil, nil, err
	}
	all, err := e.gather(in, group, ops)
	if err != nil {
		return nil, nil, err
	}
	outs := make([]*ir.Literal, len(ops))
	for k := range ops {
		vals := make([]*ir.Literal, len(all))
		for j := range all {
			vals[j] = all[j][k]
		}
		if outs[k], err = e.combineAll(in, vals); err != nil {
			return nil, nil, err
		}
	}
	return outs, group, nil
}

func evalAllReduce(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	outs, _, err := e.allReduce(in, ops)
	if err != nil {
		return nil, err
	}
	if err := checkResults(in, outs); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalReduceScatter(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(in.Dimensions) != 1 {
		return nil, fmt.Errorf("reduce-scatter needs one scatter dimension, found %v", in.Dimensions)
	}
	d := in.Dimensions[0]
	reduced, group, err := e.allReduce(in, ops)
	if err != nil {
		return nil, err
	}
	pos := indexOf(group, e.replica)
	outs := make([]*ir.Literal, len(reduced))
	for k, r := range reduced {
		dims := r.Shape().Dims
		if d < 0 || d >= len(dims) || dims[d]%len(group) != 0 {
			return nil, fmt.Errorf("scatter dimension %d of %v does not split into %d shards", d, dims, len(group))
		}
		size := dims[d] / len(group)
		if outs[k], err = sliceAlong(r, d, pos*size, size); err != nil {
			return nil, err
		}
	}
	if err := checkResults(in, outs); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

// ---- all-gather, all-to-all, broadcast, permute ---------------------------

func evalAllGather(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArrays(ops); err != nil {
		return nil, err
	}
	if len(in.Dimensions) != 1 {
		return nil, fmt.Errorf("all-gather needs one gather dimension, found %v", in.Dimensions)
	}
	group, err := e.group(in)
	if err != nil {
		return nil, err
	}
	all, err := e.gather(in, group, ops)
	if err != nil {
		return nil, err
	}
	outs := make([]*ir.Literal, len(ops))
	for k := range ops {
		parts := make([]*ir.Literal, len(all))
		for j := range all {
			parts[j] = all[j][k]
		}
		if outs[k], err = concatAlong(parts, in.Dimensions[0]); err != nil {
			return nil, err
		}
	}
	if err := checkResults(in, outs); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalAllToAll(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArrays(ops); err != nil {
		return nil, err
	}
	group, err := e.group(in)
	if err != nil {
		return nil, err
	}
	g := len(group)
	all, err := e.gather(in, group, ops)
	if err != nil {
		return nil, err
	}
	pos := indexOf(group, e.replica)
	var outs []*ir.Literal
	if len(in.Dimensions) == 0 {
		// Tuple form: operand j of each member goes to member j.
		if len(ops) != g {
			return nil, fmt.Errorf("all-to-all without a split dimension takes one operand per group member: %d operands, group of %d", len(ops), g)
		}
		outs = make([]*ir.Literal, g)
		for j := range all {
			outs[j] = all[j][pos].Clone()
		}
	} else {
		d := in.Dimensions[0]
		outs = make([]*ir.Literal, len(ops))
		for k, o := range ops {
			dims := o.Shape().Dims
			if d < 0 || d >= len(dims) || dims[d]%g != 0 {
				return nil, fmt.Errorf("split dimension %d of %v does not split into %d chunks", d, dims, g)
			}
			size := dims[d] / g
			parts := make([]*ir.Literal, g)
			for j := range all {
				if parts[j], err = sliceAlong(all[j][k], d, pos*size, size); err != nil {
					return nil, err
				}
			}
			if outs[k], err = concatAlong(parts, d); err != nil {
				return nil, err
			}
		}
	}
	if err := checkResults(in, outs); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalCollectiveBroadcast(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if err := checkArrays(ops); err != nil {
		return nil, err
	}
	group, err := e.group(in)
	if err != nil {
		return nil, err
	}
	all, err := e.gather(in, group, ops)
	if err != nil {
		return nil, err
	}
	outs := make([]*ir.Literal, len(ops))
	for k := range ops {
		outs[k] = all[0][k].Clone()
	}
	if err := checkResults(in, outs); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func evalCollectivePermute(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) == 4 && (ops[2].Shape().IsTuple() || ops[2].Shape().Elem == ir.S32) {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: "the in-place form (input, output, input and output start indices)"}
	}
	if err := checkArrays(ops); err != nil {
		return nil, err
	}
	var participants []int
	n := e.replicas
	if crossPartition(in) {
		participants, n = []int{e.replica}, 1
	} else {
		participants = allReplicas(e.replicas)
	}
	me := e.replica
	if crossPartition(in) {
		me = 0
	}
	source := -1
	seenS, seenT := map[int]bool{}, map[int]bool{}
	for _, p := range in.SourceTargetPairs {
		s, t := p[0], p[1]
		if s < 0 || s >= n || t < 0 || t >= n {
			return nil, fmt.Errorf("source_target_pairs entry {%d,%d} is outside the %d participants", s, t, n)
		}
		if seenS[s] || seenT[t] {
			return nil, fmt.Errorf("source_target_pairs repeat a source or a target: {%d,%d}", s, t)
		}
		seenS[s], seenT[t] = true, true
		if t == me {
			source = s
		}
	}
	all, err := e.gather(in, participants, ops)
	if err != nil {
		return nil, err
	}
	outs := make([]*ir.Literal, len(ops))
	for k, o := range ops {
		if source < 0 {
			if outs[k], err = newArray(o.Shape().Elem, o.Shape().Dims); err != nil {
				return nil, err
			}
			continue
		}
		outs[k] = all[source][k].Clone()
	}
	if err := checkResults(in, outs); err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

// ---- slicing and concatenating along one dimension ------------------------

// sliceAlong returns elements [start, start+size) of l along dimension d.
func sliceAlong(l *ir.Literal, d, start, size int) (*ir.Literal, error) {
	dims := append([]int{}, l.Shape().Dims...)
	es := l.Shape().Elem.ByteSize()
	outer := numElements(dims[:d])
	inner := numElements(dims[d+1:]) * es
	full := dims[d]
	dims[d] = size
	out, err := newArray(l.Shape().Elem, dims)
	if err != nil {
		return nil, err
	}
	src, dst := l.Bytes(), out.Bytes()
	for o := 0; o < outer; o++ {
		copy(dst[o*size*inner:(o+1)*size*inner], src[(o*full+start)*inner:(o*full+start+size)*inner])
	}
	return out, nil
}

// concatAlong concatenates arrays of equal element type along dimension d.
func concatAlong(parts []*ir.Literal, d int) (*ir.Literal, error) {
	base := parts[0].Shape()
	if d < 0 || d >= base.Rank() {
		return nil, fmt.Errorf("dimension %d is out of range for rank %d", d, base.Rank())
	}
	dims := append([]int{}, base.Dims...)
	dims[d] = 0
	for _, p := range parts {
		s := p.Shape()
		if s.Elem != base.Elem || s.Rank() != base.Rank() {
			return nil, fmt.Errorf("cannot concatenate %v and %v", base, s)
		}
		for i := range s.Dims {
			if i != d && s.Dims[i] != base.Dims[i] {
				return nil, fmt.Errorf("cannot concatenate %v and %v along dimension %d", base, s, d)
			}
		}
		dims[d] += s.Dims[d]
	}
	out, err := newArray(base.Elem, dims)
	if err != nil {
		return nil, err
	}
	es := base.Elem.ByteSize()
	outer := numElements(dims[:d])
	inner := numElements(dims[d+1:]) * es
	dst := out.Bytes()
	off := 0
	for o := 0; o < outer; o++ {
		for _, p := range parts {
			n := p.Shape().Dims[d] * inner
			off += copy(dst[off:], p.Bytes()[o*n:(o+1)*n])
		}
	}
	return out, nil
}
