// Package sched turns an optimised SSA program into an execution plan:
// which values are computed together in one kernel (fusion), in what order
// the kernels run (the schedule), and where every value lives (buffer
// assignment: one arena per run, parameters, constants, the caller's result
// buffers, and aliases for reshapes and tuple elements).
package sched
