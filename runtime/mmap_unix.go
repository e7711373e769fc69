//go:build unix

package runtime

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only into memory. Mappings are never unmapped:
// tensors loaded from them may live as long as the process.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return []byte{}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readWholeFile(path)
	}
	return data, nil
}
