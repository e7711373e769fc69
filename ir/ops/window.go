package ops

// Windows: reduce-window and select-and-scatter over strided, padded and
// dilated windows. For each output position the window's base elements are
// listed in window order (row-major over the window dimensions), skipping
// those on padding or between base-dilated elements — they contribute
// nothing, not an init value (XLA's HloEvaluator).

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// MaxWindowElems bounds the elements of one window (its position list
// lives in the caller's work memory).
const MaxWindowElems = 1 << 24

// Window maps each output position of a windowed op to the base elements
// its window covers.
type Window struct {
	Base    []int        // base (operand) dimensions
	Out     []int        // output dimensions
	taps    [][]tapRange // taps[d][o]: base indices along d for output index o, in window order
	strides []int        // base strides
	// MaxElems bounds the elements of one window.
	MaxElems int
}

// NormalizeWindowDim fills the defaults (1) of a window dimension's stride
// and dilations.
func NormalizeWindowDim(w ir.WindowDim) ir.WindowDim {
	if w.Stride == 0 {
		w.Stride = 1
	}
	if w.BaseDilation == 0 {
		w.BaseDilation = 1
	}
	if w.WindowDilation == 0 {
		w.WindowDilation = 1
	}
	return w
}

// CheckWindowDim rejects a window dimension that is not well formed.
func CheckWindowDim(i int, w ir.WindowDim) error {
	switch {
	case w.Size < 0:
		return fmt.Errorf("window dimension %d has negative size %d", i, w.Size)
	case w.Stride < 1:
		return fmt.Errorf("window dimension %d has stride %d, expected at least 1", i, w.Stride)
	case w.BaseDilation < 1 || w.WindowDilation < 1:
		return fmt.Errorf("window dimension %d has dilation lhs=%d rhs=%d, expected at least 1", i, w.BaseDilation, w.WindowDilation)
	}
	return nil
}

// Dilated is the size of n elements with d-1 holes between neighbours.
func Dilated(n, d int) int {
	if n <= 0 {
		return 0
	}
	return (n-1)*d + 1
}

// WindowCount is the number of positions of a window of (dilated) size w
// moved by stride over a (padded, dilated) base of size b.
func WindowCount(b, w, stride int) int {
	if b < w || b < 0 {
		return 0
	}
	return (b-w)/stride + 1
}

// NewWindow plans window w over a base of dimensions base.
func NewWindow(w *ir.Window, base []int) (*Window, error) {
	if w == nil || len(w.Dims) != len(base) {
		n := 0
		if w != nil {
			n = len(w.Dims)
		}
		return nil, fmt.Errorf("window has %d dimensions, the operand has rank %d", n, len(base))
	}
	if len(base) > MaxRank {
		return nil, fmt.Errorf("window of rank %d, above the limit of %d", len(base), MaxRank)
	}
	p := &Window{Base: slices.Clone(base), Out: make([]int, len(base)), taps: make([][]tapRange, len(base)), strides: Strides(base), MaxElems: 1}
	for d, wd := range w.Dims {
		wd = NormalizeWindowDim(wd)
		if err := CheckWindowDim(d, wd); err != nil {
			return nil, err
		}
		if wd.Reversal {
			return nil, fmt.Errorf("window dimension %d is reversed; only convolution windows may be", d)
		}
		padded := Dilated(base[d], wd.BaseDilation) + wd.PadLow + wd.PadHigh
		if padded < 0 {
			return nil, fmt.Errorf("window dimension %d: padding %d_%d leaves a negative size", d, wd.PadLow, wd.PadHigh)
		}
		p.Out[d] = WindowCount(padded, Dilated(wd.Size, wd.WindowDilation), wd.Stride)
		p.taps[d] = make([]tapRange, p.Out[d])
		for o := range p.taps[d] {
			p.taps[d][o] = windowTaps(o*wd.Stride-wd.PadLow, wd, base[d])
		}
		p.MaxElems *= max(wd.Size, 1)
		if p.MaxElems > MaxWindowElems {
			return nil, fmt.Errorf("window of more than %d elements", MaxWindowElems)
		}
	}
	return p, nil
}

