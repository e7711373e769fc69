package indexing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// The law of the analysis, checked against the reference evaluator on random
// ops and fusions:
//
//   - ops that move data are run on operands whose elements hold their own
//     linear index, tagged with the operand's number; every output element
//     must hold an element its maps point to, and for the operands whose maps
//     are exact (not XLA's over-approximations) the maps must point to that
//     element and no other;
//   - ops that add up their inputs (reduce, dot, reduce-window, convolution,
//     and fusions of sums) are run once per input element on a one-hot input:
//     the output elements that become non-zero must be exactly those whose
//     maps reach the element (a subset of them, for over-approximations);
//   - the input-to-output maps must relate exactly the pairs of elements
//     that the output-to-input maps relate, read the other way.

// param is one entry parameter of a generated case.
type param struct {
	shape ir.Shape
	// values are the elements of an offset or index parameter; nil for a
	// data parameter, whose elements are tagged linear indices.
	values []int32
}

type propCase struct {
	name   string
	hlo    string
	params []param
	// exact marks the root operands whose maps are exact.
	exact []bool
	// oneHot selects the one-hot check; inits marks the root operands that
	// are reduction inits (set to 0 while another operand is probed).
	oneHot bool
	inits  []bool
	// rt gives the runtime variables of operand k's maps at output index o,
	// from the arguments; nil if the maps have none.
	rt func(args []*ir.Literal, k int, o []int64) []int64
}

const tagShift = 20

func tag(k, e int) int32 { return int32((k+1)<<tagShift | e) }

func untag(v int32) (k, e int, ok bool) {
	if v < 1<<tagShift {
		return 0, 0, false
	}
	return int(v>>tagShift) - 1, int(v & (1<<tagShift - 1)), true
}

// related collects, for each output index (row-major linear), the operand
// elements a set of maps relates it to, with the runtime values they need.
// The entry at -1 counts the points, without runtime variables, whose
// results are outside the operand.
type related map[int][]relPoint

type relPoint struct {
	elem int     // row-major linear index into the operand
	rt   []int64 // values of the runtime variables
}

// relate enumerates every point of the maps and keeps the results that are
// elements of a tensor of dims `to`.
func relate(t *testing.T, maps []*affine.IndexingMap, from, to []int) related {
	t.Helper()
	r := related{}
	for _, m := range maps {
		err := m.ForEachPoint(func(p affine.Point, res []int64) bool {
			e, ok := linearIn(res, to)
			if !ok {
				if len(p.Runtime) == 0 {
					r[-1] = append(r[-1], relPoint{elem: -1})
				}
				return true
			}
			o, ok := linearIn(p.Dims, from)
			if !ok {
				t.Errorf("map %v: point %v is outside the tensor %v it maps from", m, p, from)
				return false
			}
			r[o] = append(r[o], relPoint{elem: e, rt: slices.Clone(p.Runtime)})
			return true
		})
		if err != nil {
			t.Fatalf("enumerating %v: %v", m, err)
		}
	}
	return r
}

// linearIn is the row-major linear index of idx in dims, if it is inside.
func linearIn(idx []int64, dims []int) (int, bool) {
	if len(idx) != len(dims) {
		return 0, false
	}
	lin := 0
	for i, v := range idx {
		if v < 0 || v >= int64(dims[i]) {
			return 0, false
		}
		lin = lin*dims[i] + int(v)
	}
	return lin, true
}

func multiIndex(lin int, dims []int) []int64 {
	idx := make([]int64, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] > 0 {
			idx[i] = int64(lin % dims[i])
			lin /= dims[i]
		}
	}
	return idx
}

// elems returns the set of elements related to output o under runtime
// values rt (nil: any).
func (r related) elems(o int, rt []int64) []int {
	var es []int
	for _, p := range r[o] {
		if rt == nil || slices.Equal(p.rt, rt) {
			es = append(es, p.elem)
		}
	}
	slices.Sort(es)
	return slices.Compact(es)
}

func (c *propCase) args(r *rand.Rand) []*ir.Literal {
	args := make([]*ir.Literal, len(c.params))
	for k, p := range c.params {
		n := p.shape.ElementCount()
		vals := p.values
		if vals == nil {
			vals = make([]int32, n)
			for e := range vals {
				vals[e] = tag(k, e)
			}
		}
		args[k] = literal(p.shape, vals)
	}
	return args
}

