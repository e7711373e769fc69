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
// only when the program runs) within the domain. The input-to-output maps
// describe the same relations as the output-to-input ones, read the other
// way.
//
// The maps are XLA's, including where XLA relates more elements than are
// read: the source of a dynamic-update-slice and the padding value of a pad
// are related to every output element, the kernel of a convolution to every
// output element of its output feature (even where a window position falls
// on padding), and the update of a dynamic-update-slice is read at the
// output's index minus the offsets without a constraint keeping that index
// inside the update. They differ from XLA's in three places, each proved
// against the reference evaluator: the input batch of a convolution with
// batch groups is the one of the output feature's group (XLA lets it range
// over all groups), a window dimension of size 1 gets no range variable, and
// input-to-output maps exist for every op whose output-to-input maps do (XLA
// has them for a few), except the operand of a gather, whose runtime
// variables belong to each output row.
//
// An operand may be read through several maps (a fusion that adds a tensor to
// its transpose reads it twice); an operand whose indexing cannot be
// expressed is "unknown" — the analysis never returns a wrong map instead.
// The ops with maps are the elementwise ones (select, clamp, convert,
// compare, map, ...), bitcast (with layouts), bitcast-convert, broadcast,
// concatenate, constant and iota (nothing read), convolution, dot,
// dynamic-slice, dynamic-update-slice, gather in XLA's simplified form
// (others are an UnsupportedError), pad, reduce, reduce-window, reshape,
// reverse, slice, sort, transpose, tuple, batch-norm-inference, Kiln's own
// ops raised as custom-calls kiln.softmax, kiln.layer-norm and kiln.gelu,
// and fusions and calls through their bodies; other ops are unknown.
//
// # Entry points
//
// OutputToInput and InputToOutput analyse an ir.Instruction; for a fusion
// they compose the maps of the fused computation. Op describes an operation
// without the graph around it (opcode, attributes, shapes), so that the
// compiler can analyse its own values, and Group composes the maps of a group
// of such operations — the values fused into one kernel — from the group's
// result back to each of its inputs. Chain composes along a producer →
// consumer chain.
//
// Results print as XLA's HloInstructionIndexing::ToString prints them: a line
// "operand id = K", then each map of operand K.
package indexing