// WorkBytes is the work memory a walk over the windows needs (the position
// list of one window).
func (p *Window) WorkBytes() int { return p.MaxElems * 8 }

// Elements writes the base positions of the window of output position opos
// (window order) into buf and returns them.
func (p *Window) Elements(opos []int, buf []int64) []int64 {
	rank := len(p.Out)
	if rank == 0 {
		buf[0] = 0
		return buf[:1]
	}
	var tap [MaxRank]int
	for d := 0; d < rank; d++ {
		if p.taps[d][opos[d]].n == 0 {
			return buf[:0]
		}
	}
	n := 0
	for {
		lin := 0
		for d := 0; d < rank; d++ {
			t := p.taps[d][opos[d]]
			lin += (t.first + tap[d]*t.step) * p.strides[d]
		}
		buf[n] = int64(lin)
		n++
		d := rank - 1
		for ; d >= 0; d-- {
			tap[d]++
			if tap[d] < p.taps[d][opos[d]].n {
				break
			}
			tap[d] = 0
		}
		if d < 0 {
			return buf[:n]
		}
	}
}

// tapRange is the base indices a window covers along one dimension for one
// output index, in window order: n indices from first, step apart.
type tapRange struct{ first, step, n int }

// windowTaps returns the taps along a dimension of size base of the window
// wd whose first element lies at padded, dilated position u0: window
// element k lies at u0 + k·dilation, a base element where that is a
// multiple of the base dilation inside the base. They form a progression:
// the k of one residue modulo bd/gcd(dilation, bd).
func windowTaps(u0 int, wd ir.WindowDim, base int) tapRange {
	wdil, bd := wd.WindowDilation, wd.BaseDilation
	period := bd / gcd(wdil, bd) // k and k+period land on base elements alike
	for k0 := 0; k0 < min(period, wd.Size); k0++ {
		u := u0 + k0*wdil
		if ((u%bd)+bd)%bd != 0 {
			continue
		}
		// Window elements k0 + j·period, j ≥ 0, at base index
		// (u + j·period·wdil)/bd = u/bd + j·step.
		step := period * wdil / bd
		count := (wd.Size - k0 + period - 1) / period
		b0 := floorDiv(u, bd)
		lo := 0
		if b0 < 0 {
			lo = (-b0 + step - 1) / step
		}
		hi := count
		if last := base - 1 - b0; last < 0 {
			hi = 0
		} else {
			hi = min(hi, last/step+1)
		}
		if hi <= lo {
			return tapRange{}
		}
		return tapRange{first: b0 + lo*step, step: step, n: hi - lo}
	}
	return tapRange{}
}

// floorDiv is a/b rounded toward -∞ (b > 0).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// gcd is the greatest common divisor of two positive integers.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ReduceWindowPlan folds each window of N operands onto the init values.
type ReduceWindowPlan struct {
	N     int
	Types []ir.ElementType // the operands'
	// Inits are the init values' types, Out the results' (the reducer's).
	Inits, Out []ir.ElementType
	Window     *Window
	fold       *Reducer
	count      int
	scan       *windowScan // the window is a prefix along one dimension
	// tiled: a reducer that is neither standard nor recognised runs over
	// tiles of outputs, one window offset at a time, its scratch from
	// tileAt on.
	tiled  bool
	tileAt int
	dims   []ir.WindowDim // the window, normalised
	sizes  []int          // its sizes
}

// windowScan is a reduce-window whose window, along one dimension, covers
// every element up to the output's own (a cumulative sum, max, …: JAX's
// cumsum and friends lower to this) and is that one element along every
// other: each output is the previous one's fold with one more element, in
// the same order, so a running fold computes all of them in one pass
// instead of one window each (quadratic in the length).
type windowScan struct {
	outer, n, inner int // the lines: outer × inner of them, n elements inner apart
}

