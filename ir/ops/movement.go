package ops

// Data movement: ops that rearrange elements without looking at their
// values. They see only element sizes (1, 2, 4, 8 or 16 bytes) and all
// reduce to one strided block copy (Strided) whose dimensions and strides
// a plan fixes; only dynamic start offsets are computed per run.
//
// Rules chosen where the specification leaves room, following XLA:
//   - dynamic-slice and dynamic-update-slice clamp each start index to
//     [0, operand_dim - size].
//   - broadcast also accepts an operand dimension of size 1 mapped to a
//     larger output dimension (broadcast_in_dim's degenerate broadcasting).
//   - pad with negative low or high padding cuts the operand.

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// Strided is a block copy: block index b reads source element
// SrcBase + Σ b[d]·Src[d] and writes destination element
// DstBase + Σ b[d]·Dst[d].
type Strided struct {
	ES       int // element bytes
	Dims     []int
	Dst, Src []int
	DstBase  int
	SrcBase  int
}

// NewStrided builds a block copy, merging dimensions both sides walk
// contiguously and dropping dimensions of size 1, so that the innermost run
// is as long as possible.
func NewStrided(es int, dims, dst, src []int, dstBase, srcBase int) Strided {
	s := Strided{ES: es, DstBase: dstBase, SrcBase: srcBase}
	for d, n := range dims {
		if n == 0 {
			return Strided{ES: es, Dims: []int{0}, Dst: []int{0}, Src: []int{0}}
		}
		if n == 1 {
			continue
		}
		if k := len(s.Dims) - 1; k >= 0 && s.Dst[k] == dst[d]*n && s.Src[k] == src[d]*n {
			s.Dims[k] *= n
			s.Dst[k], s.Src[k] = dst[d], src[d]
			continue
		}
		s.Dims = append(s.Dims, n)
		s.Dst = append(s.Dst, dst[d])
		s.Src = append(s.Src, src[d])
	}
	return s
}

// Count is the number of elements the copy moves.
func (s *Strided) Count() int { return Count(s.Dims) }

// Run copies from src to dst, with extra element offsets added to both
// bases.
func (s *Strided) Run(dst, src []byte, dstOff, srcOff int) { s.RunUntil(nil, dst, src, dstOff, srcOff) }

// RunUntil is Run polling stop between runs of the innermost dimension
// (see Stop).
func (s *Strided) RunUntil(stop Stop, dst, src []byte, dstOff, srcOff int) {
	db, sb := s.DstBase+dstOff, s.SrcBase+srcOff
	var poll *poller
	if stop != nil && len(s.Dims) > 0 {
		p := newPoller(stop, s.Dims[len(s.Dims)-1])
		poll = &p
	}
	switch s.ES {
	case 1:
		stridedCopy(poll, dst, src, s.Dims, s.Dst, s.Src, db, sb)
	case 2:
		stridedCopy(poll, Elems[uint16](dst), Elems[uint16](src), s.Dims, s.Dst, s.Src, db, sb)
	case 4:
		stridedCopy(poll, Elems[uint32](dst), Elems[uint32](src), s.Dims, s.Dst, s.Src, db, sb)
	case 8:
		stridedCopy(poll, Elems[uint64](dst), Elems[uint64](src), s.Dims, s.Dst, s.Src, db, sb)
	case 16:
		stridedCopy(poll, Elems[[2]uint64](dst), Elems[[2]uint64](src), s.Dims, s.Dst, s.Src, db, sb)
	default:
		panic(fmt.Sprintf("ops: strided copy of %d-byte elements", s.ES))
	}
}