// literal builds an argument of the parameter's element type from int32s.
func literal(s ir.Shape, vals []int32) *ir.Literal {
	var l *ir.Literal
	switch s.Elem {
	case ir.F32:
		f := make([]float32, len(vals))
		for i, v := range vals {
			f[i] = float32(v)
		}
		l = ir.MustLiteralFromSlice(f, s.Dims...)
	default:
		l = ir.MustLiteralFromSlice(vals, s.Dims...)
	}
	if len(s.Dims) == 0 {
		if s.Elem == ir.F32 {
			return ir.ScalarLiteral(float32(vals[0]))
		}
		return ir.ScalarLiteral(vals[0])
	}
	return l
}

func run(t *testing.T, c *propCase, m *ir.Module, args []*ir.Literal) *ir.Literal {
	t.Helper()
	out, err := eval.Run(m, args...)
	if err != nil {
		t.Fatalf("%s: eval: %v\n%s", c.name, err, c.hlo)
	}
	return out[0]
}

func check(t *testing.T, r *rand.Rand, c *propCase) {
	t.Helper()
	m, err := ir.ParseModule(c.hlo)
	if err != nil {
		t.Fatalf("%s: parse: %v\n%s", c.name, err, c.hlo)
	}
	if err := m.Verify(); err != nil {
		t.Fatalf("%s: verify: %v\n%s", c.name, err, c.hlo)
	}
	root := m.Entry.Root
	x, err := OutputToInput(root, 0)
	if err != nil {
		t.Fatalf("%s: OutputToInput: %v\n%s", c.name, err, c.hlo)
	}
	outDims := root.Shape.Dims
	if root.Shape.IsTuple() {
		outDims = root.Shape.Tuple[0].Dims
	}
	rels := make([]related, len(root.Operands))
	for k, o := range root.Operands {
		if !x.Unknown[k] {
			rels[k] = relate(t, x.Operands[k], outDims, o.Shape.Dims)
		}
	}
	for k := range rels {
		if n := len(rels[k][-1]); n > 0 && c.exact[k] {
			t.Errorf("%s: %d points of the exact maps of operand %d are outside the operand", c.name, n, k)
		}
	}
	if c.oneHot {
		checkOneHot(t, c, m, rels, outDims)
	} else {
		checkValues(t, r, c, m, x, rels, outDims)
	}
	checkInverse(t, c, root, rels, outDims)
	if t.Failed() {
		t.Logf("%s:\n%s\noutput to input:\n%s", c.name, c.hlo, x)
		t.FailNow()
	}
}

// checkValues runs the op on tagged operands.
func checkValues(t *testing.T, r *rand.Rand, c *propCase, m *ir.Module, x *Indexing, rels []related, outDims []int) {
	args := c.args(r)
	out := run(t, c, m, args)
	vals := ir.Values[int32](out)
	for o, v := range vals {
		oi := multiIndex(o, outDims)
		k, e, tagged := untag(v)
		if tagged && x.Unknown[k] {
			continue
		}
		for j := range rels {
			if x.Unknown[j] || c.params[j].values != nil {
				continue
			}
			var rt []int64
			if c.rt != nil {
				rt = c.rt(args, j, oi)
			}
			es := rels[j].elems(o, rt)
			from := tagged && k == j
			switch {
			case from && !slices.Contains(es, e):
				t.Errorf("%s: output %v holds element %v of operand %d, which its maps do not reach (they reach %v)",
					c.name, oi, multiIndex(e, c.params[j].shape.Dims), j, es)
			case c.exact[j] && from && len(es) != 1:
				t.Errorf("%s: output %v holds element %d of operand %d, its exact maps reach %v", c.name, oi, e, j, es)
			case c.exact[j] && !from && len(es) != 0:
				t.Errorf("%s: output %v does not come from operand %d, its exact maps reach %v", c.name, oi, j, es)
			}
		}
	}
}

// maxProbes bounds the one-hot runs of one operand.
const maxProbes = 48

// checkOneHot runs the op once per probed input element.
func checkOneHot(t *testing.T, c *propCase, m *ir.Module, rels []related, outDims []int) {
	for k := range rels {
		if rels[k] == nil {
			continue
		}
		n := c.params[k].shape.ElementCount()
		step := max(1, n/maxProbes)
		for e := 0; e < n; e += step {
			args := make([]*ir.Literal, len(c.params))
			for j, p := range c.params {
				vals := make([]int32, p.shape.ElementCount())
				switch {
				case j == k:
					vals[e] = 1
				case c.inits[j] || c.inits[k]:
					// Inits stay 0 while an input is probed; inputs are 0
					// while an init is.
				default:
					for i := range vals {
						vals[i] = 1
					}
				}
				args[j] = literal(p.shape, vals)
			}
			out := ir.Values[float32](run(t, c, m, args))
			for o, v := range out {
				reached := slices.Contains(rels[k].elems(o, nil), e)
				if v != 0 && !reached {
					t.Errorf("%s: output %v depends on element %v of operand %d, which its maps do not reach",
						c.name, multiIndex(o, outDims), multiIndex(e, c.params[k].shape.Dims), k)
				}
				if v == 0 && reached && c.exact[k] {
					t.Errorf("%s: the exact maps of operand %d relate output %v to element %v, which it does not read",
						c.name, k, multiIndex(o, outDims), multiIndex(e, c.params[k].shape.Dims))
				}
			}
		}
	}
}