// prefixScan returns the scan a window plan is, or nil.
func (p *Window) prefixScan() *windowScan {
	d := -1
	for e, t := range p.taps {
		if p.Out[e] != p.Base[e] {
			return nil
		}
		single, prefix := true, true
		for o, r := range t {
			single = single && r.n == 1 && r.first == o
			prefix = prefix && r.first == 0 && r.n == o+1 && (r.n == 1 || r.step == 1)
		}
		switch {
		case single:
		case prefix && d < 0:
			d = e
		default:
			return nil
		}
	}
	if d < 0 || p.Base[d] < 2 {
		return nil
	}
	return &windowScan{outer: Count(p.Base[:d]), n: p.Base[d], inner: Count(p.Base[d+1:])}
}

// NewReduceWindow plans reduce-window of operands of types ts and
// dimensions dims onto init values of types inits, with window w and
// reducer f.
func NewReduceWindow(ts, inits []ir.ElementType, dims []int, w *ir.Window, f *Func) (*ReduceWindowPlan, error) {
	win, err := NewWindow(w, dims)
	if err != nil {
		return nil, err
	}
	p := &ReduceWindowPlan{N: len(ts), Types: ts, Inits: inits, Out: resultTypes(f, inits), Window: win, count: Count(win.Out)}
	fold, err := NewReducer(f, ts, inits)
	if err != nil {
		if p.count == 0 || win.MaxElems == 0 {
			return p, nil
		}
		return nil, err
	}
	p.fold = fold
	p.scan = win.prefixScan()
	if p.scan == nil && !fold.direct() && fold.arg == nil && fold.Fn.Tiled() {
		p.tiled, p.tileAt = true, roundUp(fold.ScratchBytes(), 64)
		for _, wd := range w.Dims {
			p.dims = append(p.dims, NormalizeWindowDim(wd))
			p.sizes = append(p.sizes, wd.Size)
		}
	}
	return p, nil
}

// Scan reports whether the plan runs as a prefix scan: along dimension
// with n elements, inner elements apart, for outer blocks.
func (p *ReduceWindowPlan) Scan() (outer, n, inner int, ok bool) {
	if p.scan == nil || p.fold == nil {
		return 0, 0, 0, false
	}
	return p.scan.outer, p.scan.n, p.scan.inner, true
}

// OutDims are the output dimensions.
func (p *ReduceWindowPlan) OutDims() []int { return p.Window.Out }

// Reducer is the plan's reducer (nil when it never runs).
func (p *ReduceWindowPlan) Reducer() *Reducer { return p.fold }

// ScratchBytes is the reducer's scratch Run needs.
func (p *ReduceWindowPlan) ScratchBytes() int {
	switch {
	case p.fold == nil:
		return 0
	case p.tiled:
		return p.tileAt + p.fold.Fn.TileBytes() + Tile*(8+WideBytes+1) + p.N*Tile*WideBytes
	}
	return p.fold.ScratchBytes()
}

// WorkBytes is the work memory Run needs (a window's position list).
func (p *ReduceWindowPlan) WorkBytes() int {
	if p.scan != nil || p.tiled {
		return 0 // no window's position list: a running fold, or the tiles'
	}
	return p.Window.WorkBytes()
}

