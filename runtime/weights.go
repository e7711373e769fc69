package runtime

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
)

// LoadNPY reads one array from a .npy file.
func LoadNPY(path string) (*Tensor, error) {
	l, err := npy.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return TensorFromLiteral(l), nil
}

// LoadNPZ reads every array of a .npz archive, by name (the archive's member
// names without the .npy suffix).
func LoadNPZ(path string) (map[string]*Tensor, error) {
	_, arrays, err := npy.ReadArchive(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	out := make(map[string]*Tensor, len(arrays))
	for name, l := range arrays {
		out[name] = TensorFromLiteral(l)
	}
	return out, nil
}

// safetensorsDTypes maps safetensors dtype names to element types.
var safetensorsDTypes = map[string]ir.ElementType{
	"BOOL": ir.PRED, "I8": ir.S8, "I16": ir.S16, "I32": ir.S32, "I64": ir.S64,
	"U8": ir.U8, "U16": ir.U16, "U32": ir.U32, "U64": ir.U64,
	"F16": ir.F16, "BF16": ir.BF16, "F32": ir.F32, "F64": ir.F64,
	"F8_E5M2": ir.F8E5M2, "F8_E4M3": ir.F8E4M3FN,
}

// maxSafetensorsHeader bounds the JSON header a safetensors file may declare.
const maxSafetensorsHeader = 100 << 20

// LoadSafetensors reads every tensor of a .safetensors file, by name. The
// file is memory-mapped where the platform allows (the tensors then share
// the mapping, which stays valid for the life of the process) and read into
// memory otherwise. Tensors are little-endian row-major, as the format
// specifies.
func LoadSafetensors(path string) (map[string]*Tensor, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return parseSafetensors(data, path)
}

func parseSafetensors(data []byte, path string) (map[string]*Tensor, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("runtime: %s: %d bytes is too short for a safetensors file (8-byte header length expected)", path, len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > maxSafetensorsHeader || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("runtime: %s: header length %d exceeds the file (%d bytes)", path, n, len(data))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("runtime: %s: bad safetensors header: %w", path, err)
	}
	body := data[8+n:]
	out := make(map[string]*Tensor, len(header))
	for name, raw := range header {
		if name == "__metadata__" {
			continue
		}
		var entry struct {
			DType   string `json:"dtype"`
			Shape   []int  `json:"shape"`
			Offsets [2]int `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &entry); err != nil {
			return nil, fmt.Errorf("runtime: %s: tensor %q: %w", path, name, err)
		}
		t, ok := safetensorsDTypes[entry.DType]
		if !ok {
			return nil, fmt.Errorf("runtime: %s: tensor %q has dtype %q, which Kiln does not support", path, name, entry.DType)
		}
		s := ir.MakeShape(t, entry.Shape...)
		if err := s.CheckValid(); err != nil {
			return nil, fmt.Errorf("runtime: %s: tensor %q: %w", path, name, err)
		}
		lo, hi := entry.Offsets[0], entry.Offsets[1]
		if lo < 0 || hi < lo || hi > len(body) || hi-lo != s.ByteSize() {
			return nil, fmt.Errorf("runtime: %s: tensor %q: data_offsets [%d, %d] do not hold %v (%d bytes) within %d bytes of data",
				path, name, lo, hi, s, s.ByteSize(), len(body))
		}
		buf := body[lo:hi:hi]
		if !aligned(buf, t.ByteSize()) || !nativeLittleEndian {
			c := alignedBytes(len(buf))
			copy(c, buf)
			if !nativeLittleEndian {
				swapBytes(c, t.ByteSize())
			}
			buf = c
		}
		out[name] = &Tensor{shape: s, data: buf}
	}
	return out, nil
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
		if _, err := w.Write(tensors[n].data); err != nil {
			return err
		}
	}
	return nil
}

// LoadWeights reads named tensors from a .safetensors, .npz or .npy file
// (a .npy file yields one tensor named after the file without its suffix).
func LoadWeights(path string) (map[string]*Tensor, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".safetensors":
		return LoadSafetensors(path)
	case ".npz":
		return LoadNPZ(path)
	case ".npy":
		t, err := LoadNPY(path)
		if err != nil {
			return nil, err
		}
		return map[string]*Tensor{strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)): t}, nil
	}
	return nil, fmt.Errorf("runtime: %s: unknown weights format (want .safetensors, .npz or .npy)", path)
}

// readWholeFile is the fallback of mapFile on platforms without mmap.
func readWholeFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := alignedBytes(int(st.Size()))
	_, err = io.ReadFull(f, buf)
	return buf, err
}