// checkInverse compares the input-to-output maps of every operand with the
// output-to-input relation read the other way.
func checkInverse(t *testing.T, c *propCase, root *ir.Instruction, rels []related, outDims []int) {
	for k, o := range root.Operands {
		y, err := InputToOutput(root, k)
		if err != nil {
			t.Errorf("%s: InputToOutput(%d): %v", c.name, k, err)
			continue
		}
		if y.Unknown[0] || rels[k] == nil {
			continue
		}
		inv := relate(t, y.Operands[0], o.Shape.Dims, outDims)
		type pair struct{ o, e int }
		var fwd, bwd []pair
		for out, ps := range rels[k] {
			for _, p := range ps {
				fwd = append(fwd, pair{out, p.elem})
			}
		}
		for e, ps := range inv {
			for _, p := range ps {
				bwd = append(bwd, pair{p.elem, e})
			}
		}
		cmp := func(a, b pair) int { return (a.o-b.o)*1<<20 + a.e - b.e }
		slices.SortFunc(fwd, cmp)
		slices.SortFunc(bwd, cmp)
		fwd, bwd = slices.Compact(fwd), slices.Compact(bwd)
		if !slices.Equal(fwd, bwd) {
			t.Errorf("%s: operand %d: input-to-output maps relate %d pairs, output-to-input maps %d\ninput to output:\n%s",
				c.name, k, len(bwd), len(fwd), y)
		}
	}
}

// ---- generators ------------------------------------------------------------

func shapeText(elem string, dims []int, layout []int) string {
	var b strings.Builder
	b.WriteString(elem)
	b.WriteByte('[')
	for i, d := range dims {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(']')
	if layout != nil {
		b.WriteString("{")
		for i, d := range layout {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, d)
		}
		b.WriteString("}")
	}
	return b.String()
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func randDims(r *rand.Rand, rank, maxSize int) []int {
	d := make([]int, rank)
	for i := range d {
		d[i] = 1 + r.IntN(maxSize)
	}
	return d
}

// factor splits n into `rank` factors in random order (with 1s); rank 0
// becomes 1 when n is not 1.
func factor(r *rand.Rand, n, rank int) []int {
	if rank == 0 && n != 1 {
		rank = 1
	}
	d := make([]int, rank)
	for i := range d {
		d[i] = 1
	}
	if rank == 0 {
		return d
	}
	for p := 2; n > 1; {
		if n%p == 0 {
			d[r.IntN(rank)] *= p
			n /= p
			continue
		}
		p++
	}
	return d
}

func dataParams(elem string, shapes ...[]int) ([]param, []string) {
	ps := make([]param, len(shapes))
	decls := make([]string, len(shapes))
	for k, d := range shapes {
		t, _ := ir.ParseElementType(elem)
		ps[k] = param{shape: ir.MakeShape(t, d...)}
		decls[k] = fmt.Sprintf("  p%d = %s parameter(%d)\n", k, shapeText(elem, d, nil), k)
	}
	return ps, decls
}

func module(decls []string, root string) string {
	return "HloModule m\n\nENTRY e {\n" + strings.Join(decls, "") + "  ROOT r = " + root + "\n}\n"
}

func allTrue(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func args(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("p%d", i)
	}
	return strings.Join(s, ", ")
}

func genReshape(r *rand.Rand) *propCase {
	in := randDims(r, r.IntN(5), 4)
	out := factor(r, numElements(in), r.IntN(5))
	ps, decls := dataParams("s32", in)
	return &propCase{name: "reshape", params: ps, exact: allTrue(1),
		hlo: module(decls, fmt.Sprintf("%s reshape(p0)", shapeText("s32", out, nil)))}
}

func genTranspose(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(4), 4)
	perm := r.Perm(len(in))
	ps, decls := dataParams("s32", in)
	return &propCase{name: "transpose", params: ps, exact: allTrue(1),
		hlo: module(decls, fmt.Sprintf("%s transpose(p0), dimensions={%s}", shapeText("s32", permute(in, perm), nil), ints(perm)))}
}