// stridedCopy walks the block in row-major order, the innermost dimension
// as one run (a copy when both sides are contiguous, a fill when the source
// repeats one element), polling poll (when not nil) before each run.
func stridedCopy[T any](poll *poller, dst, src []T, dims, ds, ss []int, db, sb int) {
	rank := len(dims)
	if rank == 0 {
		dst[db] = src[sb]
		return
	}
	for _, n := range dims {
		if n == 0 {
			return
		}
	}
	inner := dims[rank-1]
	di, si := ds[rank-1], ss[rank-1]
	var idx [MaxRank]int
	d, s := db, sb
	for {
		if poll != nil && poll.stopped() {
			return
		}
		switch {
		case di == 1 && si == 1:
			copy(dst[d:d+inner], src[s:s+inner])
		case di == 1 && si == 0:
			v := src[s]
			row := dst[d : d+inner]
			for j := range row {
				row[j] = v
			}
		default:
			for j, dj, sj := 0, d, s; j < inner; j, dj, sj = j+1, dj+di, sj+si {
				dst[dj] = src[sj]
			}
		}
		k := rank - 2
		for ; k >= 0; k-- {
			idx[k]++
			d += ds[k]
			s += ss[k]
			if idx[k] < dims[k] {
				break
			}
			d -= dims[k] * ds[k]
			s -= dims[k] * ss[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

func checkRank(what string, rank int) error {
	if rank > MaxRank {
		return fmt.Errorf("%s of rank %d, above the limit of %d", what, rank, MaxRank)
	}
	return nil
}

// CheckPermutation reports whether perm is a permutation of 0..rank-1.
func CheckPermutation(perm []int, rank int, what string) error {
	if len(perm) != rank {
		return fmt.Errorf("%s %v has %d entries, expected %d (the operand's rank)", what, perm, len(perm), rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			return fmt.Errorf("%s %v is not a permutation of 0..%d", what, perm, rank-1)
		}
		seen[p] = true
	}
	return nil
}

// Transpose plans transpose of an array of dims with permutation perm
// (output dimension i is operand dimension perm[i]); it returns the copy
// and the output dimensions.
func Transpose(es int, dims, perm []int) (Strided, []int, error) {
	if err := checkRank("transpose", len(dims)); err != nil {
		return Strided{}, nil, err
	}
	if err := CheckPermutation(perm, len(dims), "permutation"); err != nil {
		return Strided{}, nil, err
	}
	xs := Strides(dims)
	out := make([]int, len(perm))
	src := make([]int, len(perm))
	for i, d := range perm {
		out[i], src[i] = dims[d], xs[d]
	}
	return NewStrided(es, out, Strides(out), src, 0, 0), out, nil
}

// Broadcast plans broadcast of an array of dims into out, operand
// dimension i becoming output dimension bdims[i].
func Broadcast(es int, dims, out, bdims []int) (Strided, error) {
	if err := checkRank("broadcast", len(out)); err != nil {
		return Strided{}, err
	}
	if len(bdims) != len(dims) {
		return Strided{}, fmt.Errorf("dimensions=%v has %d entries for an operand of rank %d", bdims, len(bdims), len(dims))
	}
	xs := Strides(dims)
	src := make([]int, len(out))
	for i, d := range bdims {
		if d < 0 || d >= len(out) || slices.Contains(bdims[:i], d) {
			return Strided{}, fmt.Errorf("dimensions=%v must be distinct output dimensions below %d", bdims, len(out))
		}
		switch dims[i] {
		case out[d]:
			src[d] = xs[i]
		case 1: // degenerate: repeated along the output dimension
		default:
			return Strided{}, fmt.Errorf("operand dimension %d has size %d, output dimension %d has size %d", i, dims[i], d, out[d])
		}
	}
	return NewStrided(es, out, Strides(out), src, 0, 0), nil
}

// Slice plans slice of an array of dims; it returns the copy and the output
// dimensions.
func Slice(es int, dims []int, sl []ir.SliceDim) (Strided, []int, error) {
	if err := checkRank("slice", len(dims)); err != nil {
		return Strided{}, nil, err
	}
	if len(sl) != len(dims) {
		return Strided{}, nil, fmt.Errorf("slice has %d dimensions for an operand of rank %d", len(sl), len(dims))
	}
	xs := Strides(dims)
	out := make([]int, len(dims))
	src := make([]int, len(dims))
	base := 0
	for i, s := range sl {
		if s.Start < 0 || s.Limit < s.Start || s.Limit > dims[i] || s.Stride < 1 {
			return Strided{}, nil, fmt.Errorf("slice [%d:%d:%d] is invalid for dimension %d of size %d", s.Start, s.Limit, s.Stride, i, dims[i])
		}
		out[i] = (s.Limit - s.Start + s.Stride - 1) / s.Stride
		src[i] = xs[i] * s.Stride
		if out[i] > 0 {
			base += s.Start * xs[i]
		}
	}
	return NewStrided(es, out, Strides(out), src, 0, base), out, nil
}

// Reverse plans reverse of an array of dims along rdims.
func Reverse(es int, dims, rdims []int) (Strided, error) {
	if err := checkRank("reverse", len(dims)); err != nil {
		return Strided{}, err
	}
	if err := CheckDims("reverse", rdims, len(dims)); err != nil {
		return Strided{}, err
	}
	src := Strides(dims)
	base := 0
	for _, d := range rdims {
		base += (dims[d] - 1) * src[d]
		src[d] = -src[d]
	}
	if Count(dims) == 0 {
		base = 0
	}
	return NewStrided(es, dims, Strides(dims), src, 0, base), nil
}

// PadPlan fills the output with the padding value, then copies the part of
// the operand that lands inside it: operand element j of dimension i lands
// at Low + j·(Interior+1).
type PadPlan struct {
	ES      int
	OutDims []int
	Copy    Strided
	Empty   bool // nothing of the operand survives
}

// Pad plans pad of an array of dims.
func Pad(es int, dims []int, padding []ir.PaddingDim) (*PadPlan, error) {
	if err := checkRank("pad", len(dims)); err != nil {
		return nil, err
	}
	if len(padding) != len(dims) {
		return nil, fmt.Errorf("padding has %d dimensions for an operand of rank %d", len(padding), len(dims))
	}
	p := &PadPlan{ES: es, OutDims: make([]int, len(dims))}
	for i, pd := range padding {
		if pd.Interior < 0 {
			return nil, fmt.Errorf("interior padding %d of dimension %d is negative", pd.Interior, i)
		}
		n := dims[i]
		if n > 0 {
			n += (n - 1) * pd.Interior
		}
		p.OutDims[i] = pd.Low + n + pd.High
		if p.OutDims[i] < 0 {
			return nil, fmt.Errorf("padding %d_%d_%d of dimension %d of size %d gives a negative size", pd.Low, pd.High, pd.Interior, i, dims[i])
		}
	}
	os, xs := Strides(p.OutDims), Strides(dims)
	block := make([]int, len(dims))
	dst := make([]int, len(dims))
	dstBase, srcBase := 0, 0
	for i, pd := range padding {
		step := pd.Interior + 1
		lo := 0
		if pd.Low < 0 {
			lo = (-pd.Low + step - 1) / step
		}
		hi := dims[i]
		if last := p.OutDims[i] - 1 - pd.Low; last < 0 {
			hi = 0
		} else {
			hi = min(hi, last/step+1)
		}
		if hi <= lo {
			p.Empty = true
			return p, nil
		}
		block[i] = hi - lo
		dst[i] = os[i] * step
		dstBase += (pd.Low + lo*step) * os[i]
		srcBase += lo * xs[i]
	}
	p.Copy = NewStrided(es, block, dst, xs, dstBase, srcBase)
	return p, nil
}

// Run pads operand x with the padding value (one element, of the output's
// type) into out.
func (p *PadPlan) Run(out, x, value []byte) {
	FillElements(out[:Count(p.OutDims)*p.ES], value[:p.ES])
	if !p.Empty {
		p.Copy.Run(out, x, 0, 0)
	}
}

// Concatenate plans concatenate of arrays of dims along dimension d; it
// returns one copy per operand and the output dimensions.
func Concatenate(es int, dims [][]int, d int) ([]Strided, []int, error) {
	if len(dims) == 0 {
		return nil, nil, fmt.Errorf("concatenate needs at least one operand")
	}
	first := dims[0]
	if err := checkRank("concatenate", len(first)); err != nil {
		return nil, nil, err
	}
	if d < 0 || d >= len(first) {
		return nil, nil, fmt.Errorf("concatenation dimension %d is out of range for rank %d", d, len(first))
	}
	out := slices.Clone(first)
	out[d] = 0
	for i, od := range dims {
		if len(od) != len(first) {
			return nil, nil, fmt.Errorf("operand %d has rank %d, operand 0 rank %d", i, len(od), len(first))
		}
		for k := range od {
			if k != d && od[k] != first[k] {
				return nil, nil, fmt.Errorf("operand %d has dimensions %v, operand 0 %v: dimension %d differs", i, od, first, k)
			}
		}
		out[d] += od[d]
	}
	os := Strides(out)
	parts := make([]Strided, len(dims))
	offset := 0
	for i, od := range dims {
		parts[i] = NewStrided(es, od, os, Strides(od), offset*os[d], 0)
		offset += od[d]
	}
	return parts, out, nil
}

// IotaRow returns the values 0, 1, …, n-1 converted to type t (as an S64
// iota converts): the row an iota broadcasts.
func IotaRow(t ir.ElementType, n int) []byte {
	es := t.ByteSize()
	row := make([]byte, max(n, 1)*es)
	var x [1]int64
	for i := 0; i < n; i++ {
		x[0] = int64(i)
		ir.ConvertElement(row[i*es:], t, unsafeBytes(x[:]), ir.S64)
	}
	return row
}

// Iota plans iota over dims along dimension d for element type t: the copy
// broadcasts the row IotaRow returns.
func Iota(t ir.ElementType, dims []int, d int) (Strided, []byte, error) {
	if err := checkRank("iota", len(dims)); err != nil {
		return Strided{}, nil, err
	}
	if d < 0 || d >= len(dims) {
		return Strided{}, nil, fmt.Errorf("iota_dimension %d is out of range for rank %d", d, len(dims))
	}
	if !t.IsArray() || t == ir.TOKEN {
		return Strided{}, nil, fmt.Errorf("iota of element type %v", t)
	}
	src := make([]int, len(dims))
	src[d] = 1
	return NewStrided(t.ByteSize(), dims, Strides(dims), src, 0, 0), IotaRow(t, dims[d]), nil
}

// Starts reads the start indices of dynamic-slice and
// dynamic-update-slice: one scalar operand per dimension, or (the old
// form) a single rank-1 operand holding them all.
type Starts struct {
	Types  []ir.ElementType
	Vector bool
}

// NewStarts checks the start index operands (their shapes) for an operand
// of rank `rank`.
func NewStarts(shapes []ir.Shape, rank int) (Starts, error) {
	var s Starts
	switch {
	case len(shapes) == rank:
		for i, sh := range shapes {
			if !sh.IsScalar() || !sh.Elem.IsInteger() {
				return s, fmt.Errorf("start index %d has shape %v, expected an integer scalar", i, sh)
			}
		}
	case len(shapes) == 1 && shapes[0].Rank() == 1 && shapes[0].Dims[0] == rank && shapes[0].Elem.IsInteger():
		s.Vector = true
	default:
		return s, fmt.Errorf("found %d start index operands, expected %d integer scalars (one per dimension)", len(shapes), rank)
	}
	for _, sh := range shapes {
		s.Types = append(s.Types, sh.Elem)
	}
	return s, nil
}

// Offset returns Σ clamp(start[d], 0, dims[d]-sizes[d])·strides[d] for the
// start index operands idx.
func (s *Starts) Offset(idx [][]byte, dims, sizes, strides []int) int {
	off := 0
	for d := range dims {
		var v int64
		if s.Vector {
			v = IndexAt(idx[0], s.Types[0], d)
		} else {
			v = IndexAt(idx[d], s.Types[d], 0)
		}
		off += int(min(max(v, 0), int64(dims[d]-sizes[d]))) * strides[d]
	}
	return off
}

// DynamicSlicePlan copies the block at the clamped start indices.
type DynamicSlicePlan struct {
	Dims, Sizes []int
	Starts      Starts
	strides     []int
	copy        Strided
}

// DynamicSlice plans dynamic-slice of an array of dims (elements of es
// bytes) with slice sizes and start index operands of the given shapes.
func DynamicSlice(es int, dims, sizes []int, starts []ir.Shape) (*DynamicSlicePlan, error) {
	if err := checkRank("dynamic-slice", len(dims)); err != nil {
		return nil, err
	}
	if len(sizes) != len(dims) {
		return nil, fmt.Errorf("dynamic_slice_sizes=%v has %d entries for an operand of rank %d", sizes, len(sizes), len(dims))
	}
	for i, s := range sizes {
		if s < 0 || s > dims[i] {
			return nil, fmt.Errorf("slice size %d is out of range for dimension %d of size %d", s, i, dims[i])
		}
	}
	st, err := NewStarts(starts, len(dims))
	if err != nil {
		return nil, err
	}
	xs := Strides(dims)
	return &DynamicSlicePlan{Dims: dims, Sizes: sizes, Starts: st, strides: xs,
		copy: NewStrided(es, sizes, Strides(sizes), xs, 0, 0)}, nil
}

// Run copies the slice of x at the start indices idx into out.
func (p *DynamicSlicePlan) Run(out, x []byte, idx [][]byte) {
	if p.copy.Count() == 0 {
		return
	}
	p.copy.Run(out, x, 0, p.Starts.Offset(idx, p.Dims, p.Sizes, p.strides))
}

// DynamicUpdateSlicePlan copies the operand, then the update over it at the
// clamped start indices.
type DynamicUpdateSlicePlan struct {
	Dims, Sizes []int
	Starts      Starts
	ES          int
	strides     []int
	copy        Strided
}

// DynamicUpdateSlice plans dynamic-update-slice of an array of dims with an
// update of dimensions udims.
func DynamicUpdateSlice(es int, dims, udims []int, starts []ir.Shape) (*DynamicUpdateSlicePlan, error) {
	if err := checkRank("dynamic-update-slice", len(dims)); err != nil {
		return nil, err
	}
	if len(udims) != len(dims) {
		return nil, fmt.Errorf("update has rank %d, operand rank %d", len(udims), len(dims))
	}
	for i := range udims {
		if udims[i] > dims[i] {
			return nil, fmt.Errorf("update dimension %d has size %d, larger than the operand's %d", i, udims[i], dims[i])
		}
	}
	st, err := NewStarts(starts, len(dims))
	if err != nil {
		return nil, err
	}
	xs := Strides(dims)
	return &DynamicUpdateSlicePlan{Dims: dims, Sizes: udims, Starts: st, ES: es, strides: xs,
		copy: NewStrided(es, udims, xs, Strides(udims), 0, 0)}, nil
}

// Run writes x with the update u at the start indices idx into out (out
// may be x itself).
func (p *DynamicUpdateSlicePlan) Run(out, x, u []byte, idx [][]byte) {
	if n := Count(p.Dims) * p.ES; n > 0 && &out[0] != &x[0] {
		copy(out[:n], x[:n])
	}
	if p.copy.Count() == 0 {
		return
	}
	p.copy.Run(out, u, p.Starts.Offset(idx, p.Dims, p.Sizes, p.strides), 0)
}
