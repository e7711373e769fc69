package ir

import (
	"fmt"
	"strings"
)

// This file reads the mesh form of replica groups, XLA's collective device
// list over named mesh axes:
//
//	mesh['x'=2,'y'=2] {'y'}                       devices 0..3 on a 2x2 mesh, grouped along y
//	mesh['x'=2,'y'=2, device_ids=(3,2,1,0)] {'x'} the mesh's devices listed
//	mesh['x'=2,'y'=2, device_ids=([2,2]T(1,0))] {'x', 'y'}
//	mesh['x'=4] {'x':(1)2}                        a sub-axis: size 2 after a pre-size of 1
//
// The groups hold, for each position on the other axes (row-major), the
// devices along the named axes (the first named the slowest).

// meshReplicaGroups reads the mesh form and expands it into groups when it
// names whole axes.
func (s *hloScanner) meshReplicaGroups() (*ReplicaGroups, error) {
	s.skipSpace()
	start := s.pos
	s.ident() // mesh
	if err := s.expect('[', "after mesh"); err != nil {
		return nil, err
	}
	var names []string
	var sizes []int
	var devices []int
	for s.peek() != ']' {
		s.skipSpace()
		at := s.pos
		if s.peekIdent() == "device_ids" {
			s.ident()
			if err := s.expect('=', "after device_ids"); err != nil {
				return nil, err
			}
			var err error
			if devices, err = s.meshDeviceIDs(sizes); err != nil {
				return nil, err
			}
			if !s.accept(',') {
				break
			}
			continue
		}
		name, err := s.meshAxisName()
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if n == name {
				return nil, s.errorAt(at, "mesh axis '%s' is named twice", name)
			}
		}
		if err := s.expect('=', "after mesh axis '"+name+"'"); err != nil {
			return nil, err
		}
		size, err := s.nonNegInt("mesh axis size")
		if err != nil {
			return nil, err
		}
		names, sizes = append(names, name), append(sizes, size)
		if !s.accept(',') {
			break
		}
	}
	if err := s.expect(']', "to end the mesh axes"); err != nil {
		return nil, err
	}
	n, ok := productOf(sizes)
	if !ok {
		return nil, s.errorAt(start, "the mesh axes %v are too large", sizes)
	}
	if devices != nil && len(devices) != n {
		return nil, s.errorAt(start, "expected %d device_ids for the mesh axes %v, found %d", n, sizes, len(devices))
	}
	if devices == nil {
		devices = make([]int, n)
		for i := range devices {
			devices[i] = i
		}
	}
	if err := s.expect('{', "to start the mesh axes the groups span"); err != nil {
		return nil, err
	}
	var axes []int
	whole := true
	for s.peek() != '}' {
		s.skipSpace()
		at := s.pos
		name, err := s.meshAxisName()
		if err != nil {
			return nil, err
		}
		a := -1
		for i, n := range names {
			if n == name {
				a = i
			}
		}
		if a < 0 {
			return nil, s.errorAt(at, "axis '%s' is not an axis of the mesh (%s)", name, strings.Join(names, ", "))
		}
		for _, b := range axes {
			if b == a {
				return nil, s.errorAt(at, "mesh axis '%s' is listed twice", name)
			}
		}
		axes = append(axes, a)
		if s.accept(':') {
			// A sub-axis: (pre-size)size.
			whole = false
			if err := s.expect('(', "to start a sub-axis pre-size"); err != nil {
				return nil, err
			}
			if _, err := s.nonNegInt("sub-axis pre-size"); err != nil {
				return nil, err
			}
			if err := s.expect(')', "after a sub-axis pre-size"); err != nil {
				return nil, err
			}
			if _, err := s.nonNegInt("sub-axis size"); err != nil {
				return nil, err
			}
		}
		if !s.accept(',') {
			break
		}
	}
	if err := s.expect('}', "to end the mesh axes the groups span"); err != nil {
		return nil, err
	}
	g := &ReplicaGroups{Mesh: strings.Join(strings.Fields(s.src[start:s.pos]), " ")}
	if whole {
		g.Groups = meshGroups(sizes, devices, axes)
	}
	return g, nil
}

// meshAxisName reads a quoted axis name: 'axis_0'.
func (s *hloScanner) meshAxisName() (string, error) {
	s.skipSpace()
	at := s.pos
	if s.pos >= len(s.src) || s.src[s.pos] != '\'' {
		return "", s.errorf("expected a mesh axis name in single quotes, found %s", s.found())
	}
	end := strings.IndexByte(s.src[s.pos+1:], '\'')
	if end < 0 {
		return "", s.errorAt(at, "unterminated mesh axis name")
	}
	name := s.src[s.pos+1 : s.pos+1+end]
	s.pos += end + 2
	return name, nil
}

// meshDeviceIDs reads `(0,1,2,3)` or the iota form `([2,2]T(1,0))`.
func (s *hloScanner) meshDeviceIDs(sizes []int) ([]int, error) {
	if err := s.expect('(', "to start device_ids"); err != nil {
		return nil, err
	}
	if s.peek() == '[' {
		reshape, perm, err := s.iotaReshape("mesh device_ids")
		if err != nil {
			return nil, err
		}
		if err := s.expect(')', "to end device_ids"); err != nil {
			return nil, err
		}
		n, ok := productOf(reshape)
		if !ok {
			return nil, s.errorf("device_ids reshape %v is too large", reshape)
		}
		groups, err := expandIotaReplicaGroups(&IotaReplicaGroups{NumGroups: 1, GroupSize: n, ReshapeDims: reshape, Perm: perm})
		if err != nil {
			return nil, fmt.Errorf("device_ids: %w", err)
		}
		return groups[0], nil
	}
	var ids []int
	for s.peek() != ')' {
		v, err := s.nonNegInt("device id")
		if err != nil {
			return nil, err
		}
		ids = append(ids, v)
		if !s.accept(',') {
			break
		}
	}
	if err := s.expect(')', "to end device_ids"); err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []int{}
	}
	return ids, nil
}

// meshGroups lists the groups of devices laid out row-major on a mesh of
// the given sizes, spanning axes (the first listed the slowest), one group
// per position on the other axes.
func meshGroups(sizes, devices, axes []int) [][]int {
	in := make([]bool, len(sizes))
	for _, a := range axes {
		in[a] = true
	}
	var others []int
	for i := range sizes {
		if !in[i] {
			others = append(others, i)
		}
	}
	dimsOf := func(list []int) []int {
		d := make([]int, len(list))
		for i, a := range list {
			d[i] = sizes[a]
		}
		return d
	}
	strides := make([]int, len(sizes))
	st := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		strides[i] = st
		st *= sizes[i]
	}
	count := func(d []int) int {
		n := 1
		for _, x := range d {
			n *= x
		}
		return n
	}
	od, ad := dimsOf(others), dimsOf(axes)
	var groups [][]int
	oi := make([]int, len(others))
	for range count(od) {
		var g []int
		ai := make([]int, len(axes))
		for range count(ad) {
			pos := 0
			for k, a := range others {
				pos += oi[k] * strides[a]
			}
			for k, a := range axes {
				pos += ai[k] * strides[a]
			}
			g = append(g, devices[pos])
			NextIndex(ad, ai)
		}
		groups = append(groups, g)
		NextIndex(od, oi)
	}
	return groups
}