func genBroadcast(r *rand.Rand) *propCase {
	in := randDims(r, r.IntN(3), 4)
	outRank := len(in) + r.IntN(3)
	pos := r.Perm(outRank)[:len(in)]
	slices.Sort(pos) // HLO wants them increasing
	out := randDims(r, outRank, 3)
	for i, p := range pos {
		out[p] = in[i]
	}
	ps, decls := dataParams("s32", in)
	return &propCase{name: "broadcast", params: ps, exact: allTrue(1),
		hlo: module(decls, fmt.Sprintf("%s broadcast(p0), dimensions={%s}", shapeText("s32", out, nil), ints(pos)))}
}

func genSlice(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 6)
	out := make([]int, len(in))
	var sl []string
	for i, d := range in {
		start := r.IntN(d)
		limit := start + 1 + r.IntN(d-start)
		stride := 1 + r.IntN(3)
		out[i] = (limit - start + stride - 1) / stride
		sl = append(sl, fmt.Sprintf("[%d:%d:%d]", start, limit, stride))
	}
	ps, decls := dataParams("s32", in)
	return &propCase{name: "slice", params: ps, exact: allTrue(1),
		hlo: module(decls, fmt.Sprintf("%s slice(p0), slice={%s}", shapeText("s32", out, nil), strings.Join(sl, ", ")))}
}

func genPad(r *rand.Rand) *propCase {
	for {
		in := randDims(r, 1+r.IntN(3), 4)
		out := make([]int, len(in))
		var cfg []string
		ok := true
		for i, d := range in {
			lo, hi, interior := r.IntN(4)-1, r.IntN(4)-1, r.IntN(3)
			out[i] = lo + hi + d + (d-1)*interior
			ok = ok && out[i] >= 1
			cfg = append(cfg, fmt.Sprintf("%d_%d_%d", lo, hi, interior))
		}
		if !ok {
			continue
		}
		ps, decls := dataParams("s32", in, nil)
		return &propCase{name: "pad", params: ps, exact: []bool{true, false},
			hlo: module(decls, fmt.Sprintf("%s pad(p0, p1), padding=%s", shapeText("s32", out, nil), strings.Join(cfg, "x")))}
	}
}

func genReverse(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(4), 4)
	dims := r.Perm(len(in))[:r.IntN(len(in)+1)]
	ps, decls := dataParams("s32", in)
	return &propCase{name: "reverse", params: ps, exact: allTrue(1),
		hlo: module(decls, fmt.Sprintf("%s reverse(p0), dimensions={%s}", shapeText("s32", in, nil), ints(dims)))}
}

func genConcatenate(r *rand.Rand) *propCase {
	base := randDims(r, 1+r.IntN(3), 4)
	cd := r.IntN(len(base))
	n := 1 + r.IntN(3)
	shapes := make([][]int, n)
	out := slices.Clone(base)
	out[cd] = 0
	for k := range shapes {
		shapes[k] = slices.Clone(base)
		shapes[k][cd] = 1 + r.IntN(3)
		out[cd] += shapes[k][cd]
	}
	ps, decls := dataParams("s32", shapes...)
	return &propCase{name: "concatenate", params: ps, exact: allTrue(n),
		hlo: module(decls, fmt.Sprintf("%s concatenate(%s), dimensions={%d}", shapeText("s32", out, nil), args(n), cd))}
}

func genBitcast(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 4)
	out := factor(r, numElements(in), 1+r.IntN(3))
	inLayout, outLayout := r.Perm(len(in)), r.Perm(len(out))
	ps := []param{{shape: ir.MakeShape(ir.S32, in...).WithLayout(ir.MakeLayout(inLayout...))}}
	decls := []string{fmt.Sprintf("  p0 = %s parameter(0)\n", shapeText("s32", in, inLayout))}
	return &propCase{name: "bitcast", params: ps, exact: allTrue(1),
		hlo: module(decls, fmt.Sprintf("%s bitcast(p0)", shapeText("s32", out, outLayout)))}
}

// offsets returns scalar offset parameters with random values, some out of
// range so that the runtime clamps them.
func offsets(r *rand.Rand, first int, dims []int) ([]param, []string) {
	var ps []param
	var decls []string
	for i, d := range dims {
		ps = append(ps, param{shape: ir.Scalar(ir.S32), values: []int32{int32(r.IntN(d+3) - 1)}})
		decls = append(decls, fmt.Sprintf("  p%d = s32[] parameter(%d)\n", first+i, first+i))
	}
	return ps, decls
}

