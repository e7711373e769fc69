// Package sched turns an optimised SSA program into an execution plan, the
// one place where Kiln decides how a program runs. Its stages, named and
// ordered like ssa's passes (schedule.go), each in its own file:
//
//	fusion    which values are computed together in one kernel: elementwise
//	          loops absorbing their producers, reductions computing their
//	          operand, dot and convolution epilogues (fusion.go, epilogue.go);
//	          what may fuse is derived from each value's indexing maps
//	          (OpClass, opclass.go)
//	select    every kernel's buffers and how it runs: the loop program and
//	          the maps it reads its inputs through, the GEMM shape and
//	          packing, the convolution algorithm, the reducer (select.go,
//	          loop.go, gemm.go, conv.go, depthwise.go, reducer.go)
//	ordering  an order of the kernels that keeps the peak of live bytes low
//	          (order.go)
//	in-place  loops writing over an input they read last, results written
//	          over parameters (while state, input_output_alias) where safe
//	          (inplace.go, alias.go)
//	buffers   live ranges and arena placement (buffers.go)
//	parallel  how many parts each kernel's work is split into (parallel.go)
//
// The plan is data (plan.go), printed by Plan.String (print.go): the
// runtime carries it out and decides nothing again. KILN_DISABLE_PASS
// turns optional stages off and KILN_DUMP=after:STAGE prints the plan
// after a stage, as for ssa's passes.
package sched
