package eval

// rendezvous is where the replicas of a replicated evaluation meet to
// exchange the operands of collective ops.
type rendezvous struct{}