func clampOffsets(args []*ir.Literal, first int, room []int) []int64 {
	rt := make([]int64, len(room))
	for i := range rt {
		v := int64(ir.Values[int32](args[first+i])[0])
		rt[i] = min(max(v, 0), int64(room[i]))
	}
	return rt
}

func genDynamicSlice(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 5)
	sizes := make([]int, len(in))
	room := make([]int, len(in))
	for i, d := range in {
		sizes[i] = 1 + r.IntN(d)
		room[i] = d - sizes[i]
	}
	ps, decls := dataParams("s32", in)
	ops, odecls := offsets(r, 1, in)
	return &propCase{name: "dynamic-slice", params: append(ps, ops...), exact: allTrue(1 + len(in)),
		hlo: module(append(decls, odecls...), fmt.Sprintf("%s dynamic-slice(%s), dynamic_slice_sizes={%s}",
			shapeText("s32", sizes, nil), args(1+len(in)), ints(sizes))),
		rt: func(args []*ir.Literal, k int, o []int64) []int64 {
			if k != 0 {
				return nil
			}
			return clampOffsets(args, 1, room)
		}}
}

func genDynamicUpdateSlice(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 5)
	upd := make([]int, len(in))
	room := make([]int, len(in))
	for i, d := range in {
		upd[i] = 1 + r.IntN(d)
		room[i] = d - upd[i]
	}
	ps, decls := dataParams("s32", in, upd)
	ops, odecls := offsets(r, 2, in)
	exact := allTrue(2 + len(in))
	exact[0] = false // XLA's map of the source covers the updated elements too
	return &propCase{name: "dynamic-update-slice", params: append(ps, ops...), exact: exact,
		hlo: module(append(decls, odecls...), fmt.Sprintf("%s dynamic-update-slice(%s)", shapeText("s32", in, nil), args(2+len(in)))),
		rt: func(args []*ir.Literal, k int, o []int64) []int64 {
			if k != 1 {
				return nil
			}
			return clampOffsets(args, 2, room)
		}}
}

func genGather(r *rand.Rand) *propCase {
	operand := randDims(r, 1+r.IntN(3), 5)
	n := 1 + r.IntN(len(operand))
	batch := 1 + r.IntN(4)
	sizes := make([]int, len(operand))
	room := make([]int, len(operand))
	for i, d := range operand {
		sizes[i] = 1 + r.IntN(d)
		room[i] = d - sizes[i]
	}
	idx := make([]int32, batch*n)
	for i := range idx {
		idx[i] = int32(r.IntN(operand[i%n]+3) - 1)
	}
	out := append([]int{batch}, sizes...)
	offsetDims := make([]int, len(operand))
	startMap := make([]int, n)
	for i := range offsetDims {
		offsetDims[i] = i + 1
	}
	for i := range startMap {
		startMap[i] = i
	}
	ps, decls := dataParams("s32", operand)
	ps = append(ps, param{shape: ir.MakeShape(ir.S32, batch, n), values: idx})
	decls = append(decls, fmt.Sprintf("  p1 = s32[%d,%d] parameter(1)\n", batch, n))
	return &propCase{name: "gather", params: ps, exact: allTrue(2),
		hlo: module(decls, fmt.Sprintf("%s gather(p0, p1), offset_dims={%s}, collapsed_slice_dims={}, start_index_map={%s}, index_vector_dim=1, slice_sizes={%s}",
			shapeText("s32", out, nil), ints(offsetDims), ints(startMap), ints(sizes))),
		rt: func(args []*ir.Literal, k int, o []int64) []int64 {
			if k != 0 {
				return nil
			}
			rt := make([]int64, n)
			for i := range rt {
				v := int64(ir.Values[int32](args[1])[int(o[0])*n+i])
				rt[i] = min(max(v, 0), int64(room[i]))
			}
			return rt
		}}
}

func genClamp(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 4)
	ps, decls := dataParams("s32", in, in, in)
	return &propCase{name: "clamp", params: ps, exact: []bool{false, true, false},
		hlo: module(decls, fmt.Sprintf("%s clamp(p0, p1, p2)", shapeText("s32", in, nil)))}
}

func genSort(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 4)
	d := r.IntN(len(in))
	ps, decls := dataParams("s32", in)
	return &propCase{name: "sort", params: ps, exact: []bool{false},
		hlo: strings.Replace(module(decls, fmt.Sprintf("%s sort(p0), dimensions={%d}, to_apply=lt", shapeText("s32", in, nil), d)),
			"ENTRY", "lt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GT\n}\n\nENTRY", 1)}
}

const addComputation = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n\n"

func withAdd(hlo string) string { return strings.Replace(hlo, "ENTRY", addComputation+"ENTRY", 1) }

