package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// runLapack runs target on float64 operands (matrices of the given dims)
// and returns the results as float64s (s32 results converted).
func runLapack(t *testing.T, target, config string, result ir.Shape, operands ...lapackArg) [][]float64 {
	t.Helper()
	var shapes []ir.Shape
	var in [][]byte
	for _, o := range operands {
		shapes = append(shapes, ir.MakeShape(ir.F64, o.dims...))
		b := make([]byte, 8*len(o.v))
		copy(Elems[float64](b), o.v)
		in = append(in, b)
	}
	p, err := NewLapack(target, config, shapes, result)
	if err != nil {
		t.Fatal(err)
	}
	leaves := []ir.Shape{result}
	if result.IsTuple() {
		leaves = result.Tuple
	}
	var out [][]byte
	for _, s := range leaves {
		out = append(out, make([]byte, s.ByteSize()))
	}
	if err := p.Run(out, in); err != nil {
		t.Fatal(err)
	}
	var res [][]float64
	for i, s := range leaves {
		vals := make([]float64, s.ElementCount())
		if s.Elem == ir.S32 {
			for j, x := range Elems[int32](out[i]) {
				vals[j] = float64(x)
			}
		} else {
			copy(vals, Elems[float64](out[i]))
		}
		res = append(res, vals)
	}
	return res
}

type lapackArg struct {
	dims []int
	v    []float64
}

func randMatrix(r *rand.Rand, m, n int) []float64 {
	a := make([]float64, m*n)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	return a
}

func matMul(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for p := 0; p < k; p++ {
				c[i*n+j] += a[i*k+p] * b[p*n+j]
			}
		}
	}
	return c
}

func transpose(a []float64, m, n int) []float64 {
	t := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			t[j*m+i] = a[i*n+j]
		}
	}
	return t
}

func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func f64(dims ...int) ir.Shape     { return ir.MakeShape(ir.F64, dims...) }
func s32(dims ...int) ir.Shape     { return ir.MakeShape(ir.S32, dims...) }
func tuple(s ...ir.Shape) ir.Shape { return ir.MakeTuple(s...) }

func TestLapackPotrf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 5
	g := randMatrix(r, n, n)
	a := matMul(g, transpose(g, n, n), n, n, n)
	for i := 0; i < n; i++ {
		a[i*n+i] += n
	}
	for _, uplo := range []byte{'L', 'U'} {
		res := runLapack(t, "lapack_dpotrf_ffi", fmt.Sprintf("{uplo = %d : ui8}", uplo), tuple(f64(n, n), s32()), lapackArg{[]int{n, n}, a})
		f := res[0]
		if res[1][0] != 0 {
			t.Fatalf("%c: info %v", uplo, res[1][0])
		}
		tri := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				inside := j <= i
				if uplo == 'U' {
					inside = j >= i
				}
				if inside {
					tri[i*n+j] = f[i*n+j]
				} else if f[i*n+j] != a[i*n+j] {
					t.Fatalf("%c: element (%d,%d) outside the triangle changed", uplo, i, j)
				}
			}
		}
		var back []float64
		if uplo == 'L' {
			back = matMul(tri, transpose(tri, n, n), n, n, n)
		} else {
			back = matMul(transpose(tri, n, n), tri, n, n, n)
		}
		checkClose(t, fmt.Sprintf("%c: factor·factorᵀ", uplo), back, a, 1e-12)
	}
	// Not positive definite at the third leading minor.
	bad := []float64{4, 2, 0, 2, 5, 0, 0, 0, -1}
	if res := runLapack(t, "lapack_dpotrf_ffi", "{uplo = 76 : ui8}", tuple(f64(3, 3), s32()), lapackArg{[]int{3, 3}, bad}); res[1][0] != 3 {
		t.Errorf("info %v for a matrix whose third minor is negative, want 3", res[1][0])
	}
}

