package affine

import "testing"

// rowMajorReshape is the output-to-input map of a reshape from shape `from`
// (the map's dimensions) to shape `to`, written as the delinearised
// row-major index, unsimplified.
func rowMajorReshape(from, to []int64) IndexingMap {
	var lin Expr
	stride := int64(1)
	for i := len(from) - 1; i >= 0; i-- {
		lin = Dim(i).Mul(stride).Add(lin)
		stride *= from[i]
	}
	res := make([]Expr, len(to))
	rem := lin
	stride = 1
	for _, s := range to {
		stride *= s
	}
	for i, s := range to {
		stride /= s
		res[i] = rem.FloorDiv(stride)
		rem = rem.Mod(stride)
	}
	return FromTensorSizes(res, from, nil)
}

// The specification's reshape chain, f32[10,10,10] -> f32[50,20] ->
// f32[10,10,10], composed but not simplified.
func reshapeChainMap(b testing.TB) IndexingMap {
	outer := rowMajorReshape([]int64{10, 10, 10}, []int64{50, 20})
	inner := rowMajorReshape([]int64{50, 20}, []int64{10, 10, 10})
	m, err := ComposeIndexingMaps(outer, inner)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// The maps of a 6-D fusion: a transpose of a 6-D tensor read through a
// reshape to 3-D and back.
func fusionMaps6D() (transpose, collapse, expand IndexingMap) {
	transpose = MustParse("(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1, d3, d5, d4), domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 7], d3 in [0, 5], d4 in [0, 3], d5 in [0, 15]")
	collapse = rowMajorReshape([]int64{2, 8, 4, 6, 16, 4}, []int64{64, 24, 64})
	expand = rowMajorReshape([]int64{64, 24, 64}, []int64{2, 8, 4, 6, 16, 4})
	return transpose, collapse, expand
}

// fusionMap6D is the map the indexing analysis simplifies last for that
// fusion: it simplifies after each composition, so the transpose composed
// with the collapse arrives simplified, and this is it composed with the
// expand.
func fusionMap6D(b testing.TB) IndexingMap {
	transpose, collapse, expand := fusionMaps6D()
	m, err := ComposeIndexingMaps(transpose, collapse)
	if err == nil {
		m, err = ComposeIndexingMaps(Simplify(m), expand)
	}
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// fusionMap6DWhole is the same fusion composed whole before anything is
// simplified: a harder map than the analysis ever builds.
func fusionMap6DWhole(b testing.TB) IndexingMap {
	transpose, collapse, expand := fusionMaps6D()
	m, err := ComposeIndexingMaps(transpose, collapse)
	if err == nil {
		m, err = ComposeIndexingMaps(m, expand)
	}
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkSimplifyReshapeChain(b *testing.B) {
	m := reshapeChainMap(b)
	if s := Simplify(m); s.String() != Identity(10, 10, 10).String() {
		b.Fatalf("the reshape chain simplifies to %s", s)
	}
	b.ReportAllocs()
	for b.Loop() {
		Simplify(m)
	}
}

func BenchmarkSimplifyFusion6D(b *testing.B) {
	benchmarkSimplify6D(b, fusionMap6D(b))
}

func BenchmarkSimplifyFusion6DWhole(b *testing.B) {
	benchmarkSimplify6D(b, fusionMap6DWhole(b))
}

func benchmarkSimplify6D(b *testing.B, m IndexingMap) {
	want := "(d0, d1, d2, d3, d4, d5) -> (d0, d2, d1, d3, d5, d4), domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 7], d3 in [0, 5], d4 in [0, 3], d5 in [0, 15]"
	if s := Simplify(m); s.String() != want {
		b.Fatalf("the 6-D fusion simplifies to %s", s)
	}
	b.ReportAllocs()
	for b.Loop() {
		Simplify(m)
	}
}

func BenchmarkComposeReshapeChain(b *testing.B) {
	outer := Simplify(rowMajorReshape([]int64{10, 10, 10}, []int64{50, 20}))
	inner := Simplify(rowMajorReshape([]int64{50, 20}, []int64{10, 10, 10}))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := outer.Compose(inner); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	text := "(d0, d1)[s0]{rt0} -> (d0 + s0, d1 / 8, (d0 * 16 + d1) mod 7), domain: d0 in [0, 9], d1 in [0, 15], s0 in [0, 3], rt0 in [0, 5], d1 mod 8 in [0, 0]"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

// The benchmarks' maps simplify as they should.
func TestBenchmarkMaps(t *testing.T) {
	if s := Simplify(reshapeChainMap(t)); s.String() != Identity(10, 10, 10).String() {
		t.Errorf("the reshape chain simplifies to %s", s)
	}
	m := fusionMap6D(t)
	if s := Simplify(m); s.NumConstraints() != 0 {
		t.Errorf("the 6-D fusion simplifies to %s", s)
	}
}