func genReduce(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 4)
	dims := r.Perm(len(in))[:r.IntN(len(in)+1)]
	var out []int
	for i, d := range in {
		if !slices.Contains(dims, i) {
			out = append(out, d)
		}
	}
	ps, decls := dataParams("f32", in, nil)
	return &propCase{name: "reduce", params: ps, exact: allTrue(2), oneHot: true, inits: []bool{false, true},
		hlo: withAdd(module(decls, fmt.Sprintf("%s reduce(p0, p1), dimensions={%s}, to_apply=add", shapeText("f32", out, nil), ints(dims))))}
}

func genDot(r *rand.Rand) *propCase {
	nb, nc := r.IntN(2), 1+r.IntN(2)
	lf, rf := r.IntN(2), r.IntN(2)
	batch, contract := randDims(r, nb, 3), randDims(r, nc, 3)
	lfree, rfree := randDims(r, lf, 3), randDims(r, rf, 3)
	// Lay each operand's dimensions out in a random order.
	place := func(free []int) ([]int, []int, []int) {
		all := append(append(append([]int(nil), batch...), contract...), free...)
		perm := r.Perm(len(all))
		dims := make([]int, len(all))
		pos := make([]int, len(all))
		for i, p := range perm {
			dims[p] = all[i]
			pos[i] = p
		}
		return dims, pos[:nb], pos[nb : nb+nc]
	}
	ld, lb, lc := place(lfree)
	rd, rb, rc := place(rfree)
	// Free dimensions come out in operand order.
	var out []int
	out = append(out, batch...)
	for i, d := range ld {
		if !slices.Contains(lb, i) && !slices.Contains(lc, i) {
			out = append(out, d)
		}
	}
	for i, d := range rd {
		if !slices.Contains(rb, i) && !slices.Contains(rc, i) {
			out = append(out, d)
		}
	}
	ps, decls := dataParams("f32", ld, rd)
	return &propCase{name: "dot", params: ps, exact: allTrue(2), oneHot: true, inits: []bool{false, false},
		hlo: module(decls, fmt.Sprintf("%s dot(p0, p1), lhs_batch_dims={%s}, rhs_batch_dims={%s}, lhs_contracting_dims={%s}, rhs_contracting_dims={%s}",
			shapeText("f32", out, nil), ints(lb), ints(rb), ints(lc), ints(rc)))}
}

// randWindow draws a window over dims and returns its text and output dims.
func randWindow(r *rand.Rand, in []int, sizes []int) (string, []int, bool) {
	var size, stride, pad, lhs, rhs []string
	out := make([]int, len(in))
	for i, d := range in {
		s := sizes[i]
		if s == 0 {
			s = 1 + r.IntN(3)
		}
		st, lo, hi, bd, wd := 1+r.IntN(2), r.IntN(3)-1, r.IntN(3)-1, 1+r.IntN(2), 1+r.IntN(2)
		padded := d + lo + hi + (d-1)*(bd-1)
		span := (s-1)*wd + 1
		if padded < span {
			return "", nil, false
		}
		out[i] = (padded-span)/st + 1
		size = append(size, fmt.Sprint(s))
		stride = append(stride, fmt.Sprint(st))
		pad = append(pad, fmt.Sprintf("%d_%d", lo, hi))
		lhs = append(lhs, fmt.Sprint(bd))
		rhs = append(rhs, fmt.Sprint(wd))
	}
	if len(in) == 0 {
		return "{}", out, true
	}
	return fmt.Sprintf("{size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s}",
		strings.Join(size, "x"), strings.Join(stride, "x"), strings.Join(pad, "x"), strings.Join(lhs, "x"), strings.Join(rhs, "x")), out, true
}

func genReduceWindow(r *rand.Rand) *propCase {
	for {
		in := randDims(r, 1+r.IntN(3), 5)
		w, out, ok := randWindow(r, in, make([]int, len(in)))
		if !ok {
			continue
		}
		ps, decls := dataParams("f32", in, nil)
		return &propCase{name: "reduce-window", params: ps, exact: allTrue(2), oneHot: true, inits: []bool{false, true},
			hlo: withAdd(module(decls, fmt.Sprintf("%s reduce-window(p0, p1), window=%s, to_apply=add", shapeText("f32", out, nil), w)))}
	}
}

