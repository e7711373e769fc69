package ir

// Strides returns, for each dimension of an array shape, the distance in
// elements between neighbours along that dimension in linear memory under the
// shape's layout (padded extents included when the layout has them).
func (s Shape) Strides() []int {
	rank := len(s.Dims)
	strides := make([]int, rank)
	stride := 1
	for _, d := range s.MinorToMajor() {
		strides[d] = stride
		stride *= s.extent(d)
	}
	return strides
}

// extent is the size of dimension d in memory: its padded size if the layout
// pads it, else its size.
func (s Shape) extent(d int) int {
	if s.Layout != nil && s.Layout.PaddedDims != nil {
		return s.Layout.PaddedDims[d]
	}
	return s.Dims[d]
}

// PhysicalElementCount is the number of elements the shape occupies in memory
// under its layout, padding included.
func (s Shape) PhysicalElementCount() int {
	n := 1
	for d := range s.Dims {
		n *= s.extent(d)
	}
	return n
}

// LinearIndex maps a multi-index (one entry per dimension) to its position in
// linear memory under the shape's layout (IndexUtil::MultidimensionalIndexToLinearIndex).
func (s Shape) LinearIndex(index []int) int {
	linear, scale := 0, 1
	for _, d := range s.MinorToMajor() {
		linear += index[d] * scale
		scale *= s.extent(d)
	}
	return linear
}

// MultiIndex maps a position in linear memory back to its multi-index under
// the shape's layout (IndexUtil::LinearIndexToMultidimensionalIndex). For a
// padded layout a linear index inside the padding yields a multi-index beyond
// the dimension sizes.
func (s Shape) MultiIndex(linear int) []int {
	index := make([]int, len(s.Dims))
	s.MultiIndexInto(linear, index)
	return index
}

// MultiIndexInto is MultiIndex writing into index, which must have one entry
// per dimension.
func (s Shape) MultiIndexInto(linear int, index []int) {
	for _, d := range s.MinorToMajor() {
		e := s.extent(d)
		if e == 0 {
			index[d] = 0
			continue
		}
		index[d] = linear % e
		linear /= e
	}
}

// RowMajorIndex maps a multi-index to its position in dense row-major order
// (the storage order of Literal), whatever the shape's layout.
func RowMajorIndex(dims, index []int) int {
	linear := 0
	for i, d := range dims {
		linear = linear*d + index[i]
	}
	return linear
}

// NextIndex advances a multi-index over dims in row-major order (last
// dimension fastest) and reports false after the last index.
func NextIndex(dims, index []int) bool {
	for i := len(dims) - 1; i >= 0; i-- {
		index[i]++
		if index[i] < dims[i] {
			return true
		}
		index[i] = 0
	}
	return false
}
