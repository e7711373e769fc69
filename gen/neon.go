package main

import (
	"fmt"

	"github.com/kilnml/kiln/asm"
)

// The NEON emitter shared by the arm64 kernel families: element forms and
// argument frames on top of the asm package's builder.

// neonElem gives the NEON forms of one element type.
type neonElem struct {
	goType string
	prefix string
	arr    asm.Arrangement
	fmov   string // scalar load: "FMOVS" / "FMOVD"
}

var (
	neonF32 = neonElem{goType: "float32", prefix: "s", arr: asm.S4, fmov: "FMOVS"}
	neonF64 = neonElem{goType: "float64", prefix: "d", arr: asm.D2, fmov: "FMOVD"}
)

// frame lays out Go ABI0 arguments: each at its natural alignment.
type frame struct {
	names []string
	offs  map[string]int
	size  int
}

// newFrame takes (name, size) pairs in declaration order.
func newFrame(args ...any) *frame {
	f := &frame{offs: map[string]int{}}
	for i := 0; i < len(args); i += 2 {
		name, size := args[i].(string), args[i+1].(int)
		f.size = (f.size + size - 1) / size * size
		f.offs[name] = f.size
		f.names = append(f.names, name)
		f.size += size
	}
	f.size = (f.size + 7) / 8 * 8
	return f
}

// arg is the Go assembler's name of an argument, e.g. "alpha+56(FP)".
func (f *frame) arg(name string) string {
	off, ok := f.offs[name]
	if !ok {
		panic(fmt.Sprintf("frame has no argument %q", name))
	}
	return fmt.Sprintf("%s+%d(FP)", name, off)
}

// loadRows loads rows consecutive elements at (base)+off into lanes of the
// registers first, first+1, …, a full vector at a time and the remainder with
// scalar loads that never read past the last element. It returns, for each
// row, the register and lane holding it.
func loadRows(fn *asm.Func, e neonElem, base asm.Reg, rows int, first asm.VReg) (regs []asm.VReg, lanes []int) {
	l := e.arr.Lanes
	r := first
	off := 0
	for done := 0; done < rows; {
		n := rows - done
		switch {
		case n >= l:
			if off == 0 {
				fn.Op("VLD1 (%s), [%s]", base, r.As(e.arr))
			} else {
				fn.Op("ADD $%d, %s, R9", off, base)
				fn.Op("VLD1 (R9), [%s]", r.As(e.arr))
			}
			n = l
		case n >= 2 && e.arr.Size == 4:
			fn.Op("FMOVD %d(%s), %s", off, base, r.F())
			n = 2
		default:
			fn.Op("%s %d(%s), %s", e.fmov, off, base, r.F())
			n = 1
		}
		for i := 0; i < n; i++ {
			regs = append(regs, r)
			lanes = append(lanes, i)
		}
		done += n
		off += n * e.arr.Size
		r++
	}
	return regs, lanes
}