func genConvolution(r *rand.Rand) *propCase {
	for {
		spatial := r.IntN(3)
		fgc, bgc := 1, 1
		switch r.IntN(3) {
		case 1:
			fgc = 1 + r.IntN(2)
		case 2:
			bgc = 1 + r.IntN(2)
		}
		batch, kin, kout := 1+r.IntN(2), 1+r.IntN(2), (1+r.IntN(2))*fgc*bgc
		inSp := randDims(r, spatial, 4)
		kSp := randDims(r, spatial, 2)
		w, outSp, ok := randWindow(r, inSp, kSp)
		if !ok {
			continue
		}
		// Random dimension orders for input, kernel and output.
		lp, kp, op := r.Perm(spatial+2), r.Perm(spatial+2), r.Perm(spatial+2)
		lhs := make([]int, spatial+2)
		rhs := make([]int, spatial+2)
		out := make([]int, spatial+2)
		labels := func(perm []int, first, second byte) string {
			b := make([]byte, spatial+2)
			b[perm[0]], b[perm[1]] = first, second
			for i := range spatial {
				b[perm[i+2]] = byte('0' + i)
			}
			return string(b)
		}
		lhs[lp[0]], lhs[lp[1]] = batch*bgc, kin*fgc
		rhs[kp[0]], rhs[kp[1]] = kin, kout
		out[op[0]], out[op[1]] = batch, kout
		for i := range spatial {
			lhs[lp[i+2]], rhs[kp[i+2]], out[op[i+2]] = inSp[i], kSp[i], outSp[i]
		}
		dl := labels(lp, 'b', 'f') + "_" + labels(kp, 'i', 'o') + "->" + labels(op, 'b', 'f')
		win := ""
		if spatial > 0 {
			win = ", window=" + w
		}
		ps, decls := dataParams("f32", lhs, rhs)
		// With batch groups XLA lets the input batch range over every
		// group rather than the one the output feature selects.
		return &propCase{name: "convolution", params: ps, exact: []bool{bgc == 1, false}, oneHot: true, inits: []bool{false, false},
			hlo: module(decls, fmt.Sprintf("%s convolution(p0, p1)%s, dim_labels=%s, feature_group_count=%d, batch_group_count=%d",
				shapeText("f32", out, nil), win, dl, fgc, bgc))}
	}
}

// movement applies a random data-movement op to a value of dims, for a
// fusion body; it returns the instruction text and the new dims.
func movement(r *rand.Rand, name, arg, elem string, in []int) (string, []int) {
	switch r.IntN(8) {
	case 0:
		out := factor(r, numElements(in), r.IntN(4))
		return fmt.Sprintf("  %s = %s reshape(%s)\n", name, shapeText(elem, out, nil), arg), out
	case 1:
		if len(in) > 0 {
			perm := r.Perm(len(in))
			out := permute(in, perm)
			return fmt.Sprintf("  %s = %s transpose(%s), dimensions={%s}\n", name, shapeText(elem, out, nil), arg, ints(perm)), out
		}
	case 2:
		if len(in) < 3 {
			pos := r.IntN(len(in) + 1)
			out := slices.Insert(slices.Clone(in), pos, 1+r.IntN(3))
			dims := make([]int, len(in))
			for i := range dims {
				dims[i] = i
				if i >= pos {
					dims[i]++
				}
			}
			return fmt.Sprintf("  %s = %s broadcast(%s), dimensions={%s}\n", name, shapeText(elem, out, nil), arg, ints(dims)), out
		}
	case 3:
		if len(in) > 0 {
			out := make([]int, len(in))
			var sl []string
			for i, d := range in {
				start := r.IntN(d)
				limit := start + 1 + r.IntN(d-start)
				stride := 1 + r.IntN(2)
				out[i] = (limit - start + stride - 1) / stride
				sl = append(sl, fmt.Sprintf("[%d:%d:%d]", start, limit, stride))
			}
			return fmt.Sprintf("  %s = %s slice(%s), slice={%s}\n", name, shapeText(elem, out, nil), arg, strings.Join(sl, ", ")), out
		}
	case 4:
		if len(in) > 0 {
			dims := r.Perm(len(in))[:1+r.IntN(len(in))]
			return fmt.Sprintf("  %s = %s reverse(%s), dimensions={%s}\n", name, shapeText(elem, in, nil), arg, ints(dims)), in
		}
	case 5:
		if len(in) > 0 && numElements(in) < 40 {
			out := make([]int, len(in))
			var cfg []string
			for i, d := range in {
				lo, hi, interior := r.IntN(3), r.IntN(3), r.IntN(2)
				out[i] = lo + hi + d + (d-1)*interior
				cfg = append(cfg, fmt.Sprintf("%d_%d_%d", lo, hi, interior))
			}
			return fmt.Sprintf("  %s.v = %s constant(-7)\n  %s = %s pad(%s, %s.v), padding=%s\n",
				name, shapeText(elem, nil, nil), name, shapeText(elem, out, nil), arg, name, strings.Join(cfg, "x")), out
		}
	case 6:
		out := factor(r, numElements(in), r.IntN(4))
		return fmt.Sprintf("  %s = %s bitcast(%s)\n", name, shapeText(elem, out, nil), arg), out
	case 7:
		if len(in) > 0 && numElements(in) < 40 {
			d := r.IntN(len(in))
			out := slices.Clone(in)
			out[d] *= 2
			return fmt.Sprintf("  %s = %s concatenate(%s, %s), dimensions={%d}\n", name, shapeText(elem, out, nil), arg, arg, d), out
		}
	}
	return fmt.Sprintf("  %s = %s copy(%s)\n", name, shapeText(elem, in, nil), arg), in
}

