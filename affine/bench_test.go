package affine

import "testing"

// Benchmarks on the specification's maps: the reshape chain
// f32[10,10,10] -> f32[50,20] -> f32[10,10,10] and the softmax fusion over
// f32[2,65,125].

func reshapeChain() (reshape2, reshape1 IndexingMap) {
	return reshapeMap([]int64{50, 20}, []int64{10, 10, 10}), reshapeMap([]int64{10, 10, 10}, []int64{50, 20})
}

func softmaxMaps() (bcast, reduce IndexingMap) {
	return MustParse("(d0, d1, d2) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124]"),
		MustParse("(d0, d1)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], s0 in [0, 124]")
}

// Simplify the raw composition of the two reshapes into the identity.
func BenchmarkSimplifyReshapeChain(b *testing.B) {
	r2, r1 := reshapeChain()
	raw, err := composeRaw(r2, r1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := Simplify(raw); s.NumConstraints() != 0 {
			b.Fatal(s)
		}
	}
}

// Simplify one reshape's map, as the analysis does for every reshape.
func BenchmarkSimplifyReshape(b *testing.B) {
	m := reshapeMap([]int64{4, 8}, []int64{2, 4, 4})
	b.ReportAllocs()
	for b.Loop() {
		Simplify(m)
	}
}

// Compose the two simplified reshape maps (composition, simplification,
// removal of unused symbols).
func BenchmarkComposeReshapeChain(b *testing.B) {
	r2, r1 := reshapeChain()
	r2, r1 = Simplify(r2), Simplify(r1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r2.Compose(r1); err != nil {
			b.Fatal(err)
		}
	}
}

// Simplify the raw composition broadcast∘reduce∘broadcast∘reduce of softmax.
func BenchmarkSimplifySoftmax(b *testing.B) {
	bcast, reduce := softmaxMaps()
	raw, _ := composeRaw(bcast, reduce)
	raw, _ = composeRaw(raw, bcast)
	raw, _ = composeRaw(raw, reduce)
	b.ReportAllocs()
	for b.Loop() {
		Simplify(raw)
	}
}

// Compose the softmax chain one op at a time, as the analysis of the fusion
// does.
func BenchmarkComposeSoftmax(b *testing.B) {
	bcast, reduce := softmaxMaps()
	b.ReportAllocs()
	for b.Loop() {
		c, _ := bcast.Compose(reduce)
		c, _ = c.Compose(bcast)
		c, _ = c.Compose(reduce)
		if c.NumRangeVars() != 1 {
			b.Fatal(c)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	text := seedMaps[len(seedMaps)-2].text
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	m := MustParse("(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]")
	b.ReportAllocs()
	for b.Loop() {
		_ = m.String()
	}
}

// Build the linearised index of a reshape and its delinearisation.
func BenchmarkBuildExpr(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		lin := Dim(0).Mul(100).Add(Dim(1).Mul(10)).Add(Dim(2))
		_ = lin.FloorDiv(20)
		_ = lin.Mod(20)
	}
}
