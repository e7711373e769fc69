// Package affine holds XLA's indexing maps: affine expressions with floordiv
// and mod, the maps built from them, their text format, and the range-aware
// simplifier that proves, for example, that a chain of reshapes is the
// identity.
//
// # Model
//
// An indexing map says, for every element of one tensor, which elements of
// another tensor it corresponds to. For f32[10, 20, 30] broadcast from
// f32[20] along dimension 1, the output element (d0, d1, d2) reads input
// element (d1):
//
//	(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]
//
// A map has three kinds of variables, each with inclusive bounds:
//
//   - dimension variables d_i: the index of the element mapped, usually one
//     per dimension of the tensor the map starts from;
//   - range variables s_i (XLA's symbols): indices that range over a set
//     rather than take one value, such as the reduced dimension of a reduce,
//     (d0)[s0] -> (s0, d0) — one output element reads a whole row;
//   - runtime variables rt_i: values known only when the program runs, such as
//     the offsets of a dynamic-slice, (d0){rt0} -> (d0 + rt0).
//
// The results are affine expressions (Expr) of those variables: sums of
// variables times constants, plus constants, and floordiv, ceildiv and mod by
// positive constants, with floor semantics (x mod c has the sign of c).
// Constraints "expr in [lo, hi]" restrict the domain further, as the strided
// input-to-output map of a slice needs:
//
//	(d0) -> ((d0 - 3) floordiv 7), domain: d0 in [3, 17], (d0 - 3) mod 7 in [0, 0]
//
// The domain of a map is the set of points of the box of its bounds where
// every constraint holds; a map whose domain is provably empty is "known
// empty" and prints as KNOWN EMPTY.
//
// # Operations
//
// Compose chains maps: a.Compose(b) maps through a, then b, as XLA's
// ComposeIndexingMaps(a, b) does, carrying both maps' domains and constraints
// and the condition that a's results lie in b's domain, then simplifying.
// Simplify rewrites a map with the help of the bounds of its variables:
// divisions and remainders that the ranges make trivial are removed, sums are
// split by divisibility, the div/mod pairs of linearised indices are put back
// together, constraints are normalised, folded into bounds, dropped when
// always true, and a map whose constraints cannot hold becomes known empty.
// Inverse inverts the maps of element-permuting and strided ops; RangeOf
// bounds an expression over a domain; RemoveUnusedSymbols drops variables
// that no longer matter.
//
// Every operation keeps the set of (point, result) pairs of the map: Simplify
// changes neither which points are in the domain nor what they map to, and
// Compose's result relates each point to exactly the elements reached by
// applying one map and then the other. The tests check this law by
// enumerating the points of thousands of random maps.
//
// # Text format
//
// Maps print and parse in XLA's format,
//
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 floordiv 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// with expressions printed token for token as XLA prints them (d0 * 4,
// -d1 + 16, d0 - rt0, (d1 mod 2) * 4) and constraints sorted by their text.
// Parse reports errors with their line and column.
//
// # Cost
//
// Expressions are immutable values in canonical linear form, compared
// structurally with precomputed hashes; they share structure, and variables
// with small indices are preallocated, so that the maps built and simplified
// for every op of a program stay cheap.
package affine
