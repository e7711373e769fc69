package ir

// This file holds the typed forms of the attributes HLO instructions carry.
// Each type mirrors XLA's proto message or enum of the same purpose; the text
// printer and parser write and read them in XLA's spelling.

// SliceDim is one dimension of a `slice` instruction: elements
// [Start, Limit) taken every Stride (printed `[start:limit:stride]`).
type SliceDim struct {
	Start, Limit, Stride int
}

// PaddingDim is one dimension of a `pad` instruction's padding config: Low
// and High may be negative (cropping); Interior is the number of elements
// inserted between neighbours (printed `low_high_interior`).
type PaddingDim struct {
	Low, High, Interior int
}

// WindowDim is one dimension of a window (reduce-window, select-and-scatter,
// convolution): XLA's WindowDimension.
type WindowDim struct {
	Size           int
	Stride         int // default 1
	PadLow         int
	PadHigh        int
	WindowDilation int  // default 1 (printed rhs_dilate)
	BaseDilation   int  // default 1 (printed lhs_dilate)
	Reversal       bool // printed rhs_reversal
}

// Window is the window of reduce-window, select-and-scatter and convolution
// (printed `window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=… rhs_dilate=…}`).
type Window struct {
	Dims []WindowDim
}

// ConvDimensionNumbers says which dimensions of a convolution's input, kernel
// and output are batch, feature and spatial (printed as dim_labels
// `b01f_01io->b01f`).
type ConvDimensionNumbers struct {
	InputBatch, InputFeature int
	InputSpatial             []int
	KernelInputFeature       int
	KernelOutputFeature      int
	KernelSpatial            []int
	OutputBatch              int
	OutputFeature            int
	OutputSpatial            []int
}

// DotDimensionNumbers are the batch and contracting dimensions of a dot
// (printed lhs_batch_dims=…, rhs_batch_dims=…, lhs_contracting_dims=…, rhs_contracting_dims=…).
type DotDimensionNumbers struct {
	LhsBatch, RhsBatch             []int
	LhsContracting, RhsContracting []int
}

// GatherDimensionNumbers are XLA's GatherDimensionNumbers.
type GatherDimensionNumbers struct {
	OffsetDims               []int
	CollapsedSliceDims       []int
	StartIndexMap            []int
	IndexVectorDim           int
	OperandBatchingDims      []int
	StartIndicesBatchingDims []int
}

// ScatterDimensionNumbers are XLA's ScatterDimensionNumbers.
type ScatterDimensionNumbers struct {
	UpdateWindowDims           []int
	InsertedWindowDims         []int
	ScatterDimsToOperandDims   []int
	IndexVectorDim             int
	InputBatchingDims          []int
	ScatterIndicesBatchingDims []int
}

// ComparisonDirection is the `direction=` of a compare.
type ComparisonDirection uint8

// Comparison directions.
const (
	CmpInvalid ComparisonDirection = iota
	CmpEQ
	CmpNE
	CmpGE
	CmpGT
	CmpLE
	CmpLT
)

var comparisonDirectionNames = [...]string{"", "EQ", "NE", "GE", "GT", "LE", "LT"}

func (d ComparisonDirection) String() string {
	if int(d) < len(comparisonDirectionNames) {
		return comparisonDirectionNames[d]
	}
	return "?"
}

// ParseComparisonDirection parses "EQ", "NE", "GE", "GT", "LE", "LT".
func ParseComparisonDirection(s string) (ComparisonDirection, bool) {
	for i, n := range comparisonDirectionNames {
		if i > 0 && n == s {
			return ComparisonDirection(i), true
		}
	}
	return CmpInvalid, false
}

// ComparisonType is the `type=` of a compare: how operands are ordered.
// CmpTypeDefault means the default for the element type (FLOAT for floats,
// SIGNED/UNSIGNED for integers, UNSIGNED for PRED).
type ComparisonType uint8

// Comparison types.
const (
	CmpTypeDefault ComparisonType = iota
	CmpTypeFloat
	CmpTypeTotalOrder
	CmpTypeSigned
	CmpTypeUnsigned
	CmpTypePartialOrder
)

var comparisonTypeNames = [...]string{"", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "PARTIALORDER"}

func (t ComparisonType) String() string {
	if int(t) < len(comparisonTypeNames) {
		return comparisonTypeNames[t]
	}
	return "?"
}

