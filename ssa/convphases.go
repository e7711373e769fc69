package ssa

import (
	"slices"

	"github.com/kilnml/kiln/ir"
)

// convPhases rewrites every canonical convolution with base (lhs) dilation
// — the transposed convolution of a decoder or an upsampling layer, as
// jax.lax.conv_transpose writes it — into convolutions without it, which
// the convolution kernels run, and an interleave of their outputs.
//
// Along a spatial dimension dilated by d (window stride 1, no window
// dilation, padding lo), output o reads the dilated input at o − lo + k for
// kernel tap k, a real element only where that is a multiple of d. The
// outputs of one residue ρ = o mod d therefore read the taps k ≡ lo − ρ
// (mod d), every d-th from k₀ = (lo − ρ) mod d, at consecutive input
// elements: output ρ + d·j is tap k₀ + d·t at input i₀ + j + t, with
// i₀ = (ρ − lo + k₀)/d. That is a plain convolution of the input with the
// kernel sliced [k₀::d], padding −i₀ below (and what gives the residue's
// count of outputs above), stride 1. Each combination of residues over the
// dilated dimensions is such a convolution; their outputs, padded to
// ⌈out/d⌉ along each dimension, are stacked along a new dimension after
// each spatial one, which a reshape merges into the interleaved output,
// sliced to its size.
//
// Every output sums the products of exactly the taps that read real input
// elements, in the evaluator's order: the holes of the dilated input
// contribute nothing, as in XLA, and nothing is multiplied by zero (a tap
// outside the input is a padding tap, which the kernels skip). The rewrite
// leaves convolutions with window strides or window dilation beside base
// dilation, batch groups or dynamic shapes as they are.
func convPhases(p *Program) error {
	for _, f := range p.Funcs {
		if err := rewriteFunc(f, phaseConv); err != nil {
			return err
		}
	}
	return nil
}

// convPhase is one dilated spatial dimension's residue: the kernel taps its
// outputs read and the padding of its convolution.
type convPhase struct {
	k0, taps int // taps k₀, k₀+d, … (taps of them)
	outs     int // outputs of this residue
	lo, hi   int // the convolution's padding
}

// phasesOf returns the residues of a spatial dimension of input size n,
// kernel size k, output size out, base dilation d and padding lo.
func phasesOf(n, k, out, d, lo int) []convPhase {
	ps := make([]convPhase, d)
	for r := range ps {
		k0 := ((lo-r)%d + d) % d
		ph := convPhase{k0: k0}
		if r < out {
			ph.outs = (out - r + d - 1) / d
		}
		if k0 < k {
			ph.taps = (k - k0 + d - 1) / d
		}
		i0 := (r - lo + k0) / d // exact: r − lo + k0 ≡ 0 (mod d)
		ph.lo = -i0
		ph.hi = ph.outs - n - ph.lo + ph.taps - 1
		ps[r] = ph
	}
	return ps
}