func TestLapackTrsm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, other = 4, 3
	a := randMatrix(r, n, n)
	for i := 0; i < n; i++ {
		a[i*n+i] = 3 + math.Abs(a[i*n+i])
	}
	for _, side := range []byte{'L', 'R'} {
		for _, uplo := range []byte{'L', 'U'} {
			for _, trans := range []byte{'N', 'T'} {
				for _, diag := range []byte{'N', 'U'} {
					// op(A) as a full matrix.
					op := make([]float64, n*n)
					for i := 0; i < n; i++ {
						for j := 0; j < n; j++ {
							in := j <= i
							if uplo == 'U' {
								in = j >= i
							}
							if in {
								op[i*n+j] = a[i*n+j]
							}
							if i == j && diag == 'U' {
								op[i*n+j] = 1
							}
						}
					}
					if trans == 'T' {
						op = transpose(op, n, n)
					}
					bm, bn := n, other
					if side == 'R' {
						bm, bn = other, n
					}
					b := randMatrix(r, bm, bn)
					cfg := fmt.Sprintf("{diag = %d : ui8, side = %d : ui8, trans_x = %d : ui8, uplo = %d : ui8}", diag, side, trans, uplo)
					x := runLapack(t, "lapack_dtrsm_ffi", cfg, f64(bm, bn), lapackArg{[]int{n, n}, a}, lapackArg{[]int{bm, bn}, b})[0]
					var back []float64
					if side == 'L' {
						back = matMul(op, x, n, n, bn)
					} else {
						back = matMul(x, op, bm, n, n)
					}
					checkClose(t, cfg, back, b, 1e-12)
				}
			}
		}
	}
}

func TestLapackGetrf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, mn := range [][2]int{{4, 4}, {5, 3}, {3, 5}} {
		m, n := mn[0], mn[1]
		k := min(m, n)
		a := randMatrix(r, m, n)
		res := runLapack(t, "lapack_dgetrf_ffi", "{}", tuple(f64(m, n), s32(k), s32()), lapackArg{[]int{m, n}, a})
		lu, ipiv := res[0], res[1]
		if res[2][0] != 0 {
			t.Fatalf("%dx%d: info %v", m, n, res[2][0])
		}
		l := make([]float64, m*k)
		u := make([]float64, k*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				switch {
				case j < i && j < k:
					l[i*k+j] = lu[i*n+j]
				case i < k:
					u[i*n+j] = lu[i*n+j]
				}
			}
			if i < k {
				l[i*k+i] = 1
			}
		}
		// Apply the row swaps to A, in order, and compare with L·U; each
		// pivot is the column's first largest magnitude below the diagonal.
		pa := append([]float64(nil), a...)
		for j := 0; j < k; j++ {
			p := int(ipiv[j]) - 1
			for i := j; i < m; i++ {
				if math.Abs(pa[i*n+j]) > math.Abs(pa[p*n+j]) {
					t.Fatalf("%dx%d: pivot %d is row %d, not the largest", m, n, j, p)
				}
			}
			for c := 0; c < n; c++ {
				pa[j*n+c], pa[p*n+c] = pa[p*n+c], pa[j*n+c]
			}
			// Eliminate as the factorization does, so the next column's
			// pivot is checked on the updated matrix.
			for i := j + 1; i < m; i++ {
				f := pa[i*n+j] / pa[j*n+j]
				for c := j; c < n; c++ {
					pa[i*n+c] -= f * pa[j*n+c]
				}
			}
		}
		pa = append([]float64(nil), a...)
		for j := 0; j < k; j++ {
			p := int(ipiv[j]) - 1
			for c := 0; c < n; c++ {
				pa[j*n+c], pa[p*n+c] = pa[p*n+c], pa[j*n+c]
			}
		}
		checkClose(t, fmt.Sprintf("%dx%d: L·U", m, n), matMul(l, u, m, k, n), pa, 1e-12)
	}
	singular := []float64{1, 2, 3, 2, 4, 6, 1, 1, 1}
	if res := runLapack(t, "lapack_dgetrf_ffi", "{}", tuple(f64(3, 3), s32(3), s32()), lapackArg{[]int{3, 3}, singular}); res[2][0] == 0 {
		t.Errorf("info 0 for a singular matrix")
	}
}

