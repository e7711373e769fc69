package runtime

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kilnml/kiln/internal/npy"
	"github.com/kilnml/kiln/ir"
)

// Weights is a set of named tensors read from a weights file (.safetensors,
// .npz or .npy), to bind to a module's parameters with
// WithWeights(w.Tensors()).
//
// Every tensor is a copy in memory the Go heap owns: nothing a program does
// to a tensor, or to the file after loading, can fault the process, and
// Compile keeps copies of its own of what it binds, so Close may be called
// right after Compile. Every size a file declares is checked against the
// file's length before anything is allocated for it; a file that claims
// more than it holds is refused with an error naming the file, the tensor
// and both byte counts.
type Weights struct {
	mu      sync.Mutex
	tensors map[string]*Tensor
	names   []string
}

func newWeights(names []string, tensors map[string]*Tensor) *Weights {
	return &Weights{tensors: tensors, names: names}
}

// Tensors returns the tensors by name (nil after Close). The map is the
// Weights' own: read it, do not change it.
func (w *Weights) Tensors() map[string]*Tensor {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tensors
}

// Names lists the tensors' names in the order the file holds them (nil after
// Close).
func (w *Weights) Names() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.names)
}

// Close drops the Weights' references to its tensors, so that their memory
// is freed once nothing else uses it. Executables compiled with the tensors
// do not use it: Compile copies what it binds. Close is idempotent and
// always returns nil.
func (w *Weights) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tensors, w.names = nil, nil
	return nil
}

// ReadSafetensors reads every tensor of a safetensors file of size bytes
// from r. Tensors are little-endian row-major, as the format specifies.
func ReadSafetensors(r io.ReaderAt, size int64) (*Weights, error) {
	return readSafetensors(r, size, "safetensors input")
}

// ReadNPZ reads every array of a .npz archive of size bytes from r, named
// after its members without the .npy suffix.
func ReadNPZ(r io.ReaderAt, size int64) (*Weights, error) {
	return readNPZ(r, size, "npz input")
}

// NPYName is the name ReadNPY gives the one array of a .npy stream, as
// numpy's savez names an array given without a name.
const NPYName = "arr_0"

// ReadNPY reads one .npy array from r, as a Weights holding one tensor named
// NPYName. The reader's length is not known, so the storage for the data
// grows as its bytes arrive: a header that claims more than r holds is
// refused without allocating what it claims.
func ReadNPY(r io.Reader) (*Weights, error) {
	return readNPY(r, -1, "npy input", NPYName)
}

// LoadSafetensors reads every tensor of a .safetensors file.
func LoadSafetensors(path string) (*Weights, error) {
	return loadFile(path, func(r io.ReaderAt, size int64) (*Weights, error) { return readSafetensors(r, size, path) })
}

// LoadNPZ reads every array of a .npz archive, named after its members
// without the .npy suffix.
func LoadNPZ(path string) (*Weights, error) {
	return loadFile(path, func(r io.ReaderAt, size int64) (*Weights, error) { return readNPZ(r, size, path) })
}

// LoadNPY reads a .npy file, as a Weights holding one tensor named after the
// file without its suffix.
func LoadNPY(path string) (*Weights, error) {
	return loadFile(path, func(r io.ReaderAt, size int64) (*Weights, error) {
		return readNPY(io.NewSectionReader(r, 0, size), size, path, stem(path))
	})
}

// LoadWeights reads named tensors from a .safetensors, .npz or .npy file,
// chosen by the path's suffix.
func LoadWeights(path string) (*Weights, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".safetensors":
		return LoadSafetensors(path)
	case ".npz":
		return LoadNPZ(path)
	case ".npy":
		return LoadNPY(path)
	}
	return nil, fmt.Errorf("runtime: %s: unknown weights format (want .safetensors, .npz or .npy)", path)
}

// LoadSafetensorsFS reads every tensor of the .safetensors file name in
// fsys (an embed.FS, os.DirFS, …).
func LoadSafetensorsFS(fsys fs.FS, name string) (*Weights, error) {
	return loadFS(fsys, name, func(r io.ReaderAt, size int64) (*Weights, error) { return readSafetensors(r, size, name) })
}

