// Package affine holds XLA's indexing maps: affine expressions with floordiv
// and mod, the maps built from them, their text format, and the range-aware
// simplifier that proves, for example, that a chain of reshapes is the
// identity. It is pure math and imports only the standard library.
//
// # Model
//
// An indexing map says, for every element of one tensor, which elements of
// another tensor it corresponds to. For f32[10, 20, 30] broadcast from
// f32[20] along dimension 1, output element (d0, d1, d2) reads input element
// (d1):
//
//	(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]
//
// A map has three kinds of variables, each with inclusive bounds:
//
//   - dimension variables d_i: the index of the element mapped, usually one
//     per dimension of the tensor the map starts from;
//   - range variables s_i (XLA's symbols): indices that range over a set
//     rather than take one value, such as the reduced dimension of a reduce,
//     (d0)[s0] -> (s0, d0), where one output element reads a whole column;
//   - runtime variables rt_i: values known only when the program runs, such
//     as the offsets of a dynamic-slice, (d0){rt0} -> (d0 + rt0).
//
// The results are affine expressions (Expr) of those variables: sums of
// variables times constants, constants, and floordiv, ceildiv and mod by
// constants, with floor semantics (x floordiv c rounds towards -∞, x mod c
// has the sign of c). Constraints "expr in [lo, hi]" restrict the domain
// further, as the input-to-output map of a strided slice needs:
//
//	(d0) -> ((d0 - 3) floordiv 7), domain: d0 in [3, 17], (d0 - 3) mod 7 in [0, 0]
//
// The domain of a map is the set of points of the box of its bounds where
// every constraint holds. A map whose domain is provably empty is "known
// empty" (IsKnownEmpty) and prints as KNOWN EMPTY; a map that is not known
// empty may still be empty.
//
// # Building maps
//
// Expressions start from Dim(i), RangeVar(i), RuntimeVar(i) and Const(c) and
// grow with Add, Sub, AddConst, Mul, Neg, FloorDiv, CeilDiv and Mod; Replace
// substitutes expressions for variables. An Expr is immutable and always in
// canonical form (a sorted linear combination of variables and divisions), so
// Equal, Compare, Hash and Key compare canonical forms, and Kind, Index,
// Operands, Terms, Offset and Coefficient take it apart.
//
// Maps are built with NewIndexingMap (results, bounds of each kind of
// variable, constraints), FromTensorSizes (bounds [0, size-1], as for a
// tensor's shape), Identity and KnownEmpty, or read with Parse. Results,
// NumDims, DimBound, RangeVarBound, RuntimeVarBound, Constraints and their
// siblings read them back; AddConstraint restricts them.
//
// # Operations
//
//   - m.Compose(next) maps through m, then next, as XLA's
//     ComposeIndexingMaps(m, next): the composed map has m's dimensions,
//     next's range and runtime variables followed by m's, both maps'
//     constraints, and the condition that m's results lie in next's bounds.
//     It is simplified and its unused symbols are removed, as XLA's indexing
//     analysis does after every composition.
//   - Simplify rewrites a map using the bounds of its variables: divisions and
//     remainders that the ranges make trivial are removed, sums are split by
//     divisibility, the div/mod pairs of linearised indices are put back
//     together; constraints are simplified, turned into bounds, dropped when
//     they always hold, and a map whose constraints cannot hold becomes known
//     empty. The rules are listed in simplify_expr.go and simplify.go.
//   - m.Inverse() inverts the maps of ops that permute, reverse, offset,
//     stride, broadcast, reduce or reshape, giving their input-to-output maps.
//   - m.RangeOf(e) bounds an expression over the domain of m.
//   - m.RemoveUnusedSymbols() and m.RemoveUnusedVars() drop variables that no
//     result depends on, and say which.
//   - m.Eval, m.Contains and m.ForEachPoint evaluate a map at a point, test
//     membership of its domain and enumerate it, for tests.
//
// Every operation keeps the map's set of (point, result) pairs: Simplify
// changes neither which points are in the domain nor what they map to, and
// Compose's result relates each point to exactly the elements reached by
// applying one map and then the other. The tests check this law by
// enumerating the points of thousands of random maps, and the fuzz targets
// check it on maps drawn from fuzzed bytes.
//
// # Text format
//
// Maps print (String, MultilineString) and parse (Parse, ParseExpr) in XLA's
// format,
//
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 floordiv 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// with expressions printed token for token as XLA prints them (d0 * 4,
// -d1 + 16, d0 - rt0, (d1 mod 2) * 4, d1 floordiv 4 + (d0 mod 2) * 2) and
// constraints sorted by their text. Parse errors are *ParseError values with
// the line and column of the fault, saying what was expected and what was
// found. Fields splits a text into tokens, to compare maps laid out
// differently.
//
// # Cost
//
// Expressions share structure; variables with small indices are
// preallocated, a division and its sum are one allocation, and the
// simplifier keeps its memos in small slices. Simplifying the map of a
// reshape takes a few microseconds and a few dozen allocations (see the
// benchmarks in bench_test.go).
package affine
