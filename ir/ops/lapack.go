package ops

// jaxlib's LAPACK custom calls. On the CPU, JAX lowers jnp.linalg and
// jax.scipy.linalg to custom calls named lapack_<t><routine>_ffi (t: s for
// f32, d for f64) with the routine's options in backend_config ({uplo = 76
// : ui8, …}, ASCII codes) and any leading dimensions a batch. Each routine
// here computes what LAPACK's defines on the logical (row-major) matrices:
//
//   - potrf: the Cholesky factor in the uplo triangle (the other one left as
//     given), and info, the order of the first minor not positive definite;
//   - trsm: X with op(A)·X = B (side L) or X·op(A) = B (side R), A
//     triangular (uplo), op transposing or not (trans_x), unit diagonal or
//     not (diag);
//   - getrf: LU with partial pivoting (the first largest magnitude of the
//     column), the 1-based pivot rows and info (the first zero pivot);
//   - geqrf and orgqr: Householder QR as dgeqr2 and dlarfg write it (R and
//     the reflectors in place, tau), and Q's first columns from them;
//   - syevd: the eigenvalues of the symmetric matrix the uplo triangle
//     holds, ascending, and (mode V) unit eigenvectors in the columns;
//   - gesdd: the singular values, descending, and (modes S and A) singular
//     vectors.
//
// The factorizations compute in float64 and round once to the element
// type. Eigenvectors and singular vectors are unique only up to sign (and
// within repeated values); LAPACK's builds differ there too, and these
// take each vector's largest component positive.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kilnml/kiln/ir"
)

// IsLapackTarget reports whether target names one of jaxlib's LAPACK
// custom calls (lapack_…_ffi).
func IsLapackTarget(target string) bool {
	return strings.HasPrefix(target, "lapack_") && strings.HasSuffix(target, "_ffi")
}

// LapackPlan runs one LAPACK custom call over a batch of matrices.
type LapackPlan struct {
	routine string
	t       ir.ElementType
	batch   int
	m, n    int // the first operand's matrix
	bm, bn  int // trsm: B's matrix
	opts    map[string]byte
	results []ir.Shape
	works   sync.Pool // *lapackWork
}

// lapackWork hands out the float64 and int buffers one run of a plan
// needs, from arenas it keeps between runs: once a run of the plan's
// shapes has shown how much it needs, later runs allocate nothing.
type lapackWork struct {
	f            []float64
	i            []int
	nf, ni       int // handed out this run
	needF, needI int // the most one run has asked for
}

// begin starts a run, growing the arenas to what runs have needed.
func (w *lapackWork) begin() {
	if len(w.f) < w.needF {
		w.f = make([]float64, w.needF)
	}
	if len(w.i) < w.needI {
		w.i = make([]int, w.needI)
	}
	w.nf, w.ni = 0, 0
}

// floats returns n zeroed float64s.
func (w *lapackWork) floats(n int) []float64 {
	w.nf += n
	w.needF = max(w.needF, w.nf)
	if w.nf > len(w.f) {
		return make([]float64, n) // the first run: the arena grows for the next
	}
	b := w.f[w.nf-n : w.nf]
	clear(b)
	return b
}

// ints returns n zeroed ints.
func (w *lapackWork) ints(n int) []int {
	w.ni += n
	w.needI = max(w.needI, w.ni)
	if w.ni > len(w.i) {
		return make([]int, n)
	}
	b := w.i[w.ni-n : w.ni]
	clear(b)
	return b
}

