package ops

// Structured sparsity of dot and convolution operands (XLA's
// sparsity_config): a sparse operand stores N of every M elements along one
// dimension, and a metadata array of its dimensions gives each stored
// element's position within its block of M. The op is the op of the dense
// operand those describe, zeros elsewhere, as XLA's evaluator materializes
// it.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// SparsePlan materializes a sparse operand.
type SparsePlan struct {
	ES        int
	Dims      []int // the stored operand's
	DenseDims []int
	d, n, m   int
	metaT     ir.ElementType
}

// NewSparse plans the materialization of a sparse operand of element size
// es and dimensions dims, described by d, with metadata of type metaT and
// dimensions metaDims.
func NewSparse(es int, dims []int, d ir.SparsityDescriptor, metaT ir.ElementType, metaDims []int) (*SparsePlan, error) {
	if !metaT.IsInteger() {
		return nil, fmt.Errorf("sparsity metadata has element type %v, expected an integer type", metaT)
	}
	if !sameInts(metaDims, dims) {
		return nil, fmt.Errorf("sparsity metadata has dimensions %v, the sparse operand %v", metaDims, dims)
	}
	dense, err := d.DenseShape(ir.MakeShape(ir.U8, dims...))
	if err != nil {
		return nil, err
	}
	return &SparsePlan{ES: es, Dims: dims, DenseDims: dense.Dims, d: d.Dimension, n: d.N, m: d.M, metaT: metaT}, nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Run writes the dense operand of the stored values x and metadata meta
// into dense (zeros where nothing is stored). A position outside its block
// is an error.
func (p *SparsePlan) Run(dense, x, meta []byte) error {
	clear(dense[:Count(p.DenseDims)*p.ES])
	outer := Count(p.Dims[:p.d])
	inner := Count(p.Dims[p.d+1:])
	stored, full := p.Dims[p.d], p.DenseDims[p.d]
	es := p.ES
	for o := 0; o < outer; o++ {
		for j := 0; j < stored; j++ {
			block := j / p.n
			for i := 0; i < inner; i++ {
				src := (o*stored+j)*inner + i
				pos := IndexAt(meta, p.metaT, src)
				if pos < 0 || pos >= int64(p.m) {
					return fmt.Errorf("sparsity metadata %d is outside a block of %d", pos, p.m)
				}
				dst := (o*full+block*p.m+int(pos))*inner + i
				copy(dense[dst*es:(dst+1)*es], x[src*es:(src+1)*es])
			}
		}
	}
	return nil
}
