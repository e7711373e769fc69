package ir

// Shape inference of the collective ops (all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-permute, collective-broadcast) and
// the checks of their replica groups.

// CheckReplicaGroups checks a collective's replica groups as XLA's verifier
// does: no group is empty, no replica appears twice, the groups together
// name exactly the replicas 0..n-1, and (when uniform) every group has the
// same size. It returns n and the size of the groups (0 and 0 when there are
// no groups, meaning one group of every replica).
func CheckReplicaGroups(op string, groups [][]int, uniform bool) (n, size int, err error) {
	if len(groups) == 0 {
		return 0, 0, nil
	}
	seen := make(map[int]bool)
	for gi, g := range groups {
		if len(g) == 0 {
			return 0, 0, errf(op, "replica group %d is empty", gi)
		}
		for _, r := range g {
			if r < 0 {
				return 0, 0, errf(op, "replica group %d names negative replica %d", gi, r)
			}
			if seen[r] {
				return 0, 0, errf(op, "replica %d appears in more than one place in the replica groups", r)
			}
			seen[r] = true
		}
		if uniform && len(g) != len(groups[0]) {
			return 0, 0, errf(op, "replica group %d has %d replicas, group 0 has %d (expected groups of one size)", gi, len(g), len(groups[0]))
		}
	}
	for r := 0; r < len(seen); r++ {
		if !seen[r] {
			return 0, 0, errf(op, "replica groups name %d replicas but not replica %d (expected replicas 0..%d)", len(seen), r, len(seen)-1)
		}
	}
	return len(seen), len(groups[0]), nil
}

// checkCollectiveReducer checks the computation of all-reduce and
// reduce-scatter: (T, T) -> T for the element type T of every operand.
func checkCollectiveReducer(op string, operands []Shape, reducer ProgramShape) error {
	for _, s := range operands {
		t := scalarOf(s.Elem)
		if err := checkReducer(op, reducer, []Shape{t}, []ElementType{s.Elem}); err != nil {
			return err
		}
	}
	return nil
}

// tupleIfMany returns the only shape, or a tuple of them.
func tupleIfMany(shapes []Shape) Shape {
	if len(shapes) == 1 {
		return shapes[0].Clone()
	}
	return MakeTuple(shapes...)
}

// InferAllReduceShape is the shape of all-reduce(operands…) with reducer:
// the operand's shape, or a tuple of them.
func InferAllReduceShape(operands []Shape, reducer ProgramShape) (Shape, error) {
	const op = "all-reduce"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	if err := checkCollectiveReducer(op, operands, reducer); err != nil {
		return Shape{}, err
	}
	return tupleIfMany(operands), nil
}

// InferAllGatherShape is the shape of all-gather(operands…) along dimension
// over shardCount participants: each operand with that dimension multiplied
// by shardCount.
func InferAllGatherShape(operands []Shape, dimension, shardCount int) (Shape, error) {
	const op = "all-gather"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	if shardCount <= 0 {
		return Shape{}, errf(op, "shard count must be positive, found %d", shardCount)
	}
	outs := make([]Shape, len(operands))
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
		if dimension < 0 || dimension >= s.Rank() {
			return Shape{}, errf(op, "all_gather_dimension %d is out of range for operand %d %s", dimension, i, human(s))
		}
		o := s.WithoutLayout()
		n, ok := mulInts(o.Dims[dimension], shardCount)
		if !ok {
			return Shape{}, errf(op, "gathered dimension size overflows")
		}
		o.Dims[dimension] = n
		var err error
		if outs[i], err = checkResult(op, o); err != nil {
			return Shape{}, err
		}
	}
	return tupleIfMany(outs), nil
}

