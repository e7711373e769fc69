package runtime

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"

	"github.com/kilnml/kiln/ir"
)

// safetensorsDTypes maps safetensors dtype names to element types.
var safetensorsDTypes = map[string]ir.ElementType{
	"BOOL": ir.PRED, "I8": ir.S8, "I16": ir.S16, "I32": ir.S32, "I64": ir.S64,
	"U8": ir.U8, "U16": ir.U16, "U32": ir.U32, "U64": ir.U64,
	"F16": ir.F16, "BF16": ir.BF16, "F32": ir.F32, "F64": ir.F64,
	"F8_E5M2": ir.F8E5M2, "F8_E4M3": ir.F8E4M3FN,
}

// maxSafetensorsHeader bounds the JSON header a safetensors file may declare
// (the format's own reader refuses more than 100 MB).
const maxSafetensorsHeader = 100 << 20

// safetensorsEntry is one tensor of a safetensors header.
type safetensorsEntry struct {
	name    string
	shape   ir.Shape
	lo, hi  int64 // data_offsets, relative to the end of the header
	byteLen uint64
}

// readSafetensors reads a safetensors file of size bytes from r; source
// names it in errors. Every declared size is checked against size before
// anything is allocated for it: the header length, each tensor's bytes
// against its data_offsets and the data the file holds, and the offsets
// against each other (tensors may not overlap, so the tensors together never
// hold more bytes than the file).
func readSafetensors(r io.ReaderAt, size int64, source string) (*Weights, error) {
	fail := func(format string, args ...any) (*Weights, error) {
		return nil, fmt.Errorf("runtime: %s: "+format, append([]any{source}, args...)...)
	}
	if size < 8 {
		return fail("%d bytes is too short for a safetensors file (an 8-byte header length comes first)", size)
	}
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return fail("reading the header length: %v", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > uint64(size-8) {
		return fail("the header declares %d bytes, the file holds %d after the 8-byte length", n, size-8)
	}
	if n > maxSafetensorsHeader {
		return fail("the header declares %d bytes, more than the %d a safetensors header may have", n, maxSafetensorsHeader)
	}
	js, err := readAtChecked(r, 8, int64(n))
	if err != nil {
		return fail("reading the %d-byte header: %v", n, err)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(js, &header); err != nil {
		return fail("bad safetensors header: %v", err)
	}
	base := 8 + int64(n)
	body := size - base
	var entries []safetensorsEntry
	for name, raw := range header {
		if name == "__metadata__" {
			continue
		}
		var e struct {
			DType   string   `json:"dtype"`
			Shape   []int64  `json:"shape"`
			Offsets []uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return fail("tensor %q: %v", name, err)
		}
		t, ok := safetensorsDTypes[e.DType]
		if !ok {
			return fail("tensor %q has dtype %q, which Kiln does not support", name, e.DType)
		}
		if len(e.Offsets) != 2 {
			return fail("tensor %q: data_offsets has %d numbers, want 2", name, len(e.Offsets))
		}
		need := uint64(t.ByteSize())
		dims := make([]int, len(e.Shape))
		for i, d := range e.Shape {
			if d < 0 {
				return fail("tensor %q: dimension %d is negative (%d)", name, i, d)
			}
			if uint64(d) > math.MaxInt {
				return fail("tensor %q: dimension %d (%d) does not fit an int", name, i, d)
			}
			hi, lo := bits.Mul64(need, uint64(d))
			if hi != 0 {
				return fail("tensor %q: shape %s %v needs more than 2^64 bytes", name, e.DType, e.Shape)
			}
			need, dims[i] = lo, int(d)
		}
		lo, hi := e.Offsets[0], e.Offsets[1]
		if hi < lo || hi > uint64(body) || hi-lo != need {
			return fail("tensor %q: shape %s %v needs %d bytes; data_offsets [%d, %d] declare %d, within the %d bytes of data the file holds",
				name, e.DType, e.Shape, need, lo, hi, int64(hi-lo), body)
		}
		if need > uint64(ir.MaxLiteralBytes) {
			return fail("tensor %q: shape %s %v needs %d bytes, above the limit of %d", name, e.DType, e.Shape, need, ir.MaxLiteralBytes)
		}
		s := ir.MakeShape(t, dims...)
		if err := s.CheckValid(); err != nil {
			return fail("tensor %q: %v", name, err)
		}
		entries = append(entries, safetensorsEntry{name: name, shape: s, lo: int64(lo), hi: int64(hi), byteLen: need})
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].lo != entries[j].lo {
			return entries[i].lo < entries[j].lo
		}
		return entries[i].name < entries[j].name
	})
	for i := 1; i < len(entries); i++ {
		if a, b := entries[i-1], entries[i]; a.hi > b.lo {
			return fail("tensors %q (data_offsets [%d, %d]) and %q ([%d, %d]) overlap", a.name, a.lo, a.hi, b.name, b.lo, b.hi)
		}
	}
	names := make([]string, len(entries))
	out := make(map[string]*Tensor, len(entries))
	for i, e := range entries {
		buf, err := readAtChecked(r, base+e.lo, e.hi-e.lo)
		if err != nil {
			return fail("tensor %q: %v", e.name, err)
		}
		if !nativeLittleEndian {
			swapBytes(buf, e.shape.Elem.ByteSize())
		}
		names[i] = e.name
		out[e.name] = &Tensor{shape: e.shape, data: buf}
	}
	return newWeights(names, out), nil
}

// WriteSafetensors writes tensors (row-major, default layout) to w in the
// safetensors format, names sorted.
func WriteSafetensors(w io.Writer, tensors map[string]*Tensor) error {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	dtypeName := map[ir.ElementType]string{}
	for k, v := range safetensorsDTypes {
		dtypeName[v] = k
	}
	header := map[string]any{}
	off := 0
	for _, n := range names {
		t := tensors[n]
		dt, ok := dtypeName[t.shape.Elem]
		if !ok {
			return fmt.Errorf("runtime: tensor %q: element type %v has no safetensors dtype", n, t.shape.Elem)
		}
		shape := t.shape.Dims
		if shape == nil {
			shape = []int{}
		}
		header[n] = map[string]any{"dtype": dt, "shape": shape, "data_offsets": []int{off, off + len(t.data)}}
		off += len(t.data)
	}
	js, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(js)))
	if _, err := w.Write(lenBuf[:]); err != nil {
		return err
	}
	if _, err := w.Write(js); err != nil {
		return err
	}
	for _, n := range names {
		data := littleEndianBytes(tensors[n])
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}

// littleEndianBytes returns a tensor's bytes in little-endian order.
func littleEndianBytes(t *Tensor) []byte {
	if nativeLittleEndian {
		return t.data
	}
	c := append([]byte(nil), t.data...)
	swapBytes(c, t.shape.Elem.ByteSize())
	return c
}
