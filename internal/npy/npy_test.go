package npy

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// The fixtures were written by numpy (testdata/gen/npy_fixtures.py); every
// element's value follows from its row-major index i: bool i%2 == 1, complex
// i - i·1j, signed integers and floats i - 3, unsigned integers i.
func expected(t ir.ElementType, i int) float64 {
	switch {
	case t == ir.PRED:
		return float64(i % 2)
	case t.IsUnsigned():
		return float64(i)
	}
	return float64(i - 3)
}

func checkFixture(t *testing.T, l *ir.Literal, et ir.ElementType, dims []int) {
	t.Helper()
	s := l.Shape()
	if s.Elem != et || !ir.SameDimensions(s, ir.MakeShape(et, dims...)) {
		t.Fatalf("shape %v, want %v", s, ir.MakeShape(et, dims...))
	}
	for i := 0; i < l.ElementCount(); i++ {
		if et.IsComplex() {
			c := l.Complex128At(i)
			if c != complex(float64(i), -float64(i)) {
				t.Fatalf("element %d = %v, want %v", i, c, complex(float64(i), -float64(i)))
			}
			continue
		}
		if got, want := l.Float64At(i), expected(et, i); got != want {
			t.Fatalf("element %d = %v, want %v", i, got, want)
		}
	}
}

func TestReadEveryDtypeOrderAndLayout(t *testing.T) {
	for code, et := range dtypes {
		for _, layout := range []string{"c", "fortran", "big"} {
			path := filepath.Join("testdata", code+"_"+layout+".npy")
			if layout == "big" && et.ByteSize() == 1 {
				continue
			}
			t.Run(code+"_"+layout, func(t *testing.T) {
				l, err := ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				checkFixture(t, l, et, []int{2, 3, 4})
			})
		}
	}
}

func TestReadScalarEmptyVectorAndVersion2(t *testing.T) {
	l, err := ReadFile("testdata/scalar_f8.npy")
	if err != nil {
		t.Fatal(err)
	}
	if l.Shape().Rank() != 0 || l.Float64At(0) != -2.5 {
		t.Errorf("scalar: got %v %v", l.Shape(), l.Float64At(0))
	}
	l, err = ReadFile("testdata/empty_f4.npy")
	if err != nil {
		t.Fatal(err)
	}
	if !ir.SameDimensions(l.Shape(), ir.MakeShape(ir.F32, 0, 3)) {
		t.Errorf("empty: shape %v", l.Shape())
	}
	l, err = ReadFile("testdata/vector_i4.npy")
	if err != nil {
		t.Fatal(err)
	}
	checkFixture(t, l, ir.S32, []int{5})
	l, err = ReadFile("testdata/v2_f4.npy")
	if err != nil {
		t.Fatal(err)
	}
	checkFixture(t, l, ir.F32, []int{2, 3})
}

func TestReadArchive(t *testing.T) {
	names, arrays, err := ReadArchive("testdata/pair.npz")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "w,b" {
		t.Fatalf("names %v, want [w b]", names)
	}
	checkFixture(t, arrays["w"], ir.F32, []int{3, 2})
	checkFixture(t, arrays["b"], ir.S64, []int{2})
}

func TestWriteReadRoundTrip(t *testing.T) {
	for _, l := range []*ir.Literal{
		ir.MustLiteralFromSlice([]float32{1, -2, 3.5, 4, 5, 6}, 2, 3),
		ir.MustLiteralFromSlice([]bool{true, false, true}),
		ir.MustLiteralFromSlice([]complex128{1 + 2i}, 1, 1),
		ir.ScalarLiteral[int64](-7),
		ir.MustLiteralFromSlice([]ir.Float16{0x3c00, 0xc000}),
	} {
		var buf bytes.Buffer
		if err := Write(&buf, l); err != nil {
			t.Fatal(err)
		}
		if buf.Len()%64 != int(l.Shape().ByteSize())%64 {
			t.Errorf("%v: data does not start on a 64-byte boundary", l.Shape())
		}
		got, err := Read(&buf)
		if err != nil {
			t.Fatalf("%v: %v", l.Shape(), err)
		}
		if !got.Equal(l) {
			t.Errorf("%v: round trip changed the literal", l.Shape())
		}
	}
	if err := Write(&bytes.Buffer{}, ir.MustLiteralFromSlice([]ir.BFloat16{1})); err == nil || !strings.Contains(err.Error(), "bf16") {
		t.Errorf("bf16: got %v, want a refusal naming the type", err)
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		name, data, want string
	}{
		{"magic", "NOTNUMPY", "not a .npy file"},
		{"version", "\x93NUMPY\x04\x00", "version 4.0"},
		{"dtype", npyHeader("{'descr': '<U8', 'fortran_order': False, 'shape': (2,), }"), "dtype"},
		{"structured", npyHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }"), "structured"},
		{"short data", npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") + "abcd", "reading 24 bytes"},
		{"negative dimension", npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }"), "dimension 1 is negative (-3)"},
		{"non-digit dimension", npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, é), }"), "found 'é'"},
		{"overflowing dimensions", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2000000000, 2000000000, 2000000000, 2000000000), }"), "more than 2^64 bytes"},
		{"huge", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 10000), }"), "limit"},
		{"missing key", npyHeader("{'descr': '<f4', 'shape': (2,), }"), "fortran_order"},
		{"bad bool", npyHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }") + "\x07", "byte value 7"},
	} {
		_, err := Read(strings.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
		if _, err := ReadSized(strings.NewReader(c.data), int64(len(c.data))); err == nil {
			t.Errorf("%s (sized): accepted", c.name)
		}
	}
}