func fusionModule(body, params, fused string, in []int, out []int, elem string, prefix string) string {
	return prefix + "f {\n  q0 = " + shapeText(elem, in, nil) + " parameter(0)\n" + body + "}\n\nENTRY e {\n" + params +
		"  ROOT r = " + shapeText(elem, out, nil) + " fusion(p0), kind=kLoop, calls=f\n}\n"
}

// genFusionChain fuses a chain of data-movement ops.
func genFusionChain(r *rand.Rand) *propCase {
	in := randDims(r, r.IntN(4), 4)
	var body strings.Builder
	cur, dims := "q0", in
	n := 1 + r.IntN(3)
	for i := range n {
		name := fmt.Sprintf("v%d", i)
		text, out := movement(r, name, cur, "s32", dims)
		if i == n-1 {
			text = strings.Replace(text, "  "+name+" = ", "  ROOT "+name+" = ", 1)
		}
		body.WriteString(text)
		cur, dims = name, out
	}
	ps, decls := dataParams("s32", in)
	return &propCase{name: "fusion-chain", params: ps, exact: allTrue(1),
		hlo: "HloModule m\n\n" + fusionModule(body.String(), decls[0], "", in, dims, "s32", "")}
}

// genFusionSum fuses a chain with a second path to the same shape — a
// reshape of the input, or its total broadcast back — and adds them: the
// input is read through several maps.
func genFusionSum(r *rand.Rand) *propCase {
	in := randDims(r, 1+r.IntN(3), 3)
	var body strings.Builder
	cur, dims := "q0", in
	for i := range 1 + r.IntN(3) {
		name := fmt.Sprintf("v%d", i)
		text, out := movement(r, name, cur, "f32", dims)
		text = strings.ReplaceAll(text, "constant(-7)", "constant(0)")
		body.WriteString(text)
		cur, dims = name, out
	}
	if numElements(dims) == numElements(in) && r.IntN(2) == 0 {
		fmt.Fprintf(&body, "  w = %s reshape(q0)\n", shapeText("f32", dims, nil))
	} else {
		all := make([]int, len(in))
		for i := range all {
			all[i] = i
		}
		fmt.Fprintf(&body, "  z = f32[] constant(0)\n  t = f32[] reduce(q0, z), dimensions={%s}, to_apply=add\n  w = %s broadcast(t), dimensions={}\n",
			ints(all), shapeText("f32", dims, nil))
	}
	fmt.Fprintf(&body, "  ROOT s = %s add(%s, w)\n", shapeText("f32", dims, nil), cur)
	ps, decls := dataParams("f32", in)
	return &propCase{name: "fusion-sum", params: ps, exact: allTrue(1), oneHot: true, inits: []bool{false},
		hlo: "HloModule m\n\n" + fusionModule(body.String(), decls[0], "", in, dims, "f32", addComputation)}
}

var generators = []struct {
	name string
	gen  func(*rand.Rand) *propCase
}{
	{"reshape", genReshape},
	{"transpose", genTranspose},
	{"broadcast", genBroadcast},
	{"slice", genSlice},
	{"pad", genPad},
	{"reverse", genReverse},
	{"concatenate", genConcatenate},
	{"bitcast", genBitcast},
	{"dynamic-slice", genDynamicSlice},
	{"dynamic-update-slice", genDynamicUpdateSlice},
	{"gather", genGather},
	{"clamp", genClamp},
	{"sort", genSort},
	{"reduce", genReduce},
	{"dot", genDot},
	{"reduce-window", genReduceWindow},
	{"convolution", genConvolution},
	{"fusion-chain", genFusionChain},
	{"fusion-sum", genFusionSum},
}

func TestAgreesWithEvaluator(t *testing.T) {
	const perOp = 200
	for gi, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(gi), 4))
			for range perOp {
				check(t, r, g.gen(r))
			}
		})
	}
}