// NewLapack plans the custom call target of the given backend_config on
// operands of the given shapes into the result (a tuple or one array).
func NewLapack(target, backendConfig string, operands []ir.Shape, result ir.Shape) (*LapackPlan, error) {
	if !IsLapackTarget(target) {
		return nil, fmt.Errorf("%q is not a LAPACK custom call", target)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(target, "lapack_"), "_ffi")
	if len(name) < 2 {
		return nil, fmt.Errorf("custom-call %q: no routine", target)
	}
	p := &LapackPlan{routine: name[1:]}
	switch name[0] {
	case 's':
		p.t = ir.F32
	case 'd':
		p.t = ir.F64
	default:
		return nil, &UnsupportedError{Op: ir.OpCustomCall, Detail: fmt.Sprintf("custom-call %q: complex LAPACK routines", target)}
	}
	opts, err := parseLapackConfig(backendConfig)
	if err != nil {
		return nil, fmt.Errorf("custom-call %q: backend_config %s: %w", target, backendConfig, err)
	}
	p.opts = opts
	if result.IsTuple() {
		p.results = result.Tuple
	} else {
		p.results = []ir.Shape{result}
	}
	want := map[string]int{"potrf": 1, "trsm": 2, "getrf": 1, "geqrf": 1, "orgqr": 2, "syevd": 1, "gesdd": 1}
	nops, ok := want[p.routine]
	if !ok {
		return nil, &UnsupportedError{Op: ir.OpCustomCall, Detail: fmt.Sprintf("custom-call %q: LAPACK routine %s", target, p.routine)}
	}
	if len(operands) != nops {
		return nil, fmt.Errorf("custom-call %q takes %d operands, found %d", target, nops, len(operands))
	}
	a := operands[0]
	if !a.IsArray() || a.Rank() < 2 || a.Elem != p.t {
		return nil, fmt.Errorf("custom-call %q: operand 0 is %v, expected a %v matrix or batch of them", target, a, p.t)
	}
	r := a.Rank()
	p.m, p.n = a.Dims[r-2], a.Dims[r-1]
	p.batch = Count(a.Dims[:r-2])
	bdims := a.Dims[:r-2]
	k := min(p.m, p.n)
	mat := func(rows, cols int) []int { return append(append([]int{}, bdims...), rows, cols) }
	vec := func(n int) []int { return append(append([]int{}, bdims...), n) }
	var wantRes [][]int
	var wantTypes []ir.ElementType
	f, i32 := p.t, ir.S32
	switch p.routine {
	case "potrf":
		if p.m != p.n {
			return nil, fmt.Errorf("custom-call %q: %d×%d is not square", target, p.m, p.n)
		}
		wantRes, wantTypes = [][]int{mat(p.m, p.n), bdims}, []ir.ElementType{f, i32}
	case "trsm":
		b := operands[1]
		if p.m != p.n || !b.IsArray() || b.Rank() != r || b.Elem != p.t || !slices.Equal(b.Dims[:r-2], bdims) {
			return nil, fmt.Errorf("custom-call %q: operands %v and %v, expected a square matrix and a matrix of the same batch", target, a, b)
		}
		p.bm, p.bn = b.Dims[r-2], b.Dims[r-1]
		if side := p.opt("side", 'L'); side == 'L' && p.bm != p.m || side != 'L' && p.bn != p.m {
			return nil, fmt.Errorf("custom-call %q: %v does not fit the %d×%d triangle on side %c", target, b, p.m, p.n, side)
		}
		wantRes, wantTypes = [][]int{mat(p.bm, p.bn)}, []ir.ElementType{f}
	case "getrf":
		wantRes, wantTypes = [][]int{mat(p.m, p.n), vec(k), bdims}, []ir.ElementType{f, i32, i32}
	case "geqrf":
		wantRes, wantTypes = [][]int{mat(p.m, p.n), vec(k)}, []ir.ElementType{f, f}
	case "orgqr":
		tau := operands[1]
		if !tau.IsArray() || tau.Rank() != r-1 || tau.Elem != p.t || tau.Dims[r-2] > p.n || p.n > p.m {
			return nil, fmt.Errorf("custom-call %q: operands %v and %v, expected m×n with n ≤ m and at most n factors", target, a, tau)
		}
		p.bn = tau.Dims[r-2]
		wantRes, wantTypes = [][]int{mat(p.m, p.n)}, []ir.ElementType{f}
	case "syevd":
		if p.m != p.n {
			return nil, fmt.Errorf("custom-call %q: %d×%d is not square", target, p.m, p.n)
		}
		wantRes, wantTypes = [][]int{mat(p.m, p.n), vec(p.n), bdims}, []ir.ElementType{f, f, i32}
	case "gesdd":
		mode := p.opt("mode", 'A')
		um, vn := p.m, p.n
		if mode == 'S' {
			um, vn = k, k
		}
		wantRes, wantTypes = [][]int{mat(p.m, p.n), vec(k), mat(p.m, um), mat(vn, p.n), bdims}, []ir.ElementType{f, f, f, f, i32}
		if mode == 'N' {
			// No vectors: their results are placeholders of any size.
			wantRes[2], wantRes[3] = p.results[min(2, len(p.results)-1)].Dims, p.results[min(3, len(p.results)-1)].Dims
		}
	}
	if len(p.results) != len(wantRes) {
		return nil, fmt.Errorf("custom-call %q: %d results, expected %d", target, len(p.results), len(wantRes))
	}
	for i, s := range p.results {
		if !s.IsArray() || s.Elem != wantTypes[i] || !slices.Equal(s.Dims, wantRes[i]) {
			return nil, fmt.Errorf("custom-call %q: result %d is %v, expected %v%v", target, i, s, wantTypes[i], wantRes[i])
		}
	}
	return p, nil
}

