package ir

import "slices"

// The Builder's collective operations across replicas: all-reduce,
// all-gather, reduce-scatter, all-to-all, collective-permute and
// collective-broadcast.

// CollectiveOptions are the optional settings of the collectives.
type CollectiveOptions struct {
	// ChannelID, when not 0, lets the op communicate across modules
	// (partitions); only ops with the same channel talk to each other.
	ChannelID int64
	// UseGlobalDeviceIDs makes the replica groups name global device ids
	// (needs a ChannelID).
	UseGlobalDeviceIDs bool
}

// collective checks the common arguments and fills the common attributes.
func (b *Builder) collective(op string, groups [][]int, opts []CollectiveOptions) (*Instruction, int, bool) {
	o, ok := oneOption(b, op, opts)
	if !ok {
		return nil, 0, false
	}
	if o.UseGlobalDeviceIDs && o.ChannelID == 0 {
		b.failf(op, "use_global_device_ids needs a channel id")
		return nil, 0, false
	}
	if o.ChannelID < 0 {
		b.failf(op, "channel id must not be negative, found %d", o.ChannelID)
		return nil, 0, false
	}
	uniform := op != "all-reduce" && op != "collective-broadcast"
	_, size, err := CheckReplicaGroups(op, groups, uniform)
	if err != nil {
		b.fail(err)
		return nil, 0, false
	}
	in := &Instruction{}
	in.ReplicaGroups = &ReplicaGroups{Groups: cloneGroups(groups)}
	in.ChannelID = o.ChannelID
	in.UseGlobalDeviceIDs = o.UseGlobalDeviceIDs
	return in, size, true
}

func cloneGroups(groups [][]int) [][]int {
	out := make([][]int, len(groups))
	for i, g := range groups {
		out[i] = slices.Clone(g)
	}
	return out
}

// AllReduce adds the reduction of x across the replicas of each group with
// comp (no groups: one group of every replica). A tuple x reduces each
// element; the result is then the tuple of the reduced elements.
func (b *Builder) AllReduce(x Op, comp *Computation, groups [][]int, opts ...CollectiveOptions) Op {
	const op = "all-reduce"
	if !b.use(op, x) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	operands, isTuple, ok := b.flattenTuple(op, x)
	if !ok {
		return Op{b: b}
	}
	in, _, ok := b.collective(op, groups, opts)
	if !ok {
		return Op{b: b}
	}
	s, err := InferAllReduceShape(shapesOf(operands), p)
	if err != nil {
		return b.fail(err)
	}
	in.Opcode, in.Shape, in.Operands, in.ToApply = OpAllReduce, s, instructions(operands), comp
	r := b.emit(in)
	if !isTuple || len(operands) == 1 {
		if isTuple {
			return b.Tuple(r)
		}
		return r
	}
	elems := make([]Op, len(operands))
	for i := range elems {
		elems[i] = b.GetTupleElement(r, i)
	}
	return b.Tuple(elems...)
}

// CrossReplicaSum adds the sum of x across the replicas of each group: an
// all-reduce with addition.
func (b *Builder) CrossReplicaSum(x Op, groups [][]int) Op {
	const op = "all-reduce"
	if !b.use(op, x) {
		return Op{b: b}
	}
	t := x.in.Shape.Elem
	if x.in.Shape.IsTuple() && len(x.in.Shape.Tuple) > 0 {
		t = x.in.Shape.Tuple[0].Elem
	}
	sb := b.CreateSubBuilder("sum")
	sb.Add(sb.Parameter(0, Scalar(t), "x"), sb.Parameter(1, Scalar(t), "y"))
	sum, err := sb.Build()
	if err != nil {
		return b.fail(err)
	}
	return b.AllReduce(x, sum, groups)
}

// flattenTuple returns x's tuple elements (of one element type) or x.
func (b *Builder) flattenTuple(op string, x Op) ([]Op, bool, bool) {
	s := x.in.Shape
	if !s.IsTuple() {
		return []Op{x}, false, true
	}
	if len(s.Tuple) == 0 {
		b.failf(op, "an empty tuple operand is not supported")
		return nil, true, false
	}
	ops := make([]Op, len(s.Tuple))
	for i, e := range s.Tuple {
		if e.Elem != s.Tuple[0].Elem {
			b.failf(op, "the elements of a tuple operand must have one element type, found %s", human(s))
			return nil, true, false
		}
		ops[i] = b.GetTupleElement(x, i)
	}
	return ops, true, b.err == nil
}

// AllGather adds the concatenation along dimension of x from each of the
// shardCount replicas of its group.
func (b *Builder) AllGather(x Op, dimension, shardCount int, groups [][]int, opts ...CollectiveOptions) Op {
	const op = "all-gather"
	if !b.use(op, x) {
		return Op{b: b}
	}
	operands, _, ok := b.flattenTuple(op, x)
	if !ok {
		return Op{b: b}
	}
	in, size, ok := b.collective(op, groups, opts)
	if !ok {
		return Op{b: b}
	}
	if size > 0 && size != shardCount {
		return b.failf(op, "shard count %d differs from the replica group size %d", shardCount, size)
	}
	s, err := InferAllGatherShape(shapesOf(operands), dimension, shardCount)
	if err != nil {
		return b.fail(err)
	}
	in.Opcode, in.Shape, in.Operands = OpAllGather, s, instructions(operands)
	in.Dimensions = []int{dimension}
	return b.emit(in)
}

