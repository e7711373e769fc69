package runtime

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// convGeom is a float32 convolution over NHWC input and HWIO kernel giving
// NHWC output, with N spatial dimensions, strides, explicit padding and
// kernel (rhs) dilation: the canonical form the compiler's passes produce.
type convGeom struct {
	batch, cin, cout int
	in, out          []int // spatial sizes
	kernel           []int // spatial kernel sizes
	stride, dil      []int
	padLo            []int
}

// convOf recognises the canonical convolution form.
func convOf(v *ssa.Value) (convGeom, bool) {
	dn, w := v.Attrs.ConvDims, v.Attrs.Window
	if dn == nil || w == nil || v.Shape.Elem != ir.F32 || v.Args[0].Shape.Elem != ir.F32 || v.Args[1].Shape.Elem != ir.F32 {
		return convGeom{}, false
	}
	if max(v.Attrs.FeatureGroupCount, 1) != 1 || max(v.Attrs.BatchGroupCount, 1) != 1 {
		return convGeom{}, false
	}
	x, k, y := v.Args[0].Shape, v.Args[1].Shape, v.Shape
	ns := len(dn.InputSpatial)
	if x.Rank() != ns+2 || !x.HasDefaultLayout() || !k.HasDefaultLayout() || !y.HasDefaultLayout() {
		return convGeom{}, false
	}
	// NHWC / HWIO / NHWC.
	if dn.InputBatch != 0 || dn.InputFeature != ns+1 || dn.OutputBatch != 0 || dn.OutputFeature != ns+1 ||
		dn.KernelInputFeature != ns || dn.KernelOutputFeature != ns+1 {
		return convGeom{}, false
	}
	for i := 0; i < ns; i++ {
		if dn.InputSpatial[i] != i+1 || dn.OutputSpatial[i] != i+1 || dn.KernelSpatial[i] != i {
			return convGeom{}, false
		}
	}
	g := convGeom{batch: x.Dims[0], cin: x.Dims[ns+1], cout: y.Dims[ns+1]}
	for i, wd := range w.Dims {
		if wd.BaseDilation > 1 || wd.Reversal {
			return convGeom{}, false
		}
		g.in = append(g.in, x.Dims[i+1])
		g.out = append(g.out, y.Dims[i+1])
		g.kernel = append(g.kernel, k.Dims[i])
		g.stride = append(g.stride, max(wd.Stride, 1))
		g.dil = append(g.dil, max(wd.WindowDilation, 1))
		g.padLo = append(g.padLo, wd.PadLow)
	}
	return g, true
}

// convStep runs a canonical convolution as a GEMM: the input patches of a
// block of output pixels are copied into a worker's scratch (im2col, with
// zeros for padding), then multiplied by the kernel viewed as a
// (KH·KW·CI)×CO matrix — packed once at compile time when it is a constant.
// A 1×1 convolution with unit stride and no padding needs no copy: the
// input already is the patch matrix.
type convStep struct {
	g       convGeom
	x, w, y loc
	packed  *kiln.PackedB
	patch   int // KH·KW·CI
	pixels  int // output pixels per image
	block   int // output pixels per im2col block
	direct  bool
}

func (c *compiler) convStep(k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(k.Values) != 1 {
		return nil, nil
	}
	g, ok := convOf(v)
	if !ok {
		return nil, nil
	}
	bufOf := func(a *ssa.Value) *sched.Buffer { return k.In[indexOf(k.Inputs, a)] }
	s := &convStep{g: g, x: c.loc(bufOf(v.Args[0])), w: c.loc(bufOf(v.Args[1])), y: c.loc(k.Out)}
	s.patch = prod(g.kernel) * g.cin
	s.pixels = prod(g.out)
	s.direct = prod(g.kernel) == 1
	for i := range g.in {
		if g.stride[i] != 1 || g.padLo[i] != 0 || g.out[i] != g.in[i] {
			s.direct = false
		}
	}
	if s.w.kind == sched.Constant && s.patch > 0 && g.cout > 0 {
		s.packed = kiln.PackB(false, s.patch, g.cout, f32s(s.w.data), g.cout)
	}
	if !s.direct {
		// A block of output pixels whose patches fit in about 1 MiB.
		s.block = max(1, min(s.pixels, (1<<20)/(4*max(s.patch, 1))))
		p.scratch = max(p.scratch, s.block*s.patch*4)
	}
	return s, nil
}

func (s *convStep) name() string {
	if s.direct {
		return "conv-gemm"
	}
	return "conv-im2col"
}

func (s *convStep) exec(fr *frame) error {
	g := s.g
	x, y := f32s(fr.bytes(s.x)), f32s(fr.bytes(s.y))
	w := f32s(fr.bytes(s.w))
	if s.pixels == 0 || g.cout == 0 {
		return nil
	}
	inImage := prod(g.in) * g.cin
	outImage := s.pixels * g.cout
	for b := 0; b < g.batch; b++ {
		xb, yb := x[b*inImage:], y[b*outImage:(b+1)*outImage]
		if s.direct {
			s.gemm(s.pixels, xb, yb, w)
			continue
		}
		cols := f32s(fr.scratch[0])
		for p0 := 0; p0 < s.pixels; p0 += s.block {
			n := min(s.block, s.pixels-p0)
			s.im2col(cols[:n*s.patch], xb, p0, n)
			s.gemm(n, cols, yb[p0*g.cout:], w)
		}
	}
	return nil
}

// gemm computes rows output pixels from their patch matrix a (rows × patch).
func (s *convStep) gemm(rows int, a, y, w []float32) {
	if s.packed != nil {
		kiln.SgemmPacked(false, rows, 1, a, s.patch, s.packed, 0, y, s.g.cout)
		return
	}
	// An empty patch (no input channels) still needs a leading dimension of
	// at least 1; the product is then zeros.
	kiln.Sgemm(false, false, rows, s.g.cout, s.patch, 1, a, max(s.patch, 1), w, s.g.cout, 0, y, s.g.cout)
}

// im2col writes the patches of output pixels [p0, p0+n) of one image into
// cols, one row of KH·KW·CI values per pixel (zero where the window falls
// into the padding).
func (s *convStep) im2col(cols, x []float32, p0, n int) {
	g := s.g
	ns := len(g.in)
	var oBuf, kBuf [8]int
	o, kk := oBuf[:ns], kBuf[:ns]
	rem := p0
	for d := ns - 1; d >= 0; d-- {
		o[d] = rem % g.out[d]
		rem /= g.out[d]
	}
	for r := 0; r < n; r++ {
		row := cols[r*s.patch : (r+1)*s.patch]
		clear(kk)
		for t := 0; t < prod(g.kernel); t++ {
			off, inside := 0, true
			for d := 0; d < ns; d++ {
				i := o[d]*g.stride[d] - g.padLo[d] + kk[d]*g.dil[d]
				if i < 0 || i >= g.in[d] {
					inside = false
					break
				}
				off = off*g.in[d] + i
			}
			dst := row[t*g.cin : (t+1)*g.cin]
			if inside {
				copy(dst, x[off*g.cin:(off+1)*g.cin])
			} else {
				clear(dst)
			}
			ir.NextIndex(g.kernel, kk)
		}
		ir.NextIndex(g.out, o)
	}
}