// parseLapackConfig reads jaxlib's attribute dictionary, `{uplo = 76 :
// ui8, diag = 78 : ui8}` (MLIR's syntax), into option letters.
func parseLapackConfig(s string) (map[string]byte, error) {
	opts := map[string]byte{}
	s = strings.Trim(strings.TrimSpace(s), `"`)
	s = strings.TrimPrefix(strings.TrimSuffix(s, "}"), "{")
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("expected name = value, found %q", f)
		}
		v, _, _ = strings.Cut(v, ":")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 255 {
			return nil, fmt.Errorf("option %s: expected a character code, found %q", strings.TrimSpace(k), strings.TrimSpace(v))
		}
		opts[strings.TrimSpace(k)] = byte(n)
	}
	return opts, nil
}

// opt is option name's letter, def when the call has none.
func (p *LapackPlan) opt(name string, def byte) byte {
	if v, ok := p.opts[name]; ok {
		return v
	}
	return def
}

// Run computes the results (their bytes, in order) from the operands'.
func (p *LapackPlan) Run(results, operands [][]byte) error {
	if len(results) != len(p.results) {
		return fmt.Errorf("lapack %s: %d results, expected %d", p.routine, len(results), len(p.results))
	}
	ws, _ := p.works.Get().(*lapackWork)
	if ws == nil {
		ws = &lapackWork{}
	}
	defer p.works.Put(ws)
	load := func(b []byte, off, n int) []float64 {
		out := ws.floats(n)
		if p.t == ir.F32 {
			for i, x := range Elems[float32](b)[off : off+n] {
				out[i] = float64(x)
			}
		} else {
			copy(out, Elems[float64](b)[off:off+n])
		}
		return out
	}
	store := func(b []byte, off int, v []float64) {
		if p.t == ir.F32 {
			dst := Elems[float32](b)[off : off+len(v)]
			for i, x := range v {
				dst[i] = float32(x)
			}
			return
		}
		copy(Elems[float64](b)[off:off+len(v)], v)
	}
	setInt := func(b []byte, i int, v int32) { Elems[int32](b)[i] = v }
	m, n, k := p.m, p.n, min(p.m, p.n)
	for bi := 0; bi < p.batch; bi++ {
		ws.begin()
		a := load(operands[0], bi*m*n, m*n)
		switch p.routine {
		case "potrf":
			info := potrf(a, n, p.opt("uplo", 'L') == 'L')
			store(results[0], bi*m*n, a)
			setInt(results[1], bi, int32(info))
		case "trsm":
			b := load(operands[1], bi*p.bm*p.bn, p.bm*p.bn)
			trsm(a, n, b, p.bm, p.bn, p.opt("side", 'L') == 'L', p.opt("uplo", 'L') == 'L', p.opt("trans_x", 'N') != 'N', p.opt("diag", 'N') == 'U')
			store(results[0], bi*p.bm*p.bn, b)
		case "getrf":
			ipiv, info := getrf(ws, a, m, n)
			store(results[0], bi*m*n, a)
			for i, v := range ipiv {
				setInt(results[1], bi*k+i, int32(v))
			}
			setInt(results[2], bi, int32(info))
		case "geqrf":
			tau := geqrf(ws, a, m, n)
			store(results[0], bi*m*n, a)
			store(results[1], bi*k, tau)
		case "orgqr":
			tau := load(operands[1], bi*p.bn, p.bn)
			orgqr(a, m, n, tau)
			store(results[0], bi*m*n, a)
		case "syevd":
			w, v := symmetricEigen(ws, symmetricFrom(ws, a, n, p.opt("uplo", 'L') == 'L'), n)
			if p.opt("mode", 'V') == 'V' {
				store(results[0], bi*n*n, v)
			} else {
				store(results[0], bi*n*n, a)
			}
			store(results[1], bi*n, w)
			setInt(results[2], bi, 0)
		case "gesdd":
			s, u, vt := svd(ws, a, m, n)
			store(results[0], bi*m*n, a)
			store(results[1], bi*k, s)
			switch mode := p.opt("mode", 'A'); mode {
			case 'S':
				store(results[2], bi*m*k, u[:m*k])
				store(results[3], bi*k*n, vt[:k*n])
			case 'A':
				store(results[2], bi*m*m, completeColumns(ws, u, m, k))
				store(results[3], bi*n*n, completeRows(ws, vt, k, n))
			}
			setInt(results[4], bi, 0)
		}
	}
	return nil
}

