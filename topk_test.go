package kiln

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// TestTopKAgainstEval compares TopKF32, TopKBF16 and TopKF16 with ir/eval's
// topk (XLA's CPU rules), largest and smallest, over row lengths and k on
// both sides of the selection's limits, with duplicates, zeros of both
// signs, infinities and NaNs.
func TestTopKAgainstEval(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, ty := range []ir.ElementType{ir.F32, ir.BF16, ir.F16} {
		for _, n := range []int{1, 7, 100, 1000, 5003} {
			for _, k := range []int{0, 1, 2, 5, 10, 64, 130, n} {
				if k > n {
					continue
				}
				for _, largest := range []bool{true, false} {
					const rows = 2
					x32 := interestingKeys32(r, rows*n)
					size := ty.ByteSize()
					x := make([]byte, rows*n*size)
					for i, b := range x32 {
						switch ty {
						case ir.F32:
							*(*uint32)(unsafe.Pointer(&x[4*i])) = b
						case ir.BF16:
							*(*uint16)(unsafe.Pointer(&x[2*i])) = uint16(b >> 16)
						default:
							*(*uint16)(unsafe.Pointer(&x[2*i])) = f32ToF16(f16Widen(uint16(b >> 16)))
						}
					}
					hlo := fmt.Sprintf("HloModule t\n\nENTRY e {\n  x = %[1]s[%[2]d,%[3]d] parameter(0)\n  ROOT t = (%[1]s[%[2]d,%[4]d], s32[%[2]d,%[4]d]) topk(x), k=%[4]d, largest=%[5]v\n}\n", ty, rows, n, k, largest)
					m, err := ir.ParseModule(hlo)
					if err != nil {
						t.Fatal(err)
					}
					lit, err := ir.NewLiteralView(ir.MakeShape(ty, rows, n), x)
					if err != nil {
						t.Fatal(err)
					}
					res, err := eval.Run(m, lit)
					if err != nil {
						t.Fatal(err)
					}
					parts := res
					if len(res) == 1 {
						parts = res[0].Elements()
					}
					wantV, wantI := parts[0].Bytes(), asSlice[int32](parts[1].Bytes(), rows*k)
					gotV := make([]byte, rows*k*size+1)
					gotI := make([]int32, rows*k)
					switch ty {
					case ir.F32:
						TopKF32(asSlice[float32](gotV, rows*k), gotI, asSlice[float32](x, rows*n), n, k, largest)
					case ir.BF16:
						TopKBF16(asSlice[uint16](gotV, rows*k), gotI, asSlice[uint16](x, rows*n), n, k, largest)
					default:
						TopKF16(asSlice[uint16](gotV, rows*k), gotI, asSlice[uint16](x, rows*n), n, k, largest)
					}
					for i := 0; i < rows*k; i++ {
						if gotI[i] != wantI[i] || string(gotV[i*size:(i+1)*size]) != string(wantV[i*size:(i+1)*size]) {
							t.Fatalf("%s n=%d k=%d largest=%v element %d: %s at %d, ir/eval %s at %d", ty, n, k, largest, i, hexBytes(gotV[i*size:(i+1)*size]), gotI[i], hexBytes(wantV[i*size:(i+1)*size]), wantI[i])
						}
					}
				}
			}
		}
	}
}

// TestTopKOrderAgainstSort compares TopKOrderF32, TopKOrderBF16 and
// TopKOrderF16 with the first k elements of the stable row sorts in each
// order (the sorts are tested against ir/eval), with duplicates, zeros of
// both signs, infinities and NaNs of both signs.
func TestTopKOrderAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	orders := []SortOrder{SortAscending, SortDescending, SortCanonicalNaN, SortDescending | SortCanonicalNaN}
	for _, ty := range []ir.ElementType{ir.F32, ir.BF16, ir.F16} {
		for _, n := range []int{1, 7, 100, 1000, 5003} {
			for _, k := range []int{0, 1, 2, 5, 10, 64, 130, n} {
				if k > n {
					continue
				}
				for _, order := range orders {
					const rows = 3
					x32 := interestingKeys32(r, rows*n)
					x16 := make([]uint16, rows*n)
					for i, b := range x32 {
						x16[i] = uint16(b >> 16)
						if ty == ir.F16 {
							x16[i] = f32ToF16(f16Widen(uint16(b >> 16)))
						}
					}
					idx := make([]int32, rows*n)
					for i := range idx {
						idx[i] = int32(i % n)
					}
					gotI := make([]int32, rows*k)
					var got, want []uint32
					switch ty {
					case ir.F32:
						keys := asSlice[float32](asBytes(x32), rows*n)
						sorted := append([]float32(nil), keys...)
						SortF32(sorted, idx, n, order)
						vals := make([]float32, rows*k)
						TopKOrderF32(vals, gotI, keys, n, k, order)
						for row := 0; row < rows; row++ {
							for j := 0; j < k; j++ {
								want = append(want, asSlice[uint32](asBytes(sorted[row*n+j:row*n+j+1]), 1)[0])
								got = append(got, asSlice[uint32](asBytes(vals[row*k+j:row*k+j+1]), 1)[0])
							}
						}
					default:
						sorted := append([]uint16(nil), x16...)
						vals := make([]uint16, rows*k)
						if ty == ir.BF16 {
							SortBF16(sorted, idx, n, order)
							TopKOrderBF16(vals, gotI, x16, n, k, order)
						} else {
							SortF16(sorted, idx, n, order)
							TopKOrderF16(vals, gotI, x16, n, k, order)
						}
						for row := 0; row < rows; row++ {
							for j := 0; j < k; j++ {
								want = append(want, uint32(sorted[row*n+j]))
								got = append(got, uint32(vals[row*k+j]))
							}
						}
					}
					for row := 0; row < rows; row++ {
						for j := 0; j < k; j++ {
							i := row*k + j
							if got[i] != want[i] || gotI[i] != idx[row*n+j] {
								t.Fatalf("%s n=%d k=%d order=%d row %d element %d: %#x at %d, the sort %#x at %d", ty, n, k, order, row, j, got[i], gotI[i], want[i], idx[row*n+j])
							}
						}
					}
				}
			}
		}
	}
}

// asBytes views a slice's elements as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}
