// Package npy reads and writes NumPy's .npy array files and reads .npz
// archives of them, as ir.Literal values.
//
// Every dtype numpy writes for the types Kiln has is read: bool (|b1),
// signed and unsigned integers of 1, 2, 4 and 8 bytes, float16 (<f2),
// float32, float64, complex64 (<c8) and complex128, in either byte order,
// in C or Fortran order, for format versions 1.0, 2.0 and 3.0. Literals are
// always row-major, so a Fortran-ordered array is transposed on reading.
package npy

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kilnml/kiln/ir"
)

var magic = []byte("\x93NUMPY")

// dtypes maps numpy's type code (kind and size, without byte order) to the
// element type holding it.
var dtypes = map[string]ir.ElementType{
	"b1": ir.PRED,
	"i1": ir.S8, "i2": ir.S16, "i4": ir.S32, "i8": ir.S64,
	"u1": ir.U8, "u2": ir.U16, "u4": ir.U32, "u8": ir.U64,
	"f2": ir.F16, "f4": ir.F32, "f8": ir.F64,
	"c8": ir.C64, "c16": ir.C128,
}

// ReadFile reads a .npy file. The sizes its header declares are checked
// against the file's length before anything is allocated for them.
func ReadFile(path string) (*ir.Literal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	l, err := ReadSized(bufio.NewReader(f), st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Read reads one .npy array from r, whose length is not known. Storage for
// the data grows with the bytes that actually arrive (it doubles while they
// keep coming), so a header that claims more than r holds fails with an
// error after allocating a few times what r held, never what it claims.
func Read(r io.Reader) (*ir.Literal, error) { return read(r, -1) }

// ReadSized reads one .npy array from r, which holds size bytes (the length
// of a file or of an archive member): the header and data lengths the file
// declares are checked against size before anything is allocated for them.
func ReadSized(r io.Reader, size int64) (*ir.Literal, error) {
	if size < 0 {
		return nil, fmt.Errorf("npy: negative length %d", size)
	}
	return read(r, size)
}

// maxHeaderBytes bounds the header dictionary of a version 2.0 or 3.0 file.
const maxHeaderBytes = 1 << 20

// read reads one array; size is the length of r, or -1 when not known.
func read(r io.Reader, size int64) (*ir.Literal, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: reading the magic string: %w", err)
	}
	if !bytes.Equal(pre[:6], magic) {
		return nil, fmt.Errorf("npy: not a .npy file (magic %q, want %q)", pre[:6], magic)
	}
	major := pre[6]
	var hlen, prefix int64
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading the header length: %w", err)
		}
		hlen, prefix = int64(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading the header length: %w", err)
		}
		hlen, prefix = int64(binary.LittleEndian.Uint32(b[:])), 12
		if hlen > maxHeaderBytes {
			return nil, fmt.Errorf("npy: header of %d bytes is implausibly long (at most %d expected)", hlen, maxHeaderBytes)
		}
	default:
		return nil, fmt.Errorf("npy: format version %d.%d is not supported (1.0, 2.0 and 3.0 are)", major, pre[7])
	}
	if size >= 0 && hlen > size-prefix {
		return nil, fmt.Errorf("npy: header declares %d bytes, the input holds %d after the %d-byte preamble", hlen, max(size-prefix, 0), prefix)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: reading the %d-byte header: %w", hlen, err)
	}
	h, err := parseHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	et, swap, err := parseDescr(h.descr)
	if err != nil {
		return nil, err
	}
	dims := h.shape
	if h.fortran {
		dims = reversed(h.shape)
	}
	need, err := dataBytes(et, h)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		if have := size - prefix - hlen; need > uint64(have) {
			return nil, fmt.Errorf("npy: header declares %s, %d bytes of data; the input holds %d bytes after the header",
				describe(et, h), need, have)
		}
	}
	if need > uint64(ir.MaxLiteralBytes) {
		return nil, fmt.Errorf("npy: header declares %s, %d bytes of data, above the limit of %d bytes", describe(et, h), need, ir.MaxLiteralBytes)
	}
	s := ir.MakeShape(et, dims...)
	if err := s.CheckValid(); err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	var l *ir.Literal
	if size >= 0 {
		if l, err = ir.NewLiteral(s); err == nil {
			if n, rerr := io.ReadFull(r, l.Bytes()); rerr != nil {
				err = fmt.Errorf("npy: reading %d bytes of %s data for shape %v: only %d bytes could be read: %w", need, h.descr, h.shape, n, rerr)
			}
		}
	} else {
		l, err = readGrowing(r, s, h, need)
	}
	if err != nil {
		return nil, err
	}
	data := l.Bytes()
	if swap {
		swapBytes(data, componentSize(et))
	}
	if et == ir.PRED {
		for i, b := range data {
			if b > 1 {
				return nil, fmt.Errorf("npy: bool element %d has byte value %d, want 0 or 1", i, b)
			}
		}
	}
	if h.fortran && len(dims) > 1 {
		// Fortran order is row-major over the reversed dimensions: transpose back.
		return transposeReversed(l, h.shape)
	}
	return l, nil
}