// lyingNPY is a 128-byte .npy file whose header declares 3 GB of float32
// data (the seed that made the reader allocate what the header claimed).
func lyingNPY() []byte {
	b := []byte(npyHeader(lyingHeader))
	for len(b) < 128 {
		b = append(b, 0)
	}
	return b[:128]
}

const lyingHeader = "{'descr': '<f4', 'fortran_order': False, 'shape': (750000000,), }"

// lyingNPZ is a small .npz archive holding lyingNPY stored uncompressed.
func lyingNPZ(t testing.TB) []byte { return npzOf(t, lyingNPY()) }

// npzOf is a .npz archive holding one member, w.npy, stored uncompressed.
func npzOf(t testing.TB, member []byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "w.npy", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(member)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocatedBy returns the bytes f allocates on the heap.
func allocatedBy(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestLyingSizesAreRefusedBeforeAllocating(t *testing.T) {
	npyFile := lyingNPY()
	npzFile := lyingNPZ(t)
	dir := t.TempDir()
	npyPath, npzPath := filepath.Join(dir, "lie.npy"), filepath.Join(dir, "lie.npz")
	if err := os.WriteFile(npyPath, npyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(npzPath, npzFile, 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 1 << 20
	// What the file holds after its 10-byte preamble and its header.
	held := fmt.Sprint(128 - 10 - len(lyingHeader))
	// Of a reader of unknown length, the data is read until it ends, unless
	// the claim is beyond what a literal may hold (2 GiB where int has 32
	// bits).
	unknownLength := "only " + held + " bytes"
	if bits.UintSize == 32 {
		unknownLength = "above the limit"
	}
	for _, c := range []struct {
		name string
		read func() error
		want []string
	}{
		{"Read", func() error { _, err := Read(bytes.NewReader(npyFile)); return err }, []string{"3000000000 bytes", unknownLength}},
		{"ReadSized", func() error { _, err := ReadSized(bytes.NewReader(npyFile), 128); return err }, []string{"3000000000 bytes of data", "holds " + held + " bytes"}},
		{"ReadFile", func() error { _, err := ReadFile(npyPath); return err }, []string{npyPath, "3000000000 bytes of data", "holds " + held + " bytes"}},
		{"ReadArchive", func() error { _, _, err := ReadArchive(npzPath); return err }, []string{npzPath, "member w.npy", "3000000000 bytes of data", "holds " + held + " bytes"}},
	} {
		var err error
		n := allocatedBy(func() { err = c.read() })
		if err == nil {
			t.Fatalf("%s: a 3 GB claim in a %d-byte file was accepted", c.name, len(npyFile))
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, w)
			}
		}
		if n > budget {
			t.Errorf("%s: allocated %d bytes before refusing, want at most %d", c.name, n, budget)
		}
	}
}

func TestArchiveMemberSizesAreChecked(t *testing.T) {
	// A deflated member whose directory entry claims 3 GB from a few bytes.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "w.npy", Method: zip.Deflate,
		CompressedSize64: 2, UncompressedSize64: 3 << 30})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte{3, 0})
	zw.Close()
	_, _, err = ReadArchiveFrom(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err == nil || !strings.Contains(err.Error(), "declares 3221225472 bytes, more than its 2 compressed bytes can hold") {
		t.Errorf("got %v, want a refusal of the member's claimed size", err)
	}
}

func npyHeader(h string) string {
	return "\x93NUMPY\x01\x00" + string([]byte{byte(len(h)), byte(len(h) >> 8)}) + h
}

// FuzzRead checks that no input makes Read panic, and that whatever it
// accepts writes back and reads again to the same literal.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"f4_c.npy", "b1_fortran.npy", "c16_big.npy", "scalar_f8.npy", "v2_f4.npy", "empty_f4.npy"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(npyHeader("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 1, 2), }") + "\x01\x00\x02\x00\x03\x00\x04\x00"))
	// The inputs that made the reader allocate what a header claimed, and
	// report a negative dimension as "".
	f.Add(lyingNPY())
	f.Add([]byte(npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 10000), }")))
	f.Add([]byte(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }")))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data))
		sized, serr := ReadSized(bytes.NewReader(data), int64(len(data)))
		if (err == nil) != (serr == nil) {
			t.Fatalf("Read: %v; ReadSized: %v", err, serr)
		}
		if err != nil {
			return
		}
		if !sized.Equal(l) {
			t.Fatalf("Read and ReadSized disagree on %v", l.Shape())
		}
		var buf bytes.Buffer
		if err := Write(&buf, l); err != nil {
			t.Fatalf("Write of an accepted literal %v: %v", l.Shape(), err)
		}
		back, err := Read(&buf)
		if err != nil || !back.Equal(l) {
			t.Fatalf("round trip of %v: %v", l.Shape(), err)
		}
	})
}

// FuzzReadArchiveFrom checks that no archive makes ReadArchiveFrom panic or
// allocate what its headers claim.
func FuzzReadArchiveFrom(f *testing.F) {
	data, err := os.ReadFile("testdata/pair.npz")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(lyingNPZ(f))
	// A member with a negative dimension (reported as "" once).
	f.Add(npzOf(f, []byte(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }"))))
	f.Fuzz(func(t *testing.T, data []byte) {
		names, arrays, err := ReadArchiveFrom(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if len(names) != len(arrays) {
			t.Fatalf("%d names, %d arrays", len(names), len(arrays))
		}
	})
}