// LoadNPZFS reads every array of the .npz archive name in fsys.
func LoadNPZFS(fsys fs.FS, name string) (*Weights, error) {
	return loadFS(fsys, name, func(r io.ReaderAt, size int64) (*Weights, error) { return readNPZ(r, size, name) })
}

// LoadNPYFS reads the .npy file name in fsys, as a Weights holding one
// tensor named after the file without its suffix.
func LoadNPYFS(fsys fs.FS, name string) (*Weights, error) {
	return loadFS(fsys, name, func(r io.ReaderAt, size int64) (*Weights, error) {
		return readNPY(io.NewSectionReader(r, 0, size), size, name, stem(name))
	})
}

// LoadWeightsFS reads named tensors from the .safetensors, .npz or .npy file
// name in fsys, chosen by its suffix.
func LoadWeightsFS(fsys fs.FS, name string) (*Weights, error) {
	switch strings.ToLower(path.Ext(name)) {
	case ".safetensors":
		return LoadSafetensorsFS(fsys, name)
	case ".npz":
		return LoadNPZFS(fsys, name)
	case ".npy":
		return LoadNPYFS(fsys, name)
	}
	return nil, fmt.Errorf("runtime: %s: unknown weights format (want .safetensors, .npz or .npy)", name)
}

// stem is a file's base name without its suffix.
func stem(p string) string {
	b := path.Base(filepath.ToSlash(p))
	return strings.TrimSuffix(b, path.Ext(b))
}

// loadFile opens path and reads it with read, which gets the file's length.
func loadFile(path string, read func(io.ReaderAt, int64) (*Weights, error)) (*Weights, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	return read(f, st.Size())
}

// loadFS opens name in fsys and reads it with read. A file that cannot read
// at an offset is read whole first, its buffer growing with the bytes that
// arrive, never beyond what its Stat declares.
func loadFS(fsys fs.FS, name string, read func(io.ReaderAt, int64) (*Weights, error)) (*Weights, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	if ra, ok := f.(io.ReaderAt); ok {
		return read(ra, st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, st.Size()))
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", name, err)
	}
	if int64(len(data)) != st.Size() {
		return nil, fmt.Errorf("runtime: %s: its Stat declares %d bytes, %d could be read", name, st.Size(), len(data))
	}
	return read(bytes.NewReader(data), st.Size())
}

// readNPZ reads an archive; source names it in errors.
func readNPZ(r io.ReaderAt, size int64, source string) (*Weights, error) {
	names, arrays, err := npy.ReadArchiveFrom(r, size)
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: %w", source, err)
	}
	out := make(map[string]*Tensor, len(arrays))
	for name, l := range arrays {
		out[name] = TensorFromLiteral(l)
	}
	return newWeights(names, out), nil
}

// readNPY reads one array of size bytes (-1: not known) from r as tensor name.
func readNPY(r io.Reader, size int64, source, name string) (*Weights, error) {
	var l *ir.Literal
	var err error
	if size >= 0 {
		l, err = npy.ReadSized(r, size)
	} else {
		l, err = npy.Read(r)
	}
	if err != nil {
		return nil, fmt.Errorf("runtime: %s: tensor %q: %w", source, name, err)
	}
	return newWeights([]string{name}, map[string]*Tensor{name: TensorFromLiteral(l)}), nil
}

// probeChunk is the largest read readAtChecked makes without first checking
// that the reader holds its last byte.
const probeChunk = 1 << 20

// readAtChecked reads n bytes at off into aligned storage. Before allocating
// more than probeChunk bytes it reads the last of them, so that a reader
// shorter than its declared size fails before the allocation.
func readAtChecked(r io.ReaderAt, off, n int64) ([]byte, error) {
	if n > probeChunk {
		var last [1]byte
		if _, err := r.ReadAt(last[:], off+n-1); err != nil {
			return nil, fmt.Errorf("the input ends before byte %d: %w", off+n, err)
		}
	}
	buf := alignedBytes(int(n))
	if got, err := r.ReadAt(buf, off); got < len(buf) {
		return nil, fmt.Errorf("only %d of %d bytes at offset %d could be read: %w", got, n, off, err)
	}
	return buf, nil
}