func phaseConv(b *builder, v *Value) *Value {
	if !IsCanonicalConv(v) || len(v.Args) != 2 || v.Attrs.Window == nil || IsPlanarDepthwiseConv(v) ||
		v.Shape.IsDynamic() || v.Args[0].Shape.IsDynamic() || v.Args[1].Shape.IsDynamic() || max(v.Attrs.BatchGroupCount, 1) != 1 {
		return nil
	}
	x, w := v.Args[0], v.Args[1]
	win := v.Attrs.Window.Dims
	ns := len(win)
	dilated := false
	for _, wd := range win {
		if max(wd.Stride, 1) != 1 || max(wd.WindowDilation, 1) != 1 || wd.Reversal {
			return nil
		}
		dilated = dilated || wd.BaseDilation > 1
	}
	if !dilated {
		return nil
	}
	elem := v.Shape.Elem
	phases := make([][]convPhase, ns)
	dil := make([]int, ns)
	for i, wd := range win {
		dil[i] = max(wd.BaseDilation, 1)
		phases[i] = phasesOf(x.Shape.Dims[i+1], w.Shape.Dims[i], v.Shape.Dims[i+1], dil[i], wd.PadLow)
	}
	// The stacked shape: batch, then (⌈out/d⌉, d) per spatial dimension,
	// then the output features.
	m := make([]int, ns)
	for i := range m {
		m[i] = (v.Shape.Dims[i+1] + dil[i] - 1) / dil[i]
	}
	piece := func(res []int) *Value {
		dims := []int{v.Shape.Dims[0]}
		window := &ir.Window{Dims: make([]ir.WindowDim, ns)}
		kslice := make([]ir.SliceDim, ns+2)
		empty := false
		for i, r := range res {
			ph := phases[i][r]
			dims = append(dims, ph.outs)
			window.Dims[i] = ir.WindowDim{Size: ph.taps, Stride: 1, PadLow: ph.lo, PadHigh: ph.hi, WindowDilation: 1, BaseDilation: 1}
			kslice[i] = ir.SliceDim{Start: min(ph.k0, w.Shape.Dims[i]), Limit: w.Shape.Dims[i], Stride: dil[i]}
			empty = empty || ph.taps == 0
		}
		dims = append(dims, v.Shape.Dims[ns+1])
		kslice[ns] = ir.SliceDim{Start: 0, Limit: w.Shape.Dims[ns], Stride: 1}
		kslice[ns+1] = ir.SliceDim{Start: 0, Limit: w.Shape.Dims[ns+1], Stride: 1}
		var y *Value
		if empty || slices.Contains(dims, 0) {
			y = b.splat(elem, 0, dims) // no tap reads the input: zeros
		} else {
			k := b.slice(w, kslice)
			dn := canonicalConvDims(ns)
			s, err := ir.InferConvolutionShape(x.Shape, k.Shape, max(v.Attrs.FeatureGroupCount, 1), 1, *window, dn, elem)
			b.fail("convolution", err)
			y = b.value(OpConvolution, s, x, k)
			y.Attrs = v.Attrs
			y.Attrs.ConvDims = &dn
			y.Attrs.Window = window
			y.Raw = v.Raw
		}
		// Padded to ⌈out/d⌉ and given a dimension of 1 after each
		// spatial one.
		pad := make([]ir.PaddingDim, ns+2)
		padded := []int{dims[0]}
		stacked := []int{dims[0]}
		for i := range ns {
			pad[i+1].High = m[i] - dims[i+1]
			padded = append(padded, m[i])
			stacked = append(stacked, m[i], 1)
		}
		padded = append(padded, dims[ns+1])
		stacked = append(stacked, dims[ns+1])
		if !slices.Equal(padded, dims) {
			z := b.value(OpPad, ir.MakeShape(elem, padded...), y, b.scalar(elem, 0))
			z.Attrs.Padding = pad
			y = z
		}
		return b.reshape(y, stacked)
	}
	// Stack the residues' pieces, the last dimension's innermost: a level
	// per spatial dimension, each concatenating d pieces along its stacked
	// dimension.
	var stack func(i int, res []int) *Value
	stack = func(i int, res []int) *Value {
		if i == ns {
			return piece(res)
		}
		parts := make([]*Value, dil[i])
		for r := range parts {
			parts[r] = stack(i+1, append(slices.Clone(res), r))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		s := parts[0].Shape.Dims
		s = slices.Clone(s)
		s[2+2*i] = dil[i]
		c := b.value(OpConcatenate, ir.MakeShape(elem, s...), parts...)
		c.Attrs.Dimensions = []int{2 + 2*i}
		return c
	}
	all := stack(0, nil)
	merged := []int{v.Shape.Dims[0]}
	for i := range ns {
		merged = append(merged, m[i]*dil[i])
	}
	merged = append(merged, v.Shape.Dims[ns+1])
	y := b.reshape(all, merged)
	crop := make([]ir.SliceDim, ns+2)
	for i := range crop {
		crop[i] = ir.SliceDim{Start: 0, Limit: v.Shape.Dims[i], Stride: 1}
	}
	if !slices.Equal(merged, v.Shape.Dims) {
		y = b.slice(y, crop)
	}
	return y
}