// dataBytes is the size of the data a header declares, refused when it
// does not fit 64 bits.
func dataBytes(et ir.ElementType, h header) (uint64, error) {
	n := uint64(et.ByteSize())
	for _, d := range h.shape {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 {
			return 0, fmt.Errorf("npy: header declares %s, more than 2^64 bytes of data, above the limit of %d bytes", describe(et, h), ir.MaxLiteralBytes)
		}
		n = lo
	}
	return n, nil
}

// describe names the array a header declares: its dtype and shape.
func describe(et ir.ElementType, h header) string {
	parts := make([]string, len(h.shape))
	for i, d := range h.shape {
		parts[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("%s[%s] ('%s')", et, strings.Join(parts, ","), h.descr)
}

// growChunk is the first allocation readGrowing makes for data of unknown
// availability; each further one doubles it, up to the declared size.
const growChunk = 1 << 16

// readGrowing reads the need bytes of an array of shape s from r, whose
// length is not known, allocating as the bytes arrive: a buffer that
// doubles while data keeps coming, and the literal itself only once at
// least half of its bytes have been read.
func readGrowing(r io.Reader, s ir.Shape, h header, need uint64) (*ir.Literal, error) {
	n := int(need)
	if n <= growChunk {
		l, err := ir.NewLiteral(s)
		if err != nil {
			return nil, fmt.Errorf("npy: %w", err)
		}
		if got, err := io.ReadFull(r, l.Bytes()); err != nil {
			return nil, fmt.Errorf("npy: reading %d bytes of %s data for shape %v: only %d bytes could be read: %w", n, h.descr, h.shape, got, err)
		}
		return l, nil
	}
	buf := make([]byte, growChunk)
	var l *ir.Literal
	filled := 0
	for {
		got, err := io.ReadFull(r, buf[filled:])
		filled += got
		if err != nil {
			return nil, fmt.Errorf("npy: reading %d bytes of %s data for shape %v: only %d bytes could be read: %w", n, h.descr, h.shape, filled, err)
		}
		if filled == n {
			return l, nil
		}
		next := 2 * len(buf)
		if next >= n {
			// The literal's own storage is the last buffer.
			var lerr error
			if l, lerr = ir.NewLiteral(s); lerr != nil {
				return nil, fmt.Errorf("npy: %w", lerr)
			}
			copy(l.Bytes(), buf[:filled])
			buf = l.Bytes()
			continue
		}
		grown := make([]byte, next)
		copy(grown, buf[:filled])
		buf = grown
	}
}

// ReadArchive reads every array of a .npz file, returning the names (the
// member names without ".npy", in archive order) and the arrays.
func ReadArchive(path string) ([]string, map[string]*ir.Literal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	names, arrays, err := ReadArchiveFrom(f, st.Size())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return names, arrays, nil
}

// maxDeflateRatio bounds how many bytes deflate can expand one compressed
// byte into (1032 for the format, with a margin for the block headers).
const maxDeflateRatio = 1040

// ReadArchiveFrom reads every array of a .npz archive of size bytes from r.
// Each member's declared sizes are checked against the archive before
// anything is allocated for them: a stored member holds exactly its
// compressed bytes, a deflated one at most maxDeflateRatio times them, and
// the array's header must fit what the member holds.
func ReadArchiveFrom(r io.ReaderAt, size int64) ([]string, map[string]*ir.Literal, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, nil, fmt.Errorf("npz: %w", err)
	}
	var names []string
	arrays := map[string]*ir.Literal{}
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := arrays[name]; dup {
			return nil, nil, fmt.Errorf("npz: member %s: a second array named %q", f.Name, name)
		}
		if f.CompressedSize64 > uint64(size) {
			return nil, nil, fmt.Errorf("npz: member %s: declares %d compressed bytes, the archive holds %d bytes", f.Name, f.CompressedSize64, size)
		}
		limit := f.CompressedSize64
		if f.Method != zip.Store {
			limit = f.CompressedSize64*maxDeflateRatio + 64
		}
		if f.UncompressedSize64 > limit {
			return nil, nil, fmt.Errorf("npz: member %s: declares %d bytes, more than its %d compressed bytes can hold", f.Name, f.UncompressedSize64, f.CompressedSize64)
		}
		if f.UncompressedSize64 > 1<<62 {
			return nil, nil, fmt.Errorf("npz: member %s: declares %d bytes", f.Name, f.UncompressedSize64)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("npz: member %s: %w", f.Name, err)
		}
		l, err := ReadSized(bufio.NewReader(rc), int64(f.UncompressedSize64))
		rc.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("npz: member %s: %w", f.Name, err)
		}
		names = append(names, name)
		arrays[name] = l
	}
	return names, arrays, nil
}

