package ir

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Layout says how an array is laid out in linear memory (XLA's Layout).
//
// MinorToMajor lists the dimensions from the fastest-varying (minor) to the
// slowest (major): {1,0} is row-major for a rank-2 array, {0,1} column-major.
// PaddedDims, when set, gives each dimension a padded extent (the shapes
// seed's padded_dimensions); the elements beyond a dimension's size hold
// PaddingValue. Tiles, ElementSizeBits and MemorySpace are XLA's tiling, `E(n)`
// and `S(n)` layout attributes, kept so HLO text round-trips; Kiln's kernels
// use dense untiled layouts. Extra keeps any other layout attributes verbatim.
type Layout struct {
	MinorToMajor    []int
	PaddedDims      []int
	PaddingValue    PaddingValue
	Tiles           [][]int
	ElementSizeBits int
	MemorySpace     int
	Extra           string
}

// PaddingValue is the value stored in the padding of a padded layout.
type PaddingValue uint8

// Padding values, as in XLA's PaddingValue enum.
const (
	PadZero PaddingValue = iota
	PadLowest
	PadHighest
	PadUnknown
)

// MakeLayout returns a layout with the given minor-to-major order.
func MakeLayout(minorToMajor ...int) *Layout {
	return &Layout{MinorToMajor: slices.Clone(minorToMajor)}
}

// Clone returns a deep copy of l.
func (l Layout) Clone() Layout {
	c := l
	c.MinorToMajor = slices.Clone(l.MinorToMajor)
	c.PaddedDims = slices.Clone(l.PaddedDims)
	if l.Tiles != nil {
		c.Tiles = make([][]int, len(l.Tiles))
		for i, t := range l.Tiles {
			c.Tiles[i] = slices.Clone(t)
		}
	}
	return c
}

// Equal reports whether two layouts are identical.
func (l Layout) Equal(o Layout) bool {
	if !slices.Equal(l.MinorToMajor, o.MinorToMajor) || !slices.Equal(l.PaddedDims, o.PaddedDims) ||
		l.PaddingValue != o.PaddingValue || l.ElementSizeBits != o.ElementSizeBits ||
		l.MemorySpace != o.MemorySpace || l.Extra != o.Extra || len(l.Tiles) != len(o.Tiles) {
		return false
	}
	for i := range l.Tiles {
		if !slices.Equal(l.Tiles[i], o.Tiles[i]) {
			return false
		}
	}
	return true
}

// IsDefaultFor reports whether l is the plain major-to-minor layout of a
// rank-`rank` array with no padding, tiling or memory space.
func (l Layout) IsDefaultFor(rank int) bool {
	return slices.Equal(l.MinorToMajor, DefaultMinorToMajor(rank)) && l.PaddedDims == nil &&
		l.Tiles == nil && l.ElementSizeBits == 0 && l.MemorySpace == 0 && l.Extra == ""
}

func (l Layout) checkFor(rank int) error {
	if len(l.MinorToMajor) != rank {
		return fmt.Errorf("layout %v has %d entries for rank %d", l, len(l.MinorToMajor), rank)
	}
	seen := make([]bool, rank)
	for _, d := range l.MinorToMajor {
		if d < 0 || d >= rank || seen[d] {
			return fmt.Errorf("layout %v is not a permutation of dimensions 0..%d", l, rank-1)
		}
		seen[d] = true
	}
	if l.PaddedDims != nil && len(l.PaddedDims) != rank {
		return fmt.Errorf("layout has %d padded dimensions for rank %d", len(l.PaddedDims), rank)
	}
	return nil
}

// String prints the layout as XLA does: `{1,0}`, `{1,0:T(8,128)(2,1)E(4)S(1)}`.
func (l Layout) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, d := range l.MinorToMajor {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(l.Tiles) > 0 || l.ElementSizeBits != 0 || l.MemorySpace != 0 || l.Extra != "" {
		b.WriteByte(':')
		if len(l.Tiles) > 0 {
			b.WriteByte('T')
			for _, t := range l.Tiles {
				b.WriteByte('(')
				for i, d := range t {
					if i > 0 {
						b.WriteByte(',')
					}
					if d < 0 {
						b.WriteByte('*') // a combined (collapsed) tile dimension
					} else {
						b.WriteString(strconv.Itoa(d))
					}
				}
				b.WriteByte(')')
			}
		}
		if l.ElementSizeBits != 0 {
			fmt.Fprintf(&b, "E(%d)", l.ElementSizeBits)
		}
		if l.MemorySpace != 0 {
			fmt.Fprintf(&b, "S(%d)", l.MemorySpace)
		}
		b.WriteString(l.Extra)
	}
	b.WriteByte('}')
	return b.String()
}