// Run computes the outputs from the operands and the scalar init values.
func (p *ReduceWindowPlan) Run(ins, inits, outs [][]byte, scratch, work []byte) error {
	if p.fold == nil {
		fillInits(outs, p.Out, inits, p.Inits, p.count)
		return nil
	}
	f := p.fold
	if sc := p.scan; sc != nil {
		f.Begin(scratch)
		for o := 0; o < sc.outer; o++ {
			for i := 0; i < sc.inner; i++ {
				var acc Acc
				f.Start(scratch, &acc, inits, 0)
				if err := f.Scan(scratch, &acc, ins, outs, o*sc.n*sc.inner+i, sc.inner, sc.n); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if p.tiled {
		p.runTiled(ins, inits, outs, scratch)
		return nil
	}
	buf := Elems[int64](work[:p.Window.WorkBytes()])
	f.Begin(scratch)
	var opos [MaxRank]int
	rank := len(p.Window.Out)
	for o := 0; o < p.count; o++ {
		var acc Acc
		f.Start(scratch, &acc, inits, 0)
		if err := f.Fold(scratch, &acc, ins, p.Window.Elements(opos[:rank], buf)); err != nil {
			return err
		}
		f.Finish(scratch, &acc, outs, o)
		ir.NextIndex(p.Window.Out, opos[:rank])
	}
	return nil
}

// runTiled folds the windows of Tile outputs at a time with the reducer's
// program run over tiles: the accumulators start as the init values, then
// for each window offset, in window order, every output whose window has
// an element there folds it (the others keep their accumulators) — the
// same folds in the same order as window by window, a program run per
// offset and tile instead of per element.
func (p *ReduceWindowPlan) runTiled(ins, inits, outs [][]byte, scratch []byte) {
	f := p.fold
	fn := f.Fn
	n := f.N
	regs := scratch[p.tileAt : p.tileAt+fn.TileBytes()]
	rest := scratch[p.tileAt+fn.TileBytes():]
	pos := Elems[int64](rest[:Tile*8])
	raw := rest[Tile*8 : Tile*(8+WideBytes)]
	valid := rest[Tile*(8+WideBytes) : Tile*(8+WideBytes+1)]
	// The accumulators live apart from the program's registers, which a
	// run may reuse: loaded before each run, updated where an element was
	// folded.
	accs := rest[Tile*(8+WideBytes+1):]
	acc := func(i int) Reg { return RegAt(accs, i, Tile, Tile) }
	fn.LoadConstsTile(regs)
	rank := len(p.Window.Out)
	outStrides := Strides(p.Window.Out)
	var wk [MaxRank]int
	wsize := Count(p.sizes)
	for o0 := 0; o0 < p.count; o0 += Tile {
		m := min(Tile, p.count-o0)
		for i := 0; i < n; i++ {
			a := acc(i)
			LoadWide(a, 1, inits[i], f.Inits[i], 0)
			if f.Inits[i] != fn.ParamT[i] {
				RoundWide(a, fn.ParamT[i], 1)
			}
			FillWide(a, KindOf(fn.ParamT[i]), m)
		}
		for k := range wk[:rank] {
			wk[k] = 0
		}
		for range wsize {
			some := false
			for j := range m {
				lin, ok := 0, true
				o := o0 + j
				for d := 0; d < rank && ok; d++ {
					od := o / outStrides[d] % p.Window.Out[d]
					wd := p.dims[d]
					u := od*wd.Stride - wd.PadLow + wk[d]*wd.WindowDilation
					ok = u >= 0 && u%wd.BaseDilation == 0 && u/wd.BaseDilation < p.Window.Base[d]
					lin += u / wd.BaseDilation * p.Window.strides[d]
				}
				valid[j] = 0
				pos[j] = 0
				if ok {
					valid[j], pos[j] = 1, int64(lin)
					some = true
				}
			}
			if some {
				for i := 0; i < n; i++ {
					es := f.Types[i].ByteSize()
					GatherElements(raw[:m*es], ins[i], es, pos[:m])
					x := RegAt(regs, fn.params[n+i], Tile, m)
					LoadWide(x, m, raw, f.Types[i], 0)
					if f.Types[i] != fn.ParamT[n+i] {
						RoundWide(x, fn.ParamT[n+i], m)
					}
				}
				for i := 0; i < n; i++ {
					a := fn.params[i] * Tile * WideBytes
					copy(regs[a:a+m*WideBytes], accs[i*Tile*WideBytes:(i*Tile+m)*WideBytes])
				}
				fn.RunTile(regs, m)
				for i := 0; i < n; i++ {
					a, r := acc(i), RegAt(regs, fn.results[i], Tile, m)
					kind := KindOf(fn.ParamT[i])
					for j := range m {
						switch {
						case valid[j] == 0:
						case kind == KindFloat:
							a.F[j] = r.F[j]
						case kind == KindComplex:
							a.C[j] = r.C[j]
						default:
							a.I[j] = r.I[j]
						}
					}
				}
			}
			ir.NextIndex(p.sizes, wk[:rank])
		}
		for i := 0; i < n; i++ {
			StoreWide(outs[i], f.Acc[i], o0, RegAt(accs, i, Tile, m), m)
		}
	}
}

// SelectAndScatterPlan is select-and-scatter: the result starts as the
// init value everywhere; then, window by window in row-major order, one
// element of the operand's window is selected — the first in window order,
// replaced by each later element x unless select(current, x) is true, so
// with select = GE the first of equal maxima wins (XLA's HloEvaluator) —
// and the window's source value is combined into the result at that
// position with scatter(current, source). A window lying entirely on
// padding scatters nothing.
type SelectAndScatterPlan struct {
	T, ST  ir.ElementType // operand and source (result) types
	Window *Window
	sel    *Selector
	comb   *Combiner
	count  int
}

// NewSelectAndScatter plans select-and-scatter over an operand of type t
// and dimensions dims, a source of type st and dimensions sdims, with
// window w, select computation sel and scatter computation scatter.
func NewSelectAndScatter(t ir.ElementType, dims []int, st ir.ElementType, sdims []int, w *ir.Window, sel, scatter *Func) (*SelectAndScatterPlan, error) {
	win, err := NewWindow(w, dims)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(sdims, win.Out) {
		return nil, fmt.Errorf("source has dimensions %v, the window over the operand gives %v", sdims, win.Out)
	}
	p := &SelectAndScatterPlan{T: t, ST: st, Window: win, count: Count(win.Out)}
	if p.sel, err = NewSelector(sel, t); err != nil {
		return nil, err
	}
	if p.comb, err = NewCombiner(scatter, []ir.ElementType{st}); err != nil {
		return nil, err
	}
	return p, nil
}

// ScratchBytes is the computations' scratch Run needs.
func (p *SelectAndScatterPlan) ScratchBytes() int {
	return roundUp(p.sel.ScratchBytes(), 64) + p.comb.ScratchBytes()
}

// WorkBytes is the work memory Run needs (a window's position list).
func (p *SelectAndScatterPlan) WorkBytes() int { return p.Window.WorkBytes() }

// Run computes the result out from the operand, the source and the scalar
// init value.
func (p *SelectAndScatterPlan) Run(operand, source, init, out []byte, scratch, work []byte) error {
	es := p.ST.ByteSize()
	FillElements(out[:Count(p.Window.Base)*es], init[:es])
	selRegs := scratch
	combRegs := scratch[roundUp(p.sel.ScratchBytes(), 64):]
	buf := Elems[int64](work[:p.Window.WorkBytes()])
	p.sel.Begin(selRegs)
	p.comb.Begin(combRegs)
	cur, upd := [][]byte{out}, [][]byte{source}
	var opos [MaxRank]int
	rank := len(p.Window.Out)
	for o := 0; o < p.count; o++ {
		pos := p.Window.Elements(opos[:rank], buf)
		ir.NextIndex(p.Window.Out, opos[:rank])
		if len(pos) == 0 {
			continue
		}
		sel := int(pos[0])
		for _, x := range pos[1:] {
			keep, err := p.sel.Select(selRegs, operand, sel, int(x))
			if err != nil {
				return err
			}
			if !keep {
				sel = int(x)
			}
		}
		if err := p.comb.Apply(combRegs, cur, sel, upd, o); err != nil {
			return err
		}
	}
	return nil
}