// potrf factors the n×n a in place: lower, A = L·Lᵀ in the lower triangle;
// otherwise A = Uᵀ·U in the upper. It returns 0, or j+1 for the first
// leading minor j that is not positive definite (the factorization stops
// there, as LAPACK's does).
func potrf(a []float64, n int, lower bool) int {
	at := func(i, j int) *float64 {
		if lower {
			return &a[i*n+j]
		}
		return &a[j*n+i]
	}
	for j := 0; j < n; j++ {
		d := *at(j, j)
		for c := 0; c < j; c++ {
			d -= *at(j, c) * *at(j, c)
		}
		if !(d > 0) {
			*at(j, j) = d
			return j + 1
		}
		d = math.Sqrt(d)
		*at(j, j) = d
		for i := j + 1; i < n; i++ {
			s := *at(i, j)
			for c := 0; c < j; c++ {
				s -= *at(i, c) * *at(j, c)
			}
			*at(i, j) = s / d
		}
	}
	return 0
}

// trsm overwrites the bm×bn b with X: op(A)·X = B (left) or X·op(A) = B,
// A the n×n triangle of a (lower or upper), op transposing when trans,
// its diagonal taken as ones when unit.
func trsm(a []float64, n int, b []float64, bm, bn int, left, lower, trans, unit bool) {
	// el(i, j) is op(A)(i, j) within the triangle, 0 outside it.
	el := func(i, j int) float64 {
		if trans {
			i, j = j, i
		}
		if i == j && unit {
			return 1
		}
		if lower && j > i || !lower && j < i {
			return 0
		}
		return a[i*n+j]
	}
	// op(A) is lower triangular when lower != trans.
	opLower := lower != trans
	if left {
		for c := 0; c < bn; c++ {
			solveColumn(n, el, opLower, func(i int) *float64 { return &b[i*bn+c] })
		}
		return
	}
	// X·op(A) = B is op(A)ᵀ·Xᵀ = Bᵀ, op(A)ᵀ lower when op(A) is upper.
	elT := func(i, j int) float64 { return el(j, i) }
	for r := 0; r < bm; r++ {
		solveColumn(n, elT, !opLower, func(i int) *float64 { return &b[r*bn+i] })
	}
}