func TestLapackQR(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const m, n = 6, 4
	a := randMatrix(r, m, n)
	res := runLapack(t, "lapack_dgeqrf_ffi", "{}", tuple(f64(m, n), f64(n)), lapackArg{[]int{m, n}, a})
	qr, tau := res[0], res[1]
	q := runLapack(t, "lapack_dorgqr_ffi", "{}", f64(m, n), lapackArg{[]int{m, n}, qr}, lapackArg{[]int{n}, tau})[0]
	rr := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			rr[i*n+j] = qr[i*n+j]
		}
	}
	checkClose(t, "Q·R", matMul(q, rr, m, n, n), a, 1e-12)
	eye := make([]float64, n*n)
	for i := 0; i < n; i++ {
		eye[i*n+i] = 1
	}
	checkClose(t, "QᵀQ", matMul(transpose(q, m, n), q, n, m, n), eye, 1e-12)
	// LAPACK's convention: R's diagonal has the opposite sign of the
	// column's leading element at each step; here, at least, R(0,0) does.
	if math.Signbit(rr[0]) == math.Signbit(a[0]) {
		t.Errorf("R(0,0) = %v has the sign of A(0,0) = %v; dlarfg gives it the opposite", rr[0], a[0])
	}
}

func TestLapackEigenAndSVD(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 5
	g := randMatrix(r, n, n)
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i*n+j] = g[i*n+j] + g[j*n+i]
		}
	}
	res := runLapack(t, "lapack_dsyevd_ffi", "{mode = 86 : ui8, uplo = 76 : ui8}", tuple(f64(n, n), f64(n), s32()), lapackArg{[]int{n, n}, a})
	v, w := res[0], res[1]
	for c := 0; c < n; c++ {
		if c > 0 && w[c] < w[c-1] {
			t.Fatalf("eigenvalues not ascending: %v", w)
		}
		col := make([]float64, n)
		for i := range col {
			col[i] = v[i*n+c]
		}
		av := matMul(a, col, n, n, 1)
		for i := range col {
			col[i] *= w[c]
		}
		checkClose(t, fmt.Sprintf("A·v%d", c), av, col, 1e-10)
	}
	for _, mn := range [][2]int{{5, 3}, {3, 5}} {
		m, n := mn[0], mn[1]
		k := min(m, n)
		a := randMatrix(r, m, n)
		for _, mode := range []byte{'N', 'S', 'A'} {
			um, vn := m, n
			if mode == 'S' {
				um, vn = k, k
			}
			res := runLapack(t, "lapack_dgesdd_ffi", fmt.Sprintf("{mode = %d : ui8}", mode), tuple(f64(m, n), f64(k), f64(m, um), f64(vn, n), s32()), lapackArg{[]int{m, n}, a})
			s, u, vt := res[1], res[2], res[3]
			for i := 1; i < k; i++ {
				if s[i] > s[i-1] {
					t.Fatalf("%dx%d %c: singular values not descending: %v", m, n, mode, s)
				}
			}
			// The singular values are the square roots of AᵀA's eigenvalues.
			ata := matMul(transpose(a, m, n), a, n, m, n)
			ev := runLapack(t, "lapack_dsyevd_ffi", "{mode = 78 : ui8, uplo = 76 : ui8}", tuple(f64(n, n), f64(n), s32()), lapackArg{[]int{n, n}, ata})[1]
			for i := 0; i < k; i++ {
				if want := math.Sqrt(math.Max(ev[n-1-i], 0)); math.Abs(s[i]-want) > 1e-9*(1+want) {
					t.Fatalf("%dx%d %c: σ%d = %v, want %v", m, n, mode, i, s[i], want)
				}
			}
			if mode == 'N' {
				continue
			}
			us := make([]float64, m*k) // U's first k columns times S
			for i := 0; i < m; i++ {
				for j := 0; j < k; j++ {
					us[i*k+j] = u[i*um+j] * s[j]
				}
			}
			checkClose(t, fmt.Sprintf("%dx%d %c: U·S·Vᵀ", m, n, mode), matMul(us, vt[:k*n], m, k, n), a, 1e-10)
			eye := func(d int) []float64 {
				e := make([]float64, d*d)
				for i := 0; i < d; i++ {
					e[i*d+i] = 1
				}
				return e
			}
			checkClose(t, fmt.Sprintf("%dx%d %c: UᵀU", m, n, mode), matMul(transpose(u, m, um), u, um, m, um), eye(um), 1e-10)
			checkClose(t, fmt.Sprintf("%dx%d %c: VᵀᵀVᵀ", m, n, mode), matMul(vt, transpose(vt, vn, n), vn, n, vn), eye(vn), 1e-10)
		}
	}
}

