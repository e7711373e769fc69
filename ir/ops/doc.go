// Package ops defines the semantics of every HLO op once, for the reference
// evaluator (package ir/eval, which applies them to literals) and for the
// runtime's generic steps (which apply them to arena buffers). Nothing else
// in Kiln restates what an op computes: fast paths elsewhere are tested
// against these definitions.
//
// The package has two layers.
//
// The scalar layer is the elementwise ops on every element type, written
// over "wide" values — float64 for real floats, int64 for integers and PRED,
// complex128 for complex types — read from and written to element storage
// exactly as XLA rounds and wraps them (narrow floats through float32,
// integers wrapped to their width). Kernels apply one op to a tile of wide
// values held in registers (Reg); a Program chains kernels, and a Func is a
// called computation (a reducer, comparator, scatter update or map body)
// compiled to a Program.
//
// The structured layer is the ops that move or combine many elements —
// gather, scatter, sort, top-k, reduce, reduce-window, select-and-scatter,
// pad, concatenate, slices, FFT, Cholesky, triangular solve, dot,
// convolution, the random bit generators — each as a plan built once from
// element types, dimensions and attributes (validating them, with errors
// that say what was expected and what was found) and run any number of times
// over dense row-major element storage, allocating nothing: whatever working
// memory a run needs is scratch the caller provides, sized by the plan.
//
// Rules XLA leaves to the implementation are XLA's own choices (its
// HloEvaluator and CPU backend), stated where each op is defined.
package ops