// solveColumn solves the triangular n×n system el·x = y in place (x(i)
// returns the element), by substitution from the top for a lower one.
func solveColumn(n int, el func(i, j int) float64, lower bool, x func(i int) *float64) {
	if lower {
		for i := 0; i < n; i++ {
			s := *x(i)
			for j := 0; j < i; j++ {
				s -= el(i, j) * *x(j)
			}
			*x(i) = s / el(i, i)
		}
		return
	}
	for i := n - 1; i >= 0; i-- {
		s := *x(i)
		for j := i + 1; j < n; j++ {
			s -= el(i, j) * *x(j)
		}
		*x(i) = s / el(i, i)
	}
}

// getrf factors the m×n a in place as P·L·U with partial pivoting and
// returns the 1-based pivot rows and info (0, or the first zero pivot's
// column + 1).
func getrf(ws *lapackWork, a []float64, m, n int) ([]int, int) {
	k := min(m, n)
	ipiv := ws.ints(k)
	info := 0
	for j := 0; j < k; j++ {
		p := j
		for i := j + 1; i < m; i++ {
			if math.Abs(a[i*n+j]) > math.Abs(a[p*n+j]) {
				p = i
			}
		}
		ipiv[j] = p + 1
		if a[p*n+j] == 0 {
			if info == 0 {
				info = j + 1
			}
			continue
		}
		if p != j {
			for c := 0; c < n; c++ {
				a[j*n+c], a[p*n+c] = a[p*n+c], a[j*n+c]
			}
		}
		for i := j + 1; i < m; i++ {
			a[i*n+j] /= a[j*n+j]
			for c := j + 1; c < n; c++ {
				a[i*n+c] -= a[i*n+j] * a[j*n+c]
			}
		}
	}
	return ipiv, info
}

// geqrf computes the QR factorization of the m×n a in place as dgeqr2
// does: R in the upper triangle, the Householder vectors below it (their
// leading ones implied), and returns tau.
func geqrf(ws *lapackWork, a []float64, m, n int) []float64 {
	k := min(m, n)
	tau := ws.floats(k)
	for i := 0; i < k; i++ {
		alpha := a[i*n+i]
		xnorm := 0.0
		for r := i + 1; r < m; r++ {
			xnorm = math.Hypot(xnorm, a[r*n+i])
		}
		if xnorm == 0 {
			continue // H = I
		}
		beta := -math.Copysign(math.Hypot(alpha, xnorm), alpha)
		tau[i] = (beta - alpha) / beta
		scale := 1 / (alpha - beta)
		for r := i + 1; r < m; r++ {
			a[r*n+i] *= scale
		}
		a[i*n+i] = beta
		applyReflector(a, n, i, m, i+1, n, tau[i])
	}
	return tau
}

// applyReflector applies H = I − tau·v·vᵀ from the left to rows vc…r1−1,
// columns c0…c1−1 of a (row stride n), where v = (1, a[vc+1][vc], …,
// a[r1−1][vc]) is the reflector stored below the diagonal of column vc.
func applyReflector(a []float64, n, vc, r1, c0, c1 int, tau float64) {
	if tau == 0 {
		return
	}
	r0 := vc
	v := func(r int) float64 {
		if r == r0 {
			return 1
		}
		return a[r*n+vc]
	}
	for c := c0; c < c1; c++ {
		s := 0.0
		for r := r0; r < r1; r++ {
			s += v(r) * a[r*n+c]
		}
		s *= tau
		for r := r0; r < r1; r++ {
			a[r*n+c] -= s * v(r)
		}
	}
}

