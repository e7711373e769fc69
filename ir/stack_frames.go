package ir

import (
	"strconv"
	"strings"
)

// StackFrameIndex is the table of source locations XLA prints between the
// HloModule line and the computations (FileNames, FunctionNames,
// FileLocations, StackFrames); an instruction's metadata names a frame with
// stack_frame_id=N. Kiln keeps it so that printing gives it back; every id
// is the 1-based number written in the text.
type StackFrameIndex struct {
	FileNames     []string
	FunctionNames []string
	FileLocations []FileLocation
	Frames        []StackFrame
}

// FileLocation is one entry of FileLocations: a source range in a file and
// function, both given by their 1-based ids.
type FileLocation struct {
	FileNameID, FunctionNameID int
	Line, EndLine              int
	Column, EndColumn          int
}

// StackFrame is one entry of StackFrames: a file location and the frame
// that called it, as written.
type StackFrame struct {
	FileLocationID, ParentFrameID int
}

// String prints the index as XLA does: each section's name on a line, then
// one numbered entry per line, sections separated by blank lines.
func (x *StackFrameIndex) String() string {
	var b strings.Builder
	b.WriteString("FileNames\n")
	for i, n := range x.FileNames {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(` "`)
		b.WriteString(cEscape(n))
		b.WriteString("\"\n")
	}
	b.WriteString("\nFunctionNames\n")
	for i, n := range x.FunctionNames {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(` "`)
		b.WriteString(cEscape(n))
		b.WriteString("\"\n")
	}
	b.WriteString("\nFileLocations\n")
	for i, l := range x.FileLocations {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(" {file_name_id=" + strconv.Itoa(l.FileNameID))
		b.WriteString(" function_name_id=" + strconv.Itoa(l.FunctionNameID))
		b.WriteString(" line=" + strconv.Itoa(l.Line))
		b.WriteString(" end_line=" + strconv.Itoa(l.EndLine))
		b.WriteString(" column=" + strconv.Itoa(l.Column))
		b.WriteString(" end_column=" + strconv.Itoa(l.EndColumn))
		b.WriteString("}\n")
	}
	b.WriteString("\nStackFrames\n")
	for i, f := range x.Frames {
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(" {file_location_id=" + strconv.Itoa(f.FileLocationID))
		b.WriteString(" parent_frame_id=" + strconv.Itoa(f.ParentFrameID))
		b.WriteString("}\n")
	}
	return b.String()
}

// stackFrameIndex reads the section after its FileNames keyword:
//
//	1 "file.py" …  FunctionNames  1 "f" …  FileLocations  1 {file_name_id=1 …} …
//	StackFrames  1 {file_location_id=1 parent_frame_id=1} …
//
// The numbers before the entries are read and not checked, as XLA does.
func (s *hloScanner) stackFrameIndex() (*StackFrameIndex, error) {
	x := &StackFrameIndex{}
	numbered := func() bool {
		s.skipSpace()
		return s.pos < len(s.src) && hloIsDigit(s.src[s.pos])
	}
	for numbered() {
		if _, err := s.intValue("file name number"); err != nil {
			return nil, err
		}
		n, err := s.quoted("file name")
		if err != nil {
			return nil, err
		}
		x.FileNames = append(x.FileNames, n)
	}
	if !s.acceptKeyword("FunctionNames") {
		return nil, s.errorf("expected 'FunctionNames' after the FileNames section, found %s", s.found())
	}
	for numbered() {
		if _, err := s.intValue("function name number"); err != nil {
			return nil, err
		}
		n, err := s.quoted("function name")
		if err != nil {
			return nil, err
		}
		x.FunctionNames = append(x.FunctionNames, n)
	}
	if !s.acceptKeyword("FileLocations") {
		return nil, s.errorf("expected 'FileLocations' after the FunctionNames section, found %s", s.found())
	}
	for numbered() {
		if _, err := s.intValue("file location number"); err != nil {
			return nil, err
		}
		v, err := s.int32SubAttributes("file location", "file_name_id", "function_name_id", "line", "end_line", "column", "end_column")
		if err != nil {
			return nil, err
		}
		x.FileLocations = append(x.FileLocations, FileLocation{v[0], v[1], v[2], v[3], v[4], v[5]})
	}
	if !s.acceptKeyword("StackFrames") {
		return nil, s.errorf("expected 'StackFrames' after the FileLocations section, found %s", s.found())
	}
	for numbered() {
		if _, err := s.intValue("stack frame number"); err != nil {
			return nil, err
		}
		v, err := s.int32SubAttributes("stack frame", "file_location_id", "parent_frame_id")
		if err != nil {
			return nil, err
		}
		x.Frames = append(x.Frames, StackFrame{v[0], v[1]})
	}
	return x, nil
}

// int32SubAttributes reads `{a=1 b=2 …}` (commas between the entries are
// optional), where every one of names must appear once with a 32-bit
// integer value and no other name may, and returns the values in the order
// of names.
func (s *hloScanner) int32SubAttributes(what string, names ...string) ([]int, error) {
	open := s.pos
	if err := s.expect('{', "to open "+what); err != nil {
		return nil, err
	}
	vals := make([]int, len(names))
	seen := make([]bool, len(names))
	for !s.accept('}') {
		s.accept(',')
		s.skipSpace()
		at := s.pos
		key := s.ident()
		i := -1
		for j, n := range names {
			if n == key {
				i = j
			}
		}
		if i < 0 {
			return nil, s.errorAt(at, "unexpected %s field %s (expected %s)", what, s.describeWord(key), strings.Join(names, ", "))
		}
		if seen[i] {
			return nil, s.errorAt(at, "%s field %s given twice", what, key)
		}
		seen[i] = true
		if err := s.expect('=', "after "+key); err != nil {
			return nil, err
		}
		s.skipSpace()
		vpos := s.pos
		v, err := s.int64Value(key)
		if err != nil {
			return nil, err
		}
		if v != int64(int32(v)) {
			return nil, s.errorAt(vpos, "%s %d is out of range for a 32-bit integer", key, v)
		}
		vals[i] = int(v)
	}
	for i, ok := range seen {
		if !ok {
			return nil, s.errorAt(open, "%s field %s is expected but not seen", what, names[i])
		}
	}
	return vals, nil
}

// describeWord quotes an identifier read, or describes what was found when
// none was.
func (s *hloScanner) describeWord(w string) string {
	if w == "" {
		return s.found()
	}
	return strconv.Quote(w)
}