// Write writes l as a version 1.0 .npy array in C order and little-endian
// byte order. Element types numpy has no dtype for (BF16, F8, S4, U4) are
// refused.
func Write(w io.Writer, l *ir.Literal) error {
	s := l.Shape()
	if !s.IsArray() {
		return fmt.Errorf("npy: cannot write a literal of shape %v", s)
	}
	code := ""
	for c, t := range dtypes {
		if t == s.Elem {
			code = c
		}
	}
	if code == "" {
		return fmt.Errorf("npy: element type %v has no numpy dtype", s.Elem)
	}
	order := "<"
	if code == "b1" || code == "i1" || code == "u1" {
		order = "|"
	}
	var shape string
	switch len(s.Dims) {
	case 0:
		shape = "()"
	case 1:
		shape = fmt.Sprintf("(%d,)", s.Dims[0])
	default:
		parts := make([]string, len(s.Dims))
		for i, d := range s.Dims {
			parts[i] = strconv.Itoa(d)
		}
		shape = "(" + strings.Join(parts, ", ") + ")"
	}
	hdr := fmt.Sprintf("{'descr': '%s%s', 'fortran_order': False, 'shape': %s, }", order, code, shape)
	// Pad with spaces so that the data starts on a 64-byte boundary.
	total := len(magic) + 2 + 2 + len(hdr) + 1
	hdr += strings.Repeat(" ", (64-total%64)%64) + "\n"
	if len(hdr) > 0xffff {
		return fmt.Errorf("npy: header too long for format 1.0")
	}
	var buf bytes.Buffer
	buf.Write(magic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(hdr)))
	buf.WriteString(hdr)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	data := l.Bytes()
	if nativeBigEndian() {
		data = append([]byte(nil), data...)
		swapBytes(data, componentSize(s.Elem))
	}
	_, err := w.Write(data)
	return err
}

// header is the parsed .npy header dictionary.
type header struct {
	descr   string
	fortran bool
	shape   []int
}

// parseHeader reads the Python dict literal of a .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
func parseHeader(s string) (header, error) {
	var h header
	p := &dictParser{s: strings.TrimSpace(s)}
	if !p.eat('{') {
		return h, fmt.Errorf("npy: header %q is not a dict", s)
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, fmt.Errorf("npy: header %q: %w", s, err)
		}
		p.space()
		if !p.eat(':') {
			return h, fmt.Errorf("npy: header %q: expected ':' after %q", s, key)
		}
		p.space()
		switch key {
		case "descr":
			h.descr, err = p.str()
			if err != nil {
				return h, fmt.Errorf("npy: header %q: descr: %w (structured dtypes are not supported)", s, err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, fmt.Errorf("npy: header %q: fortran_order is not True or False", s)
			}
		case "shape":
			h.shape, err = p.tuple()
			if err != nil {
				return h, fmt.Errorf("npy: header %q: shape: %w", s, err)
			}
		default:
			return h, fmt.Errorf("npy: header %q: unknown key %q", s, key)
		}
		seen[key] = true
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return h, fmt.Errorf("npy: header %q: expected ',' or '}' after %q", s, key)
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("npy: header %q has no %q", s, k)
		}
	}
	return h, nil
}