// ParseComparisonType parses "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "PARTIALORDER".
func ParseComparisonType(s string) (ComparisonType, bool) {
	for i, n := range comparisonTypeNames {
		if i > 0 && n == s {
			return ComparisonType(i), true
		}
	}
	return CmpTypeDefault, false
}

// DefaultComparisonType is the comparison type XLA uses for element type t
// when none is given.
func DefaultComparisonType(t ElementType) ComparisonType {
	switch {
	case t.IsFloatOrComplex():
		return CmpTypeFloat
	case t.IsSigned():
		return CmpTypeSigned
	}
	return CmpTypeUnsigned
}

// RandomDistribution is the `distribution=` of rng.
type RandomDistribution uint8

// Random distributions.
const (
	RngInvalid RandomDistribution = iota
	RngUniform
	RngNormal
)

func (d RandomDistribution) String() string {
	switch d {
	case RngUniform:
		return "rng_uniform"
	case RngNormal:
		return "rng_normal"
	}
	return "rng_invalid"
}

// RandomAlgorithm is the `algorithm=` of rng-bit-generator.
type RandomAlgorithm uint8

// Random bit-generator algorithms.
const (
	RngDefault RandomAlgorithm = iota
	RngThreeFry
	RngPhilox
)

func (a RandomAlgorithm) String() string {
	switch a {
	case RngThreeFry:
		return "rng_three_fry"
	case RngPhilox:
		return "rng_philox"
	}
	return "rng_default"
}

// FFTType is the `fft_type=` of fft.
type FFTType uint8

// FFT types.
const (
	FFT FFTType = iota
	IFFT
	RFFT
	IRFFT
)

func (t FFTType) String() string {
	return [...]string{"FFT", "IFFT", "RFFT", "IRFFT"}[t&3]
}

// TriangularSolveOptions are XLA's TriangularSolveOptions.
type TriangularSolveOptions struct {
	LeftSide     bool
	Lower        bool
	UnitDiagonal bool
	TransposeA   TransposeKind
}

// TransposeKind is the transpose_a option of triangular-solve.
type TransposeKind uint8

// Transpose kinds.
const (
	NoTranspose TransposeKind = iota
	Transpose
	Adjoint
)

func (k TransposeKind) String() string {
	return [...]string{"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", "?"}[k&3]
}

// ReplicaGroups lists the groups of replicas (or devices) a collective runs
// over. Groups holds them explicitly (printed `{{0,1},{2,3}}`); when the
// module wrote them in XLA's iota form (`[2,2]<=[4]`, `[2,2]<=[2,2]T(1,0)`),
// Iota keeps that form for printing and Groups holds its expansion; in the
// mesh form, Mesh keeps its text.
type ReplicaGroups struct {
	Groups [][]int
	Iota   *IotaReplicaGroups
	// Mesh is the text of the mesh form, `mesh['x'=2,'y'=2] {'y'}`: the
	// devices laid out on named axes, grouped along the axes in braces.
	// Groups holds its expansion, when it names whole axes only.
	Mesh string
}

// IotaReplicaGroups is the compact iota form of replica groups: the device
// ids 0..N-1 reshaped to ReshapeDims, transposed by Perm, then reshaped to
// [NumGroups, GroupSize].
type IotaReplicaGroups struct {
	NumGroups, GroupSize int
	ReshapeDims          []int
	Perm                 []int // nil: identity
}

// FusionKind is the `kind=` of a fusion instruction.
type FusionKind uint8

// Fusion kinds.
const (
	FusionLoop FusionKind = iota
	FusionInput
	FusionOutput
	FusionCustom
)

func (k FusionKind) String() string {
	return [...]string{"kLoop", "kInput", "kOutput", "kCustom"}[k&3]
}

// ParseFusionKind parses "kLoop", "kInput", "kOutput", "kCustom".
func ParseFusionKind(s string) (FusionKind, bool) {
	for k := FusionLoop; k <= FusionCustom; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return FusionLoop, false
}

// RawAttribute is an attribute Kiln reads but does not interpret (metadata,
// backend_config, sharding, frontend_attributes, precision_config, …). Value
// holds the text after `=` exactly as written so it prints back unchanged.
type RawAttribute struct {
	Name, Value string
}