// ReduceScatter adds the all-reduce of x with comp, of which each of the
// shardCount replicas of a group keeps its block along dimension.
func (b *Builder) ReduceScatter(x Op, comp *Computation, dimension, shardCount int, groups [][]int, opts ...CollectiveOptions) Op {
	const op = "reduce-scatter"
	if !b.use(op, x) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	operands, _, ok := b.flattenTuple(op, x)
	if !ok {
		return Op{b: b}
	}
	in, size, ok := b.collective(op, groups, opts)
	if !ok {
		return Op{b: b}
	}
	if size > 0 && size != shardCount {
		return b.failf(op, "shard count %d differs from the replica group size %d", shardCount, size)
	}
	s, err := InferReduceScatterShape(shapesOf(operands), dimension, shardCount, p)
	if err != nil {
		return b.fail(err)
	}
	in.Opcode, in.Shape, in.Operands, in.ToApply = OpReduceScatter, s, instructions(operands), comp
	in.Dimensions = []int{dimension}
	return b.emit(in)
}

// AllToAll adds the exchange of x across the splitCount replicas of each
// group: x is split into splitCount blocks along splitDimension, block i
// goes to replica i, and the received blocks are concatenated along
// concatDimension. As in XLA's client, the HLO all-to-all splits and
// concatenates one dimension; a reshape and transpose move the blocks.
func (b *Builder) AllToAll(x Op, splitDimension, concatDimension, splitCount int, groups [][]int, opts ...CollectiveOptions) Op {
	const op = "all-to-all"
	if !b.use(op, x) {
		return Op{b: b}
	}
	xs := x.in.Shape
	final, err := InferAllToAllShape(xs, splitDimension, concatDimension, splitCount)
	if err != nil {
		return b.fail(err)
	}
	in, size, ok := b.collective(op, groups, opts)
	if !ok {
		return Op{b: b}
	}
	if size > 0 && size != splitCount {
		return b.failf(op, "split count %d differs from the replica group size %d", splitCount, size)
	}
	if len(groups) == 0 {
		g := make([]int, splitCount)
		for i := range g {
			g[i] = i
		}
		in.ReplicaGroups.Groups = [][]int{g}
	}
	in.Opcode, in.Shape, in.Operands = OpAllToAll, xs.WithoutLayout(), []*Instruction{x.in}
	in.Dimensions = []int{splitDimension}
	r := b.emit(in)
	if splitDimension == concatDimension {
		return r
	}
	var sizes []int
	for i, n := range xs.Dims {
		if i != splitDimension {
			sizes = append(sizes, n)
			continue
		}
		sizes = append(sizes, splitCount, n/splitCount)
	}
	r = b.Reshape(r, sizes)
	var perm []int
	for i := 0; i < xs.Rank(); i++ {
		after := i
		if i >= splitDimension {
			after = i + 1
		}
		if i == concatDimension {
			perm = append(perm, splitDimension)
		}
		perm = append(perm, after)
	}
	r = b.Transpose(r, perm)
	return b.Reshape(r, final.Dims)
}

// AllToAllTuple adds the tuple form of all-to-all: one operand per replica
// of the group, operand i sent to replica i; the result is the tuple of
// received values.
func (b *Builder) AllToAllTuple(operands []Op, groups [][]int, opts ...CollectiveOptions) Op {
	const op = "all-to-all"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	in, size, ok := b.collective(op, groups, opts)
	if !ok {
		return Op{b: b}
	}
	if size > 0 && size != len(operands) {
		return b.failf(op, "%d operands for replica groups of size %d", len(operands), size)
	}
	s, err := InferAllToAllTupleShape(shapesOf(operands))
	if err != nil {
		return b.fail(err)
	}
	in.Opcode, in.Shape, in.Operands = OpAllToAll, s, instructions(operands)
	return b.emit(in)
}

// CollectivePermute adds x sent from each source replica to its target in
// pairs; replicas that are no target get zeros.
func (b *Builder) CollectivePermute(x Op, pairs [][2]int, opts ...CollectiveOptions) Op {
	const op = "collective-permute"
	if !b.use(op, x) {
		return Op{b: b}
	}
	in, _, ok := b.collective(op, nil, opts)
	if !ok {
		return Op{b: b}
	}
	s, err := InferCollectivePermuteShape([]Shape{x.in.Shape}, pairs)
	if err != nil {
		return b.fail(err)
	}
	in.Opcode, in.Shape, in.Operands = OpCollectivePermute, s, []*Instruction{x.in}
	in.ReplicaGroups = nil
	in.SourceTargetPairs = slices.Clone(pairs)
	if in.SourceTargetPairs == nil {
		in.SourceTargetPairs = [][2]int{}
	}
	return b.emit(in)
}

// CollectiveBroadcast adds x broadcast from the first replica of each group
// to the others.
func (b *Builder) CollectiveBroadcast(x Op, groups [][]int, opts ...CollectiveOptions) Op {
	const op = "collective-broadcast"
	if !b.use(op, x) {
		return Op{b: b}
	}
	in, _, ok := b.collective(op, groups, opts)
	if !ok {
		return Op{b: b}
	}
	s, err := InferCollectiveBroadcastShape([]Shape{x.in.Shape})
	if err != nil {
		return b.fail(err)
	}
	in.Opcode, in.Shape, in.Operands = OpCollectiveBroadcast, s, []*Instruction{x.in}
	return b.emit(in)
}
