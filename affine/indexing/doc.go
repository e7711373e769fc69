// Package indexing is XLA's HLO indexing analysis: for every op, the
// indexing maps that say which elements of each operand an element of the
// result reads (output to input), and which elements of the result an element
// of an operand reaches (input to output), composed through fusions.
//
// For f32[10, 20, 30] broadcast from f32[20] along dimension 1, output
// element (d0, d1, d2) reads operand element (d1), and operand element (d0)
// reaches a 10x30 slice of the output:
//
//	(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]
//	(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]
//
// # What a map means
//
// Each map relates points of one tensor to points of another: the output
// element at the map's dimension variables is related to the operand elements
// given by its results, for every value of its range variables (s_i, a whole
// reduced row, a window) and of its runtime variables (rt_i, an offset known
// only when the program runs) within the domain.
//
// The maps are XLA's as it computes them today, including where XLA relates
// more elements than are read: the source of a dynamic-update-slice and the
// padding value of a pad are related to every output element, the kernel of
// a convolution to every output element of its output feature (even where a
// window position falls on padding), the input batch of a convolution with
// batch groups ranges over every group (a range variable of its own), and a
// stacked output of a scan reads its input at its own index alone. The
// property tests check every map against the reference evaluator: each
// element an output reads is reached, and where XLA's maps are exact, no
// other.
//
// An operand may be read through several maps (a fusion that adds a tensor to
// its transpose reads it twice); an operand whose indexing cannot be
// expressed is "unknown" — the analysis never returns a wrong map instead.
//
// # Ops
//
// Output to input: the elementwise ops (select, clamp, convert, compare, ...),
// map, all-reduce, all-gather (with the map to the replica an element is read
// from), bitcast (with layouts, and transposes between layouts),
// bitcast-convert, broadcast, concatenate, constant, iota and parameter
// (nothing read), convolution, dot, scaled-dot, dynamic-slice,
// dynamic-update-slice, gather in XLA's general form, get-tuple-element, pad,
// reduce, reduce-window, reshape, reverse, scan, slice, sort, transpose,
// tuple, batch-norm-inference, Kiln's own ops raised as custom-calls
// kiln.softmax, kiln.layer-norm and kiln.gelu, and fusions and calls through
// their bodies. Other ops are unknown.
//
// Input to output, as XLA has it: the elementwise ops, map, all-reduce,
// bitcast, broadcast, concatenate, reduce, reshape, reverse, slice, transpose
// and tuple. Every output of other ops — windows, dots, slicing and gathering
// ops, fusions — is unknown; Group.InputToOutput composes a group's ops
// forwards, and EpilogueInputToOutput follows a chain of uses as XLA does.
//
// # Runtime variables
//
// The offsets of dynamic-slice and dynamic-update-slice and the start indices
// of a gather are runtime variables. Each comes with its origin (Extras):
// the instruction that holds it and the map from the analysed tensor's
// elements to the element of that instruction read. Runtime variables that
// a constant or an iota holds — through the parameters of fusions, to the
// operands that feed them — are replaced by their values, as XLA's
// OptimizeRTVar does (a constant only where its value lies in the variable's
// range; one outside is kept, for the runtime to clamp).
//
// # Entry points
//
// OutputToInput and InputToOutput analyse an ir.Instruction; for a fusion
// OutputToInput composes the maps of the fused computation.
// PhysicalOutputToInput and PhysicalInputToOutput number each tensor's
// dimensions in its layout's order. Op describes an operation without the
// graph around it (opcode, attributes, shapes), so that the compiler can
// analyse its own values, and Group composes the maps of a group of such
// operations — the values fused into one kernel — from the
// group's result back to each of its inputs. Chain composes along a producer
// → consumer chain. Adaptor and GroupedOutputToInput are XLA's fusion
// adaptors and grouped indexing: the maps from a fusion's root to every
// instruction inside it, keyed by instruction, over a fusion or a producer
// and consumer fused together.
//
// Results print as XLA's HloInstructionIndexing::ToString prints them: a line
// "operand id = K", then each map of operand K, then its runtime variables
// ("rtN: origin; map") and, for a collective, its replica map.
package indexing
