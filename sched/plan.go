package sched

import (
	"fmt"
	"strings"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// Plan is the scheduled form of one SSA function: kernels in execution order
// and the buffers they read and write.
type Plan struct {
	Func    *ssa.Func
	Kernels []*Kernel
	Buffers []*Buffer
	// Params holds one buffer per function parameter; Results one per array
	// leaf of the root (a tuple root is flattened, depth first).
	Params  []*Buffer
	Results []*Buffer
	// Values maps each SSA value to the buffer holding it.
	Values map[*ssa.Value]*Buffer
	// Subplans are the plans of region functions the runtime executes as
	// plans of their own (while conditions and bodies, conditional branches).
	Subplans map[*ssa.Func]*Plan
	// Aliases are the result leaves the runtime may place in the memory of
	// a parameter leaf: a while body's state elements (result i over
	// parameter i), the module's input_output_alias pairs. InPlace says
	// whether the plan allows it (the in-place stage's decision).
	Aliases []ResultAlias

	// ArenaBytes is the size of the arena all Arena buffers are placed in;
	// IntermediateBytes the sum of the sizes of all Arena buffers;
	// LowerBoundBytes the largest total of Arena buffers live at once.
	ArenaBytes, IntermediateBytes, LowerBoundBytes int
}

// ResultAlias pairs a result leaf with the parameter leaf whose memory it
// may take.
type ResultAlias struct {
	Result, Param int
	// InPlace: the result's producer runs after every read of the
	// parameter, or is its last reader and reads it only at the position it
	// writes, so writing the result over the parameter is safe.
	InPlace bool
}

// BufferKind says where a buffer's memory comes from.
type BufferKind uint8

// Buffer kinds.
const (
	Arena    BufferKind = iota // scratch memory at Offset in the per-run arena
	Param                      // the caller's argument Param (read-only)
	Constant                   // compile-time data in Literal (read-only)
	Result                     // the caller's output Result
	Alias                      // the same memory as Of, at byte Offset into it
	Tuple                      // a tuple: its elements are Elems
)

var bufferKindNames = [...]string{"arena", "param", "const", "result", "alias", "tuple"}

func (k BufferKind) String() string { return bufferKindNames[k] }

// Buffer is the storage of one array value (or a tuple of them).
type Buffer struct {
	ID      int
	Kind    BufferKind
	Shape   ir.Shape
	Offset  int         // Arena: byte offset in the arena; Alias: byte offset into Of
	Of      *Buffer     // Alias: the buffer whose memory this one shares
	Literal *ir.Literal // Constant
	Param   int         // Param: parameter number (leaf index for tuple parameters)
	Result  int         // Result: leaf index of the root
	Elems   []*Buffer   // Tuple

	// Live range over the plan's kernels: [First, Last] (Arena buffers).
	First, Last int
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int { return b.Shape.ByteSize() }

// Root follows aliases to the buffer that owns the memory, returning it and
// the byte offset into it.
func (b *Buffer) Root() (*Buffer, int) {
	off := 0
	for b.Kind == Alias {
		off += b.Offset
		b = b.Of
	}
	return b, off
}

// String names the buffer for dumps: arena@128[4096], param0, const#3, …
func (b *Buffer) String() string {
	switch b.Kind {
	case Arena:
		return fmt.Sprintf("arena@%d[%d]", b.Offset, b.Size())
	case Param:
		return fmt.Sprintf("param%d", b.Param)
	case Constant:
		return fmt.Sprintf("const#%d", b.ID)
	case Result:
		return fmt.Sprintf("result%d", b.Result)
	case Alias:
		return fmt.Sprintf("alias(%v+%d)", b.Of, b.Offset)
	}
	parts := make([]string, len(b.Elems))
	for i, e := range b.Elems {
		parts[i] = e.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// KernelKind is the kind of work a kernel does; the runtime has one
// implementation per kind.
type KernelKind uint8

// Kernel kinds.
const (
	// Loop is a fused elementwise loop: Values are elementwise, movement and
	// generator values (see OpClass) over the output's index space; Loop is
	// the program the runtime evaluates per element.
	Loop KernelKind = iota
	// Reduce reduces Root's operand over Root's dimensions with Reducer,
	// with the producers in Values fused into the read (input fusion).
	Reduce
	// Dot is a (batched) matrix multiplication with the Epilogue fused into
	// its store; Gemm says how it runs as GEMM calls.
	Dot
	// Conv is a convolution with the Epilogue fused into its store; Conv
	// says how it runs.
	Conv
	// Softmax, LayerNorm: the row kernels of Kiln's ops of the same names.
	Softmax
	LayerNorm
	// Copy copies its input into its output (a parameter or constant that is
	// also a result, or a layout change).
	Copy
	// While and Conditional run subplans.
	While
	Conditional
	// Generic is one value executed by a generic implementation.
	Generic
	// Attention is the chain scores = q·kᵀ (scaled) [+ mask] → softmax
	// along the rows → scores·v in one kernel, tile by tile: Attn says how.
	Attention
)

var kernelKindNames = [...]string{"loop", "reduce", "dot", "conv", "softmax", "layer-norm", "copy", "while", "conditional", "generic", "attention"}

func (k KernelKind) String() string { return kernelKindNames[k] }

// Kernel is one unit of execution: a single value or a fused group of values
// computed in one pass, with every decision about how it runs.
type Kernel struct {
	Kind KernelKind
	// Root is the value the kernel produces; Values are every value it
	// computes, in order, Root last (for Loop and Reduce, the fused ones).
	Root   *ssa.Value
	Values []*ssa.Value
	// Inputs are the values read from outside the kernel, In their buffers
	// (in the same order); Out is the buffer of Root.
	Inputs []*ssa.Value
	In     []*Buffer
	Out    *Buffer
	// Maps (Loop, Reduce): for each input, the distinct maps from the
	// index space the kernel's loop runs over (the output's; a reduction's
	// operand's) to the input's index, through which the loop reads it.
	Maps [][]affine.IndexingMap
	// Loop (Loop kernels, and Reduce kernels that compute their operand):
	// the program the runtime evaluates per element.
	Loop *LoopProgram
	// Epilogue (Dot, Conv): the stages applied to the result in the kernel's
	// store; Root is then the last stage's value, and Main the dot or
	// convolution itself.
	Epilogue []EpilogueStage
	Main     *ssa.Value
	// Gemm (Dot): the dot as batched GEMM calls; nil when the dot is not a
	// GEMM over its operands' bytes (it then runs generically).
	Gemm *GemmPlan
	// Conv (Conv): the convolution's geometry and algorithm; nil when no
	// convolution kernel runs it (it then runs generically).
	Conv *ConvPlan
	// Attn (Attention): the two GEMMs, the mask and the tiling.
	Attn *AttentionPlan
	// Dequant (Loop, Dot): int8 weights scaled per column that the loop
	// dequantises and the dots reading the loop's result multiply by
	// directly: the loop then writes nothing, and the dots take the int8
	// weights in place of their B (see DequantPlan).
	Dequant *DequantPlan
	// Reducer (Reduce): the standard reducer folding the elements (add,
	// multiply, maximum, minimum), or 0 when the reduction's function is
	// not one.
	Reducer ssa.Op
	// Parallel is how many parts the runtime splits the kernel's work into
	// (1: one worker), decided by the parallel stage. The unit is the
	// kind's: Loop kernels split their LoopTile-element tiles, Reduce
	// kernels over rows their rows, Softmax and LayerNorm their rows, Dot
	// kernels their batch of products (a single product splits itself
	// across the kernels' threads). Others run as one part.
	Parallel int
	// Threads is the workers Parallel is decided for; the kernel's split
	// rules (LoopParts, RowParts, BatchParts, TileParts) give the split of
	// other extents, as a run of run-time sizes below the bounds needs.
	Threads int
	// Impl names the implementation the runtime chose for the kernel
	// (set by the runtime, reported by its Stats).
	Impl string
}

// String describes the kernel for Stats and dumps.
func (k *Kernel) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", k.Kind, k.Root.Op)
	if len(k.Values) > 1 {
		ops := make([]string, len(k.Values))
		for i, v := range k.Values {
			ops[i] = v.Op.String()
		}
		fmt.Fprintf(&b, " [%s]", strings.Join(ops, " "))
	}
	if k.Out != nil {
		fmt.Fprintf(&b, " -> %v", k.Out)
	}
	return b.String()
}