// parseDescr maps a dtype string such as '<f4' or '|b1' to an element type,
// and reports whether the data's byte order is the opposite of the machine's.
func parseDescr(d string) (ir.ElementType, bool, error) {
	if d == "" {
		return 0, false, fmt.Errorf("npy: empty dtype")
	}
	bigEndian := false
	code := d
	switch d[0] {
	case '<', '|':
		code = d[1:]
	case '>':
		bigEndian, code = true, d[1:]
	case '=':
		bigEndian, code = nativeBigEndian(), d[1:]
	}
	et, ok := dtypes[code]
	if !ok {
		return 0, false, fmt.Errorf("npy: dtype %q is not supported (bool, int, uint, float16/32/64 and complex64/128 are)", d)
	}
	return et, bigEndian != nativeBigEndian() && componentSize(et) > 1, nil
}

// componentSize is the size of the unit whose bytes a byte-order swap
// reverses: the element size, or half of it for complex types.
func componentSize(t ir.ElementType) int {
	if t.IsComplex() {
		return t.ByteSize() / 2
	}
	return t.ByteSize()
}

func swapBytes(data []byte, size int) {
	if size <= 1 {
		return
	}
	for i := 0; i+size <= len(data); i += size {
		for a, b := i, i+size-1; a < b; a, b = a+1, b-1 {
			data[a], data[b] = data[b], data[a]
		}
	}
}

func nativeBigEndian() bool {
	return binary.NativeEndian.Uint16([]byte{1, 0}) != 1
}

func reversed(d []int) []int {
	r := make([]int, len(d))
	for i, v := range d {
		r[len(d)-1-i] = v
	}
	return r
}

// transposeReversed turns l, whose dims are the reverse of dims (Fortran
// data read as C order), into a row-major literal of dims.
func transposeReversed(l *ir.Literal, dims []int) (*ir.Literal, error) {
	out, err := ir.NewLiteral(ir.MakeShape(l.Shape().Elem, dims...))
	if err != nil {
		return nil, err
	}
	es := l.Shape().Elem.ByteSize()
	src, dst := l.Bytes(), out.Bytes()
	rank := len(dims)
	// Element at row-major index idx of out sits in src at Fortran position
	// Σ idx[i]·Π_{j<i} dims[j].
	fstride := make([]int, rank)
	s := 1
	for i := 0; i < rank; i++ {
		fstride[i] = s
		s *= dims[i]
	}
	idx := make([]int, rank)
	n := out.ElementCount()
	for k := 0; k < n; k++ {
		off := 0
		for i, v := range idx {
			off += v * fstride[i]
		}
		copy(dst[k*es:(k+1)*es], src[off*es:(off+1)*es])
		ir.NextIndex(dims, idx)
	}
	return out, nil
}

// dictParser scans the small subset of Python literal syntax .npy headers use.
type dictParser struct {
	s   string
	pos int
}

func (p *dictParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n') {
		p.pos++
	}
}

func (p *dictParser) eat(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *dictParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.pos:], w) {
		p.pos += len(w)
		return true
	}
	return false
}

func (p *dictParser) str() (string, error) {
	if p.pos >= len(p.s) || (p.s[p.pos] != '\'' && p.s[p.pos] != '"') {
		return "", fmt.Errorf("expected a quoted string at offset %d", p.pos)
	}
	q := p.s[p.pos]
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string at offset %d", p.pos)
	}
	v := p.s[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return v, nil
}

func (p *dictParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("expected a tuple at offset %d", p.pos)
	}
	dims := []int{}
	for {
		p.space()
		if p.eat(')') {
			return dims, nil
		}
		start := p.pos
		if p.eat('-') {
			for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
				p.pos++
			}
			return nil, fmt.Errorf("dimension %d is negative (%s), want a size ≥ 0", len(dims), p.s[start:p.pos])
		}
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		digits := p.s[start:p.pos]
		p.word("L") // Python 2 long suffix
		if digits == "" {
			found := "the end of the header"
			if p.pos < len(p.s) {
				r, _ := utf8.DecodeRuneInString(p.s[p.pos:])
				found = strconv.QuoteRune(r)
			}
			return nil, fmt.Errorf("dimension %d: expected a size (digits) at offset %d, found %s", len(dims), start, found)
		}
		d, err := strconv.Atoi(digits)
		if err != nil {
			return nil, fmt.Errorf("dimension %d: size %s does not fit an int", len(dims), digits)
		}
		dims = append(dims, d)
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.pos)
			}
			return dims, nil
		}
	}
}
