// Package affine holds XLA's indexing maps: symbolic integer expressions
// (XLA's SymbolicExpr), the maps built from them, their text format, and the
// range-aware simplifier that proves, for example, that a chain of reshapes
// is the identity. It is pure math and imports only the standard library.
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
// A map has three kinds of variables, each with inclusive bounds and an
// optional name:
//
//   - dimension variables d_i: the index of the element mapped, usually one
//     per dimension of the tensor the map starts from;
//   - range variables s_i (XLA's symbols): indices that range over a set
//     rather than take one value, such as the reduced dimension of a reduce,
//     (d0)[s0] -> (s0, d0), where one output element reads a whole column;
//   - runtime variables rt_i: values known only when the program runs, such
//     as the offsets of a dynamic-slice, (d0){rt0} -> (d0 + rt0).
//
// The results are expressions (Expr) of those variables: constants, sums,
// products, floor division (written '/' as current XLA prints it, or
// floordiv), ceildiv, mod, min and max. Division rounds towards -∞ and a
// remainder by a positive constant is in [0, c). Constraints
// "expr in [lo, hi]" restrict the domain further, as the input-to-output map
// of a strided slice needs:
//
//	(d0) -> ((d0 - 3) / 7), domain: d0 in [3, 17], (d0 - 3) mod 7 in [0, 0]
//
// The domain of a map is the set of points of the box of its bounds where
// every constraint holds. A map whose domain is provably empty is "known
// empty" and prints as KNOWN EMPTY; the undefined map, for indexing that
// cannot be expressed, prints as UNDEFINED.
//
// # Expressions
//
// An Expr is an immutable tree that keeps the shape in which it was built,
// as XLA's SymbolicExpr does: building folds constants and drops x + 0 and
// x * 1, and nothing more. Canonicalize gives XLA's canonical form without
// bounds (flattened sums with their summands in XLA's order, constants
// folded, products distributed); the simplifier gives the normal form XLA
// reaches with bounds. Compare is XLA's order of expressions, which is the
// order of summands in normal form: products, remainders, quotients, then
// variables (dimensions, range, runtime variables by index), constants last,
// so XLA prints (d1 mod 2) * 4 + d2 and s0 * 3 + d1.
//
// # Operations
//
// Each operation is XLA's of the same name:
//
//   - SimplifyMap (and Simplify) is IndexingMap::Simplify. It first
//     simplifies the constraints until nothing changes — their expressions,
//     then their ranges, moving constants, factors and divisors from the
//     expression to the range; a constraint on one variable tightens its
//     bounds, one that always holds is dropped, one that cannot hold makes
//     the map known empty — then merges the mod constraints on one variable,
//     and then simplifies the results with the rules listed in
//     simplify_expr.go, applied to a fixed point. A subexpression whose range
//     is one point becomes that constant.
//   - ComposeIndexingMaps(first, second) applies first, then second; the
//     method Compose also simplifies and removes unused symbols, as XLA's
//     indexing analysis does after every composition.
//   - RemoveUnusedSymbols, RemoveUnusedVars, RescaleSymbols,
//     ConvertSymbolsToDimensions and ConvertRangeVariablesToDimensions
//     rewrite the variables of a map.
//   - RangeOf bounds an expression over the domain; Eval, Contains and
//     ForEachPoint evaluate a map at a point, test membership of its domain
//     and enumerate it, for tests.
//   - SymbolicTileFromIndexingMap derives the tile of an operand read by a
//     tile of the output (XLA's SymbolicTile).
//
// Simplification never changes which points are in a map's domain nor what
// they map to: the tests check this law by enumerating the points of
// thousands of random maps.
//
// # Text format
//
// Maps print (String, Format) and parse (Parse, ParseExpr) in XLA's format,
//
//	(d0, d1)[s0]{rt0} -> (d0 + s0, d1 / 8), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]
//
// with expressions printed token for token as XLA prints them and
// constraints sorted by their text. PrintOptions{Syntax: SyntaxMLIR} prints
// floor division as floordiv, as older XLA and the seed documents do; the
// parser reads both. Parse errors are *ParseError values with the line and
// column of the fault, saying what was expected and what was found.
package affine
