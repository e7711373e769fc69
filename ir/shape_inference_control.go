package ir

// Shape inference of the ops that call computations: while, conditional,
// call (and composite calls), fusion.

// InferWhileShape is the shape of while(init) with condition and body: the
// init's. The condition takes one parameter and returns pred[]; the body
// takes one and returns it; both parameters and the body's result have the
// init's shape.
func InferWhileShape(condition, body ProgramShape, init Shape) (Shape, error) {
	const op = "while"
	if len(condition.Parameters) != 1 {
		return Shape{}, errf(op, "condition %s must take 1 parameter, found %d", humanProgram(condition), len(condition.Parameters))
	}
	if len(body.Parameters) != 1 {
		return Shape{}, errf(op, "body %s must take 1 parameter, found %d", humanProgram(body), len(body.Parameters))
	}
	if !compatible(condition.Result, scalarOf(PRED)) {
		return Shape{}, errf(op, "condition must return pred[], found %s", human(condition.Result))
	}
	if !compatible(body.Result, init) {
		return Shape{}, errf(op, "body returns %s, the init value has shape %s (expected the same)", human(body.Result), human(init))
	}
	if !compatible(body.Parameters[0], init) {
		return Shape{}, errf(op, "body parameter has shape %s, the init value %s (expected the same)", human(body.Parameters[0]), human(init))
	}
	if !compatible(condition.Parameters[0], init) {
		return Shape{}, errf(op, "condition parameter has shape %s, the init value %s (expected the same)", human(condition.Parameters[0]), human(init))
	}
	return init.Clone(), nil
}

// InferConditionalShape is the shape of conditional(branch_index,
// operands…): the branches' common result. branchIndex is a pred[] (two
// branches: true, then false) or an s32[] (at least one branch); branch j
// takes one parameter of operand j's shape.
func InferConditionalShape(branchIndex Shape, branches []ProgramShape, operands []Shape) (Shape, error) {
	const op = "conditional"
	if !branchIndex.IsScalar() || (branchIndex.Elem != PRED && branchIndex.Elem != S32) {
		return Shape{}, errf(op, "branch index must be a pred[] or s32[] scalar, found %s", human(branchIndex))
	}
	if branchIndex.Elem == PRED && len(branches) != 2 {
		return Shape{}, errf(op, "a pred branch index needs 2 branches (true, false), found %d", len(branches))
	}
	if len(branches) == 0 {
		return Shape{}, errf(op, "needs at least one branch computation")
	}
	if len(operands) != len(branches) {
		return Shape{}, errf(op, "%d branch operands for %d branch computations", len(operands), len(branches))
	}
	for j, b := range branches {
		if len(b.Parameters) != 1 {
			return Shape{}, errf(op, "branch computation %d %s must take 1 parameter, found %d", j, humanProgram(b), len(b.Parameters))
		}
		if !compatible(b.Parameters[0], operands[j]) {
			return Shape{}, errf(op, "branch operand %d has shape %s, branch computation %d takes %s", j, human(operands[j]), j, human(b.Parameters[0]))
		}
		if !compatible(b.Result, branches[0].Result) {
			return Shape{}, errf(op, "branch computation %d returns %s, branch computation 0 returns %s (expected the same)", j, human(b.Result), human(branches[0].Result))
		}
	}
	return branches[0].Result.Clone(), nil
}

// InferCallShape is the shape of call(operands…) of a computation: its
// result. The computation takes one parameter per operand, of its shape.
func InferCallShape(operands []Shape, toApply ProgramShape) (Shape, error) {
	return inferCallShape("call", operands, toApply)
}

func inferCallShape(op string, operands []Shape, toApply ProgramShape) (Shape, error) {
	if len(operands) != len(toApply.Parameters) {
		return Shape{}, errf(op, "computation %s takes %d parameters, found %d operands", humanProgram(toApply), len(toApply.Parameters), len(operands))
	}
	for i, s := range operands {
		if !compatible(s, toApply.Parameters[i]) {
			return Shape{}, errf(op, "operand %d has shape %s, computation parameter %d has shape %s", i, human(s), i, human(toApply.Parameters[i]))
		}
	}
	return toApply.Result.Clone(), nil
}