// orgqr overwrites the m×n a, holding the reflectors geqrf wrote for the
// len(tau) factors, with the first n columns of Q = H(0)…H(k−1), as dorg2r
// does.
func orgqr(a []float64, m, n int, tau []float64) {
	k := len(tau)
	for j := k; j < n; j++ {
		for r := 0; r < m; r++ {
			a[r*n+j] = 0
		}
		a[j*n+j] = 1
	}
	for i := k - 1; i >= 0; i-- {
		if i < n-1 {
			a[i*n+i] = 1
			applyReflector(a, n, i, m, i+1, n, tau[i])
		}
		for r := i + 1; r < m; r++ {
			a[r*n+i] *= -tau[i]
		}
		a[i*n+i] = 1 - tau[i]
		for r := 0; r < i; r++ {
			a[r*n+i] = 0
		}
	}
}

// symmetricFrom is the symmetric n×n matrix the lower (or upper) triangle
// of a holds.
func symmetricFrom(ws *lapackWork, a []float64, n int, lower bool) []float64 {
	s := ws.floats(n * n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if lower == (j <= i) {
				s[i*n+j], s[j*n+i] = a[i*n+j], a[i*n+j]
			}
		}
	}
	return s
}

// symmetricEigen returns the eigenvalues of the symmetric n×n s, ascending,
// and unit eigenvectors in the columns of an n×n matrix (each one's
// largest component positive), by cyclic Jacobi rotations.
func symmetricEigen(ws *lapackWork, s []float64, n int) ([]float64, []float64) {
	v := ws.floats(n * n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				off += s[i*n+j] * s[i*n+j]
			}
		}
		if off == 0 || math.IsNaN(off) {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if s[p*n+q] == 0 {
					continue
				}
				theta := (s[q*n+q] - s[p*n+p]) / (2 * s[p*n+q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if math.IsInf(theta, 0) {
					t = 0
				}
				c := 1 / math.Sqrt(t*t+1)
				sn := t * c
				for r := 0; r < n; r++ { // columns p and q
					sp, sq := s[r*n+p], s[r*n+q]
					s[r*n+p], s[r*n+q] = c*sp-sn*sq, sn*sp+c*sq
				}
				for r := 0; r < n; r++ { // rows p and q
					sp, sq := s[p*n+r], s[q*n+r]
					s[p*n+r], s[q*n+r] = c*sp-sn*sq, sn*sp+c*sq
				}
				for r := 0; r < n; r++ {
					vp, vq := v[r*n+p], v[r*n+q]
					v[r*n+p], v[r*n+q] = c*vp-sn*vq, sn*vp+c*vq
				}
			}
		}
	}
	order := ws.ints(n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return ascending(s[x*n+x], s[y*n+y]) })
	w := ws.floats(n)
	vs := ws.floats(n * n)
	for c, o := range order {
		w[c] = s[o*n+o]
		big := 0
		for r := 0; r < n; r++ {
			if math.Abs(v[r*n+o]) > math.Abs(v[big*n+o]) {
				big = r
			}
		}
		sign := math.Copysign(1, v[big*n+o])
		for r := 0; r < n; r++ {
			vs[r*n+c] = sign * v[r*n+o]
		}
	}
	return w, vs
}

// ascending orders a before b when a < b (a NaN is neither before nor after
// anything).
func ascending(a, b float64) int {
	switch {
	case a < b:
		return -1
	case b < a:
		return 1
	}
	return 0
}

