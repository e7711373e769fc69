// Package ir is the HLO level of Kiln: element types, shapes and layouts,
// literals, the HLO data model (Module, Computation, Instruction with typed
// attributes), the Builder with XLA's shape inference, the verifier, and the
// HLO text parser and printer.
//
// The data model follows XLA's HloModule/HloComputation/HloInstruction: a
// Module holds computations, one of them the entry; a Computation lists its
// instructions with every operand before its users and returns its Root; an
// Instruction applies an Opcode to operands and carries the attributes its
// opcode needs as typed fields of Attrs. Opcode properties live in one table
// (opcode.go). Literals store array elements densely in row-major order.
package ir