func TestLapackRefusals(t *testing.T) {
	for _, c := range []struct {
		target, config string
		operands       []ir.Shape
		result         ir.Shape
		err            string
	}{
		{"lapack_cpotrf_ffi", "{}", []ir.Shape{ir.MakeShape(ir.C64, 2, 2)}, tuple(ir.MakeShape(ir.C64, 2, 2), s32()), "complex"},
		{"lapack_sgees_ffi", "{}", []ir.Shape{ir.MakeShape(ir.F32, 2, 2)}, ir.MakeShape(ir.F32, 2, 2), "routine gees"},
		{"lapack_spotrf_ffi", "{}", []ir.Shape{ir.MakeShape(ir.F32, 2, 3)}, tuple(ir.MakeShape(ir.F32, 2, 3), s32()), "not square"},
		{"lapack_spotrf_ffi", "{uplo = L}", []ir.Shape{ir.MakeShape(ir.F32, 2, 2)}, tuple(ir.MakeShape(ir.F32, 2, 2), s32()), "character code"},
		{"lapack_spotrf_ffi", "{}", []ir.Shape{ir.MakeShape(ir.F32, 2, 2)}, ir.MakeShape(ir.F32, 2, 2), "1 results, expected 2"},
		{"lapack_strsm_ffi", "{side = 76 : ui8}", []ir.Shape{ir.MakeShape(ir.F32, 3, 3), ir.MakeShape(ir.F32, 2, 4)}, ir.MakeShape(ir.F32, 2, 4), "does not fit"},
	} {
		_, err := NewLapack(c.target, c.config, c.operands, c.result)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %s: error %v, want one containing %q", c.target, c.config, err, c.err)
		}
	}
}

func TestLapackBatch(t *testing.T) {
	// Leading dimensions are a batch: each matrix factored on its own.
	r := rand.New(rand.NewPCG(11, 12))
	const b, n = 3, 3
	a := randMatrix(r, b*n, n)
	res := runLapack(t, "lapack_dgetrf_ffi", "{}", tuple(f64(b, n, n), s32(b, n), s32(b)), lapackArg{[]int{b, n, n}, a})
	for i := 0; i < b; i++ {
		one := runLapack(t, "lapack_dgetrf_ffi", "{}", tuple(f64(n, n), s32(n), s32()), lapackArg{[]int{n, n}, a[i*n*n : (i+1)*n*n]})
		checkClose(t, fmt.Sprintf("matrix %d", i), res[0][i*n*n:(i+1)*n*n], one[0], 0)
		checkClose(t, fmt.Sprintf("pivots %d", i), res[1][i*n:(i+1)*n], one[1], 0)
	}
}