// InferReduceScatterShape is the shape of reduce-scatter(operands…) along
// dimension over shardCount participants with reducer: each operand with
// that dimension divided by shardCount (which must divide it).
func InferReduceScatterShape(operands []Shape, dimension, shardCount int, reducer ProgramShape) (Shape, error) {
	const op = "reduce-scatter"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	if shardCount <= 0 {
		return Shape{}, errf(op, "shard count must be positive, found %d", shardCount)
	}
	outs := make([]Shape, len(operands))
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
		if dimension < 0 || dimension >= s.Rank() {
			return Shape{}, errf(op, "scatter dimension %d is out of range for operand %d %s", dimension, i, human(s))
		}
		if s.Dims[dimension]%shardCount != 0 {
			return Shape{}, errf(op, "operand %d %s: scatter dimension %d of size %d is not divisible by the shard count %d", i, human(s), dimension, s.Dims[dimension], shardCount)
		}
		o := s.WithoutLayout()
		o.Dims[dimension] /= shardCount
		outs[i] = o
	}
	if err := checkCollectiveReducer(op, operands, reducer); err != nil {
		return Shape{}, err
	}
	return tupleIfMany(outs), nil
}

// InferAllToAllShape is the shape of the client-level AllToAll(operand):
// splitDimension divided by splitCount (which must divide it), then
// concatDimension multiplied by it. In HLO the two dimensions are the same
// and the shape is unchanged.
func InferAllToAllShape(operand Shape, splitDimension, concatDimension, splitCount int) (Shape, error) {
	const op = "all-to-all"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if splitCount <= 0 {
		return Shape{}, errf(op, "split count must be positive, found %d", splitCount)
	}
	if splitDimension < 0 || splitDimension >= operand.Rank() {
		return Shape{}, errf(op, "split dimension %d is out of range for operand %s", splitDimension, human(operand))
	}
	if concatDimension < 0 || concatDimension >= operand.Rank() {
		return Shape{}, errf(op, "concat dimension %d is out of range for operand %s", concatDimension, human(operand))
	}
	if operand.Dims[splitDimension]%splitCount != 0 {
		return Shape{}, errf(op, "split dimension %d of size %d is not divisible by the split count %d", splitDimension, operand.Dims[splitDimension], splitCount)
	}
	s := operand.WithoutLayout()
	s.Dims[splitDimension] /= splitCount
	n, ok := mulInts(s.Dims[concatDimension], splitCount)
	if !ok {
		return Shape{}, errf(op, "concatenated dimension size overflows")
	}
	s.Dims[concatDimension] = n
	return checkResult(op, s)
}

// InferAllToAllTupleShape is the shape of the tuple form of all-to-all, one
// array operand per participant: the tuple of the operands' shapes.
func InferAllToAllTupleShape(operands []Shape) (Shape, error) {
	const op = "all-to-all"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	return MakeTuple(operands...), nil
}

// InferCollectivePermuteShape is the shape of collective-permute(operands…)
// with source-target pairs: the operand's shape, or a tuple of them. No
// replica is a source twice or a target twice, and ids are non-negative.
func InferCollectivePermuteShape(operands []Shape, pairs [][2]int) (Shape, error) {
	const op = "collective-permute"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	sources, targets := make(map[int]bool), make(map[int]bool)
	for _, p := range pairs {
		if p[0] < 0 || p[1] < 0 {
			return Shape{}, errf(op, "source-target pair {%d,%d} has a negative replica id", p[0], p[1])
		}
		if sources[p[0]] {
			return Shape{}, errf(op, "replica %d is the source of more than one pair", p[0])
		}
		if targets[p[1]] {
			return Shape{}, errf(op, "replica %d is the target of more than one pair", p[1])
		}
		sources[p[0]], targets[p[1]] = true, true
	}
	return tupleIfMany(operands), nil
}

// InferCollectiveBroadcastShape is the shape of collective-broadcast: the
// operand's shape, or a tuple of them.
func InferCollectiveBroadcastShape(operands []Shape) (Shape, error) {
	const op = "collective-broadcast"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
	}
	return tupleIfMany(operands), nil
}
