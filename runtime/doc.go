// Package runtime compiles HLO modules into executables and runs them.
//
//	m, _ := ir.ParseModule(text)               // or build one with ir.NewBuilder
//	exe, err := runtime.Compile(m,
//		runtime.WithWeights(weights))           // bind parameters by name: they become constants
//	outs, err := exe.Run(ctx, input)           // or RunInto with caller-owned outputs
//
// Compile verifies the module, lowers it to SSA (package ssa), runs the pass
// pipeline (folding, simplification, canonical dot and convolution forms,
// pattern recognition of softmax, layer-norm and GELU, layouts), schedules it
// (package sched: fusion decided from indexing maps, buffer assignment into
// one arena, in-place reuse), and turns each kernel of the plan into a step
// whose every parameter — kernel functions, strides, offsets, weights packed
// for the GEMM — is fixed at compile time.
//
// # Running
//
// An Executable is safe for concurrent use: each run takes a frame (its
// arena, bound arguments and per-worker scratch) from a pool, so runs from
// many goroutines never share memory, and RunInto allocates nothing once the
// pool is warm. The pool keeps its frames across garbage collections, so the
// steady state stays free of allocations while the collector runs. By
// default it holds as many frames as the most runs ever in flight at once;
// WithMaxConcurrentRuns bounds them (runs beyond wait for a frame, or for
// their context), WithIdleFrames releases the frames a burst left idle, and
// WithMemoryLimit refuses a plan that needs more than a budget. A run checks
// its context before every step, in every while-loop iteration and, within
// long steps (GEMM panels, convolution tiles, tiles of fused loops and
// reductions, row blocks, sort slices…), between blocks of well under a
// millisecond of work, on every thread; it returns the context's error
// when stopped, and the executable's next run is unaffected.
//
// Tensors hold their elements in the physical order of their shape's layout
// (row-major for the default layout) in the machine's byte order, with the
// encodings of ir.Literal. Run takes one tensor per array leaf of every
// parameter not bound at compile time, in order, and returns one per array
// leaf of the result.
//
// # Weights
//
// WithWeights binds parameters by name (ParameterNames gives the rule) and
// is strict: a tensor that binds to nothing fails Compile. Weights load from
// .safetensors, .npz and .npy files by path, from an fs.FS or from an
// io.ReaderAt (LoadSafetensors, LoadSafetensorsFS, ReadSafetensors and the
// like), into memory the program owns, after every size the file declares
// has been checked against the file; Compile copies what it binds, so the
// Weights may be closed right after it.
//
// # Errors
//
// Errors wrap ErrArgument, ErrUnsupported or ErrMemoryLimit where they
// apply, for errors.Is; WithLogger reports the stages of a compile.
//
// # Run-time sizes
//
// A parameter with a bounded dynamic dimension — declared in the module
// (`f32[<=64,784]`), or relaxed at compile time with WithDynamicDim — takes
// a tensor of any size up to the bound at every run, and the results come
// back at the sizes that follow from it. Where every such size is a
// multiple of a parameter's (rows through a dot, a batch merged by a
// reshape, a loop's state), the program is compiled as a static one at the
// bounds — same fusions, GEMM epilogues and packed weights — and each step
// runs at the run's actual extents: a GEMM at the actual M, a fused loop
// over the actual elements. Such runs allocate nothing. Sizes set from data
// (set-dimension-size, dynamic-reshape) or read as values
// (get-dimension-size) run op by op on the actual sizes instead.
//
// # Steps
//
// GEMM steps run dots over kiln.Sgemm with bias, residual and activation
// epilogues; convolutions run on the convolution kernels (kiln.Conv) with
// their weights packed at compile time, or on every run when the weights
// are arguments (as a 1×1 layer's GEMM of the input in place, or im2col
// blocks over the GEMM, where the kernels do not apply), int8 ones as
// im2col blocks on the int8 GEMM; fused
// elementwise loops evaluate a small program tile by tile over strided views
// of their inputs; reductions, softmax and layer-norm run row by row across
// workers — the kernels' own worker pool (kiln.RunParts), so a step and the
// GEMMs around it never compete for threads; while and conditional run
// compiled subplans. The narrow element types have paths of their own
// (lowp_*.go): bfloat16 and binary16 loops and reductions widen in
// registers and round each op as ir/ops does, dots of bfloat16, binary16
// and int8 run on the low-precision GEMMs as their GEMM plans say (the
// weight-only int8 pattern, sched.DequantPlan, on int8 weights), narrow
// convolutions on the float32 convolution kernels band by band
// (sched.ConvNarrowBands); sorts whose comparator is a standard order run
// on the row radix sorts, and top-k (or a sort read only through a short
// prefix) on the selection (sort_*.go). Every other op runs a generic
// step: ir/ops' plan of the op (the one definition ir/eval runs too) over
// the step's buffers.
// Stats names the implementation of every kernel.
package runtime
