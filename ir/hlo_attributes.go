package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds the small grammars of typed attribute values in HLO text,
// each with its printer in XLA's spelling: windows, dim_labels, dot and
// gather/scatter dimension numbers, padding, slices, replica groups, the
// enumerations, and integer lists.

// String prints the window as XLA does inside `window={…}`:
// `size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=… rhs_dilate=… rhs_reversal=…`,
// each field after size only when some dimension differs from the default.
func (w Window) String() string {
	var b strings.Builder
	field := func(name string, show bool, f func(d WindowDim) string) {
		if !show {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		b.WriteByte('=')
		for i, d := range w.Dims {
			if i > 0 {
				b.WriteByte('x')
			}
			b.WriteString(f(d))
		}
	}
	anyDim := func(p func(d WindowDim) bool) bool {
		for _, d := range w.Dims {
			if p(d) {
				return true
			}
		}
		return false
	}
	if len(w.Dims) == 0 {
		return ""
	}
	field("size", true, func(d WindowDim) string { return strconv.Itoa(d.Size) })
	field("stride", anyDim(func(d WindowDim) bool { return d.Stride != 1 }),
		func(d WindowDim) string { return strconv.Itoa(d.Stride) })
	field("pad", anyDim(func(d WindowDim) bool { return d.PadLow != 0 || d.PadHigh != 0 }),
		func(d WindowDim) string { return strconv.Itoa(d.PadLow) + "_" + strconv.Itoa(d.PadHigh) })
	field("lhs_dilate", anyDim(func(d WindowDim) bool { return d.BaseDilation != 1 }),
		func(d WindowDim) string { return strconv.Itoa(d.BaseDilation) })
	field("rhs_dilate", anyDim(func(d WindowDim) bool { return d.WindowDilation != 1 }),
		func(d WindowDim) string { return strconv.Itoa(d.WindowDilation) })
	field("rhs_reversal", anyDim(func(d WindowDim) bool { return d.Reversal }),
		func(d WindowDim) string {
			if d.Reversal {
				return "1"
			}
			return "0"
		})
	return b.String()
}

// ParseWindow parses a window as written in `window={…}`, with or without
// the braces: `size=3x3 stride=2x2 pad=1_1x1_1`.
func ParseWindow(text string) (*Window, error) {
	s := &hloScanner{src: text}
	braced := s.accept('{')
	w, err := s.windowBody(braced)
	if err != nil {
		return nil, err
	}
	if !s.atEOF() {
		return nil, s.errorf("expected end of window, found %s", s.found())
	}
	return w, nil
}

// window reads `{size=… …}`.
func (s *hloScanner) window() (*Window, error) {
	if err := s.expect('{', "to open window"); err != nil {
		return nil, err
	}
	return s.windowBody(true)
}

func (s *hloScanner) windowBody(braced bool) (*Window, error) {
	start := s.pos
	fields := map[string][]string{}
	fieldPos := map[string]int{}
	for {
		if braced && s.accept('}') {
			break
		}
		if !braced && s.atEOF() {
			break
		}
		keyPos := s.pos
		key := s.ident()
		switch key {
		case "size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal":
		case "":
			return nil, s.errorf("expected window field (size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal) or '}', found %s", s.found())
		default:
			return nil, s.errorAt(keyPos, "unknown window field %q (expected size, stride, pad, lhs_dilate, rhs_dilate or rhs_reversal)", key)
		}
		if _, dup := fields[key]; dup {
			return nil, s.errorAt(keyPos, "window field %s given twice", key)
		}
		if err := s.expect('=', "after window field "+key); err != nil {
			return nil, err
		}
		s.skipSpace()
		fieldPos[key] = s.pos
		v := s.word()
		if v == "" {
			return nil, s.errorf("expected value of window field %s, found %s", key, s.found())
		}
		fields[key] = strings.Split(v, "x")
	}
	w := &Window{}
	if len(fields) == 0 {
		return w, nil
	}
	size, ok := fields["size"]
	if !ok {
		return nil, s.errorAt(start, "window has no size field")
	}
	w.Dims = make([]WindowDim, len(size))
	for i := range w.Dims {
		w.Dims[i] = WindowDim{Stride: 1, WindowDilation: 1, BaseDilation: 1}
	}
	for _, key := range []string{"size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"} {
		parts, ok := fields[key]
		if !ok {
			continue
		}
		pos := fieldPos[key]
		if len(parts) != len(size) {
			return nil, s.errorAt(pos, "window field %s has %d dimensions, size has %d", key, len(parts), len(size))
		}
		for i, p := range parts {
			d := &w.Dims[i]
			if key == "pad" {
				lo, hi, ok := strings.Cut(p, "_")
				l, err1 := strconv.Atoi(lo)
				h, err2 := strconv.Atoi(hi)
				if !ok || err1 != nil || err2 != nil {
					return nil, s.errorAt(pos, "expected window padding low_high, found %q", p)
				}
				d.PadLow, d.PadHigh = l, h
				continue
			}
			v, err := strconv.Atoi(p)
			if err != nil {
				return nil, s.errorAt(pos, "expected integer in window field %s, found %q", key, p)
			}
			switch key {
			case "size":
				d.Size = v
			case "stride":
				d.Stride = v
			case "lhs_dilate":
				d.BaseDilation = v
			case "rhs_dilate":
				d.WindowDilation = v
			case "rhs_reversal":
				if v != 0 && v != 1 {
					return nil, s.errorAt(pos, "expected 0 or 1 in window field rhs_reversal, found %q", p)
				}
				d.Reversal = v == 1
			}
		}
	}
	return w, nil
}

// String prints the dimension numbers as XLA's dim_labels: `b01f_01io->b01f`
// (a position no dimension names, as XLA allows, prints as '?').
func (d ConvDimensionNumbers) String() string {
	label := func(rank int, set func(put func(pos int, c string))) string {
		// Positions the numbers do not name print as '?'.
		set(func(pos int, c string) { rank = max(rank, pos+1) })
		l := make([]string, rank)
		for i := range l {
			l[i] = "?"
		}
		set(func(pos int, c string) {
			if pos >= 0 && pos < rank {
				l[pos] = c
			}
		})
		return strings.Join(l, "")
	}
	lhs := label(2+len(d.InputSpatial), func(put func(int, string)) {
		put(d.InputBatch, "b")
		put(d.InputFeature, "f")
		for i, p := range d.InputSpatial {
			put(p, strconv.Itoa(i))
		}
	})
	rhs := label(2+len(d.KernelSpatial), func(put func(int, string)) {
		put(d.KernelInputFeature, "i")
		put(d.KernelOutputFeature, "o")
		for i, p := range d.KernelSpatial {
			put(p, strconv.Itoa(i))
		}
	})
	out := label(2+len(d.OutputSpatial), func(put func(int, string)) {
		put(d.OutputBatch, "b")
		put(d.OutputFeature, "f")
		for i, p := range d.OutputSpatial {
			put(p, strconv.Itoa(i))
		}
	})
	return lhs + "_" + rhs + "->" + out
}

// ParseConvDimensionNumbers parses dim_labels such as `b01f_01io->b01f`:
// each of the input, kernel and output labels names every dimension once,
// the letters in any order, with as many spatial digits in each.
func ParseConvDimensionNumbers(text string) (*ConvDimensionNumbers, error) {
	d, err := parseDimLabels(text)
	if err != nil {
		return nil, &ParseError{Line: 1, Column: 1, Msg: err.Error()}
	}
	return d, nil
}

func parseDimLabels(text string) (*ConvDimensionNumbers, error) {
	lhsRhs, out, ok := strings.Cut(text, "->")
	lhs, rhs, ok2 := strings.Cut(lhsRhs, "_")
	if !ok || !ok2 {
		return nil, fmt.Errorf("expected dim_labels like b01f_01io->b01f, found %q", text)
	}
	parse := func(part, letters, what string) (a, b int, spatial []int, err error) {
		a, b = -1, -1
		// '?' marks a dimension the numbers do not name (XLA skips it).
		n := len(part) - strings.Count(part, "?")
		for _, l := range []byte(letters) {
			if strings.IndexByte(part, l) >= 0 {
				n--
			}
		}
		if n < 0 || n > 10 {
			return 0, 0, nil, fmt.Errorf("%s dim_labels %q: expected %c, %c and 0 to 10 spatial digits", what, part, letters[0], letters[1])
		}
		spatial = make([]int, n)
		for i := range spatial {
			spatial[i] = -1
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			switch {
			case c == letters[0] && a < 0:
				a = i
			case c == letters[1] && b < 0:
				b = i
			case hloIsDigit(c) && int(c-'0') < n && spatial[c-'0'] < 0:
				spatial[c-'0'] = i
			case c == '?':
			default:
				return 0, 0, nil, fmt.Errorf("%s dim_labels %q: unexpected or repeated %q (expected %c, %c and the digits 0..%d once each)", what, part, c, letters[0], letters[1], n-1)
			}
		}
		return a, b, spatial, nil
	}
	var d ConvDimensionNumbers
	var err error
	if d.InputBatch, d.InputFeature, d.InputSpatial, err = parse(lhs, "bf", "input"); err != nil {
		return nil, err
	}
	if d.KernelInputFeature, d.KernelOutputFeature, d.KernelSpatial, err = parse(rhs, "io", "kernel"); err != nil {
		return nil, err
	}
	if d.OutputBatch, d.OutputFeature, d.OutputSpatial, err = parse(out, "bf", "output"); err != nil {
		return nil, err
	}
	if len(d.KernelSpatial) != len(d.InputSpatial) || len(d.OutputSpatial) != len(d.InputSpatial) {
		return nil, fmt.Errorf("dim_labels %q: input, kernel and output have %d, %d and %d spatial dimensions", text,
			len(d.InputSpatial), len(d.KernelSpatial), len(d.OutputSpatial))
	}
	return &d, nil
}

// String prints the dot dimension numbers as XLA does:
// `lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}`
// (batch dimensions only when there are some).
func (d DotDimensionNumbers) String() string {
	var parts []string
	if len(d.LhsBatch) > 0 {
		parts = append(parts, "lhs_batch_dims="+hloIntList(d.LhsBatch))
	}
	parts = append(parts, "lhs_contracting_dims="+hloIntList(d.LhsContracting))
	if len(d.RhsBatch) > 0 {
		parts = append(parts, "rhs_batch_dims="+hloIntList(d.RhsBatch))
	}
	parts = append(parts, "rhs_contracting_dims="+hloIntList(d.RhsContracting))
	return strings.Join(parts, ", ")
}

// String prints the gather dimension numbers as XLA does (offset_dims,
// collapsed_slice_dims, start_index_map, the batching dimensions when there
// are some, index_vector_dim).
func (d GatherDimensionNumbers) String() string {
	parts := []string{
		"offset_dims=" + hloIntList(d.OffsetDims),
		"collapsed_slice_dims=" + hloIntList(d.CollapsedSliceDims),
		"start_index_map=" + hloIntList(d.StartIndexMap),
	}
	if len(d.OperandBatchingDims) > 0 || len(d.StartIndicesBatchingDims) > 0 {
		parts = append(parts, "operand_batching_dims="+hloIntList(d.OperandBatchingDims),
			"start_indices_batching_dims="+hloIntList(d.StartIndicesBatchingDims))
	}
	parts = append(parts, "index_vector_dim="+strconv.Itoa(d.IndexVectorDim))
	return strings.Join(parts, ", ")
}

// String prints the scatter dimension numbers as XLA does
// (update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
// the batching dimensions when there are some, index_vector_dim).
func (d ScatterDimensionNumbers) String() string {
	parts := []string{
		"update_window_dims=" + hloIntList(d.UpdateWindowDims),
		"inserted_window_dims=" + hloIntList(d.InsertedWindowDims),
		"scatter_dims_to_operand_dims=" + hloIntList(d.ScatterDimsToOperandDims),
	}
	if len(d.InputBatchingDims) > 0 || len(d.ScatterIndicesBatchingDims) > 0 {
		parts = append(parts, "input_batching_dims="+hloIntList(d.InputBatchingDims),
			"scatter_indices_batching_dims="+hloIntList(d.ScatterIndicesBatchingDims))
	}
	parts = append(parts, "index_vector_dim="+strconv.Itoa(d.IndexVectorDim))
	return strings.Join(parts, ", ")
}

// PaddingString prints a pad instruction's padding config as XLA does:
// `low_high` per dimension joined by `x`, with `_interior` on every
// dimension when any dimension has interior padding.
func PaddingString(p []PaddingDim) string {
	interior := false
	for _, d := range p {
		if d.Interior != 0 {
			interior = true
		}
	}
	var b strings.Builder
	for i, d := range p {
		if i > 0 {
			b.WriteByte('x')
		}
		b.WriteString(strconv.Itoa(d.Low))
		b.WriteByte('_')
		b.WriteString(strconv.Itoa(d.High))
		if interior {
			b.WriteByte('_')
			b.WriteString(strconv.Itoa(d.Interior))
		}
	}
	return b.String()
}

// ParsePadding parses a padding config such as `0_0x1_4_1`.
func ParsePadding(text string) ([]PaddingDim, error) {
	s := &hloScanner{src: text}
	p, err := s.padding()
	if err != nil {
		return nil, err
	}
	if !s.atEOF() {
		return nil, s.errorf("expected end of padding, found %s", s.found())
	}
	return p, nil
}

func (s *hloScanner) padding() ([]PaddingDim, error) {
	s.skipSpace()
	start := s.pos
	w := s.word()
	if w == "" {
		return nil, s.errorf("expected padding like 0_0x1_1_0, found %s", s.found())
	}
	var p []PaddingDim
	for _, dim := range strings.Split(w, "x") {
		parts := strings.Split(dim, "_")
		if len(parts) != 2 && len(parts) != 3 {
			return nil, s.errorAt(start, "expected padding low_high or low_high_interior per dimension, found %q", dim)
		}
		var v [3]int
		for i, part := range parts {
			n, err := strconv.Atoi(part)
			if err != nil {
				return nil, s.errorAt(start, "expected integer in padding, found %q", part)
			}
			v[i] = n
		}
		p = append(p, PaddingDim{Low: v[0], High: v[1], Interior: v[2]})
	}
	return p, nil
}

// SliceString prints a slice instruction's bounds as XLA does:
// `{[0:2], [1:4]}`, with `:stride` on every dimension when any stride is not 1.
func SliceString(dims []SliceDim) string {
	strided := false
	for _, d := range dims {
		if d.Stride != 1 {
			strided = true
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range dims {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%d:%d", d.Start, d.Limit)
		if strided {
			fmt.Fprintf(&b, ":%d", d.Stride)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// sliceDims reads `{[0:2:1], [0:4]}`.
func (s *hloScanner) sliceDims() ([]SliceDim, error) {
	if err := s.expect('{', "to open slice"); err != nil {
		return nil, err
	}
	dims := []SliceDim{}
	if s.accept('}') {
		return dims, nil
	}
	for {
		if err := s.expect('[', "to open slice dimension"); err != nil {
			return nil, err
		}
		var d SliceDim
		var err error
		if d.Start, err = s.intValue("slice start"); err != nil {
			return nil, err
		}
		if err := s.expect(':', "after slice start"); err != nil {
			return nil, err
		}
		if d.Limit, err = s.intValue("slice limit"); err != nil {
			return nil, err
		}
		d.Stride = 1
		if s.accept(':') {
			if d.Stride, err = s.intValue("slice stride"); err != nil {
				return nil, err
			}
		}
		if err := s.expect(']', "to close slice dimension"); err != nil {
			return nil, err
		}
		dims = append(dims, d)
		if s.accept('}') {
			return dims, nil
		}
		if err := s.expect(',', "between slice dimensions"); err != nil {
			return nil, err
		}
	}
}

// String prints replica groups as XLA does: `{{0,1},{2,3}}`, or the iota
// form `[2,2]<=[4]` / `[2,2]<=[2,2]T(1,0)` when that is how they were given.
func (g ReplicaGroups) String() string {
	if g.Mesh != "" {
		return g.Mesh
	}
	if g.Iota != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "[%d,%d]<=[%s]", g.Iota.NumGroups, g.Iota.GroupSize, hloJoinInts(g.Iota.ReshapeDims, ","))
		if g.Iota.Perm != nil {
			fmt.Fprintf(&b, "T(%s)", hloJoinInts(g.Iota.Perm, ","))
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, grp := range g.Groups {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(hloIntList(grp))
	}
	b.WriteByte('}')
	return b.String()
}

// ParseReplicaGroups parses replica groups in either form: `{{0,1},{2,3}}`
// or the iota form `[2,2]<=[4]`, `[2,2]<=[2,2]T(1,0)` (expanded into Groups).
func ParseReplicaGroups(text string) (*ReplicaGroups, error) {
	s := &hloScanner{src: text}
	g, err := s.replicaGroups()
	if err != nil {
		return nil, err
	}
	if !s.atEOF() {
		return nil, s.errorf("expected end of replica groups, found %s", s.found())
	}
	return g, nil
}

// maxIotaDevices bounds the expansion of iota replica groups.
const maxIotaDevices = 1 << 20

func (s *hloScanner) replicaGroups() (*ReplicaGroups, error) {
	s.skipSpace()
	start := s.pos
	if s.peek() == '{' {
		groups, err := s.intListList("replica group")
		if err != nil {
			return nil, err
		}
		return &ReplicaGroups{Groups: groups}, nil
	}
	if s.peekIdent() == "mesh" {
		return s.meshReplicaGroups()
	}
	if s.peek() != '[' {
		return nil, s.errorf("expected replica groups {{…}}, [groups,size]<=[dims] or mesh[…] {…}, found %s", s.found())
	}
	shape, err := s.bracketInts("iota replica group shape")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 {
		return nil, s.errorAt(start, "iota replica groups: expected the tile assignment [num_groups,group_size], found %d dimensions", len(shape))
	}
	if !s.acceptString("<=") {
		return nil, s.errorf("expected '<=' in iota replica groups, found %s", s.found())
	}
	reshape, perm, err := s.iotaReshape("iota replica groups")
	if err != nil {
		return nil, err
	}
	iota := &IotaReplicaGroups{NumGroups: shape[0], GroupSize: shape[1], ReshapeDims: reshape, Perm: perm}
	groups, err := expandIotaReplicaGroups(iota)
	if err != nil {
		return nil, s.errorAt(start, "iota replica groups: %v", err)
	}
	return &ReplicaGroups{Groups: groups, Iota: iota}, nil
}

// expandIotaReplicaGroups lists the groups of an iota form: the ids
// 0..N-1 reshaped to ReshapeDims, transposed by Perm, read row-major and cut
// into NumGroups groups of GroupSize.
func expandIotaReplicaGroups(it *IotaReplicaGroups) ([][]int, error) {
	n := 1
	for _, d := range it.ReshapeDims {
		if d < 0 || (d > 0 && n > maxIotaDevices/d) {
			return nil, fmt.Errorf("reshape dimensions %v exceed %d devices", it.ReshapeDims, maxIotaDevices)
		}
		n *= d
	}
	if it.NumGroups < 0 || it.GroupSize < 0 || it.NumGroups > maxIotaDevices || it.GroupSize > maxIotaDevices ||
		it.NumGroups*it.GroupSize != n {
		return nil, fmt.Errorf("the %d devices of the reshape dimensions %v do not match the tile assignment dimensions product %d ([%d,%d])", n, it.ReshapeDims, it.NumGroups*it.GroupSize, it.NumGroups, it.GroupSize)
	}
	rank := len(it.ReshapeDims)
	perm := it.Perm
	if perm == nil {
		perm = make([]int, rank)
		for i := range perm {
			perm[i] = i
		}
	}
	if len(perm) != rank {
		return nil, fmt.Errorf("permutation %v has %d entries for %d reshape dimensions", perm, len(perm), rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p >= rank || seen[p] {
			return nil, fmt.Errorf("%v is not a permutation of 0..%d", perm, rank-1)
		}
		seen[p] = true
	}
	// Strides of the reshaped ids, then walk the transposed index space.
	strides := make([]int, rank)
	st := 1
	for i := rank - 1; i >= 0; i-- {
		strides[i] = st
		st *= it.ReshapeDims[i]
	}
	tdims := make([]int, rank)
	for i, p := range perm {
		tdims[i] = it.ReshapeDims[p]
	}
	ids := make([]int, 0, n)
	idx := make([]int, rank)
	for k := 0; k < n; k++ {
		id := 0
		for i, p := range perm {
			id += idx[i] * strides[p]
		}
		ids = append(ids, id)
		NextIndex(tdims, idx)
	}
	groups := make([][]int, it.NumGroups)
	for g := range groups {
		groups[g] = ids[g*it.GroupSize : (g+1)*it.GroupSize : (g+1)*it.GroupSize]
	}
	return groups, nil
}

// bracketInts reads `[1,2,3]`.
func (s *hloScanner) bracketInts(what string) ([]int, error) {
	if err := s.expect('[', "to open "+what); err != nil {
		return nil, err
	}
	v := []int{}
	for !s.accept(']') {
		n, err := s.nonNegInt(what)
		if err != nil {
			return nil, err
		}
		v = append(v, n)
		if s.peek() != ']' {
			if err := s.expect(',', "in "+what); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// ints reads `{1,2,3}` (possibly empty).
func (s *hloScanner) ints(what string) ([]int, error) {
	if err := s.expect('{', "to open "+what); err != nil {
		return nil, err
	}
	v := []int{}
	for !s.accept('}') {
		n, err := s.intValue(what)
		if err != nil {
			return nil, err
		}
		v = append(v, n)
		if s.peek() != '}' {
			if err := s.expect(',', "in "+what); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// intListList reads `{{0,1},{2,3}}`.
func (s *hloScanner) intListList(what string) ([][]int, error) {
	if err := s.expect('{', "to open "+what+" list"); err != nil {
		return nil, err
	}
	v := [][]int{}
	for !s.accept('}') {
		l, err := s.ints(what)
		if err != nil {
			return nil, err
		}
		v = append(v, l)
		if s.peek() != '}' {
			if err := s.expect(',', "between "+what+"s"); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// hloIntList prints `{1,2,3}`.
func hloIntList(v []int) string { return "{" + hloJoinInts(v, ",") + "}" }

func hloJoinInts(v []int, sep string) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

// ParseRandomDistribution parses "rng_uniform" or "rng_normal".
func ParseRandomDistribution(s string) (RandomDistribution, bool) {
	for _, d := range []RandomDistribution{RngUniform, RngNormal} {
		if d.String() == s {
			return d, true
		}
	}
	return RngInvalid, false
}

// ParseRandomAlgorithm parses "rng_default", "rng_three_fry" or "rng_philox".
func ParseRandomAlgorithm(s string) (RandomAlgorithm, bool) {
	for _, a := range []RandomAlgorithm{RngDefault, RngThreeFry, RngPhilox} {
		if a.String() == s {
			return a, true
		}
	}
	return RngDefault, false
}

// ParseFFTType parses "FFT", "IFFT", "RFFT" or "IRFFT".
func ParseFFTType(s string) (FFTType, bool) {
	for _, t := range []FFTType{FFT, IFFT, RFFT, IRFFT} {
		if t.String() == s {
			return t, true
		}
	}
	return FFT, false
}

// ParseTransposeKind parses "NO_TRANSPOSE", "TRANSPOSE" or "ADJOINT".
func ParseTransposeKind(s string) (TransposeKind, bool) {
	for _, k := range []TransposeKind{NoTranspose, Transpose, Adjoint} {
		if k.String() == s {
			return k, true
		}
	}
	return NoTranspose, false
}
