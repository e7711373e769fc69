package kiln

// gemvColsKernel is a column-block kernel of the single-row untransposed-B
// path: y[j] += Σp x[p]·b[p*ldb+j] over p < k, for j below its width (its
// vector count times the level's lanes), reading from the last vector of b
// only the lanes mask enables (an edgeMasks window). y is read and written
// whole. B's rows stream through register accumulators, so the path reads
// B once and y only at the ends of the block.
type gemvColsKernel[T float] func(k int, x *T, b *T, ldb int, y *T, mask *int32)
