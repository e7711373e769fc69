package ir

// annotationTargets are the custom-call targets JAX and XLA emit to annotate
// a value for partitioning (GSPMD's and Shardy's), placement or host
// offloading. On one device each returns its operand unchanged.
var annotationTargets = map[string]bool{
	"Sharding":                   true,
	"SPMDFullToShardShape":       true,
	"SPMDShardToFullShape":       true,
	"xla.sdy.FuncResultSharding": true,
	"xla.sdy.GlobalToLocalShape": true,
	"xla.sdy.LocalToGlobalShape": true,
	"annotate_device_placement":  true,
	"MoveToHost":                 true,
	"MoveToDevice":               true,
}

// IsAnnotationTarget reports whether target is one of the annotation
// custom-call targets (Sharding, SPMDFullToShardShape, SPMDShardToFullShape,
// Shardy's xla.sdy.FuncResultSharding, xla.sdy.GlobalToLocalShape and
// xla.sdy.LocalToGlobalShape, annotate_device_placement, MoveToHost,
// MoveToDevice).
func IsAnnotationTarget(target string) bool { return annotationTargets[target] }

// IsIdentityAnnotation reports whether in is an annotation custom-call that
// is the identity on one device: one operand, and the operand's shape as its
// result (a shard shape that differs from the full shape belongs to a
// program partitioned across devices, which is not the identity).
func IsIdentityAnnotation(in *Instruction) bool {
	return in.Opcode == OpCustomCall && annotationTargets[in.CustomCallTarget] &&
		len(in.Operands) == 1 && in.Operands[0].Shape.EqualIgnoringLayout(in.Shape)
}