// svd returns the singular values of the m×n a (descending), U's first
// min(m, n) columns (m×k, row-major) and Vᵀ's first rows (k×n), from the
// eigen-decomposition of AᵀA or AAᵀ refined by one-sided Jacobi
// rotations on the columns.
func svd(ws *lapackWork, a []float64, m, n int) (s, u, vt []float64) {
	k := min(m, n)
	// One-sided Jacobi on the columns of W = A (or Aᵀ when m < n), so that
	// W·V has orthogonal columns whose norms are the singular values.
	tr := m < n
	rows, cols := m, n
	w := ws.floats(m * n)
	if tr {
		rows, cols = n, m
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				w[j*m+i] = a[i*n+j]
			}
		}
	} else {
		copy(w, a)
	}
	v := ws.floats(cols * cols)
	for i := 0; i < cols; i++ {
		v[i*cols+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		rotated := false
		for p := 0; p < cols; p++ {
			for q := p + 1; q < cols; q++ {
				alpha, beta, gamma := 0.0, 0.0, 0.0
				for r := 0; r < rows; r++ {
					x, y := w[r*cols+p], w[r*cols+q]
					alpha += x * x
					beta += y * y
					gamma += x * y
				}
				if gamma == 0 || math.Abs(gamma) <= 1e-15*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				zeta := (beta - alpha) / (2 * gamma)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				c := 1 / math.Sqrt(1+t*t)
				sn := c * t
				for r := 0; r < rows; r++ {
					x, y := w[r*cols+p], w[r*cols+q]
					w[r*cols+p], w[r*cols+q] = c*x-sn*y, sn*x+c*y
				}
				for r := 0; r < cols; r++ {
					x, y := v[r*cols+p], v[r*cols+q]
					v[r*cols+p], v[r*cols+q] = c*x-sn*y, sn*x+c*y
				}
			}
		}
		if !rotated {
			break
		}
	}
	norms := ws.floats(cols)
	order := ws.ints(cols)
	for c := 0; c < cols; c++ {
		order[c] = c
		for r := 0; r < rows; r++ {
			norms[c] = math.Hypot(norms[c], w[r*cols+c])
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return ascending(norms[y], norms[x]) })
	s = ws.floats(k)
	left := ws.floats(rows * k) // W's normalized columns
	right := ws.floats(cols * k)
	for c, o := range order[:k] {
		s[c] = norms[o]
		big := 0
		for r := 0; r < cols; r++ {
			if math.Abs(v[r*cols+o]) > math.Abs(v[big*cols+o]) {
				big = r
			}
		}
		sign := math.Copysign(1, v[big*cols+o])
		for r := 0; r < cols; r++ {
			right[r*k+c] = sign * v[r*cols+o]
		}
		for r := 0; r < rows; r++ {
			if norms[o] > 0 {
				left[r*k+c] = sign * w[r*cols+o] / norms[o]
			}
		}
	}
	// A = U·S·Vᵀ: without the transpose, U is W's side; with it, the roles
	// swap. vt is k×n row-major, u m×k.
	if tr {
		left, right = right, left
	}
	u = left
	vt = ws.floats(k * n)
	for r := 0; r < n; r++ {
		for c := 0; c < k; c++ {
			vt[c*n+r] = right[r*k+c]
		}
	}
	return s, u, vt
}

// completeColumns extends the m×k matrix with orthonormal columns to an
// m×m orthogonal one (Gram–Schmidt against the unit vectors).
func completeColumns(ws *lapackWork, u []float64, m, k int) []float64 {
	out := ws.floats(m * m)
	for r := 0; r < m; r++ {
		copy(out[r*m:r*m+k], u[r*k:r*k+k])
	}
	col := k
	x := ws.floats(m)
	for e := 0; e < m && col < m; e++ {
		clear(x)
		x[e] = 1
		for pass := 0; pass < 2; pass++ {
			for c := 0; c < col; c++ {
				d := 0.0
				for r := 0; r < m; r++ {
					d += out[r*m+c] * x[r]
				}
				for r := 0; r < m; r++ {
					x[r] -= d * out[r*m+c]
				}
			}
		}
		norm := 0.0
		for _, v := range x {
			norm = math.Hypot(norm, v)
		}
		if norm < 1e-8 {
			continue
		}
		for r := 0; r < m; r++ {
			out[r*m+col] = x[r] / norm
		}
		col++
	}
	return out
}

// completeRows is completeColumns for the rows of a k×n matrix.
func completeRows(ws *lapackWork, vt []float64, k, n int) []float64 {
	t := ws.floats(n * k)
	for r := 0; r < k; r++ {
		for c := 0; c < n; c++ {
			t[c*k+r] = vt[r*n+c]
		}
	}
	full := completeColumns(ws, t, n, k)
	out := ws.floats(n * n)
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			out[c*n+r] = full[r*n+c]
		}
	}
	return out
}
