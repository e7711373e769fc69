package ir

// This file checks sharding={…} values as XLA's parser reads them (Kiln runs
// on one device and keeps the text verbatim): a single sharding or a tuple
// of them, each replicated, manual, unknown, unreduced, maximal on one
// device, or tiled over a device assignment given as a list or in iota form,
// with the checks XLA makes on the tile assignment.

// sharding reads `{…}`: `{replicated}`, `{maximal device=1}`,
// `{devices=[2,1]0,1}`, `{devices=[2,2]<=[4]}`, `{devices=[2,2]<=[2,2]T(1,0)
// last_tile_dim_replicate}`, a tuple `{{replicated}, {maximal device=0}}`, or
// a named sharding `{mesh[…], …}`.
func (s *hloScanner) sharding() error {
	if err := s.expect('{', "to start sharding attribute"); err != nil {
		return err
	}
	if c := s.peek(); c != '{' && c != '}' {
		return s.singleSharding()
	}
	// A tuple sharding (possibly empty).
	for s.peek() != '}' {
		if err := s.expect('{', "to start a tuple element sharding"); err != nil {
			return err
		}
		if err := s.singleSharding(); err != nil {
			return err
		}
		if !s.accept(',') {
			break
		}
	}
	return s.expect('}', "to end sharding attribute")
}

// singleSharding reads one sharding after its '{', through its '}'.
func (s *hloScanner) singleSharding() error {
	s.skipSpace()
	loc := s.pos
	switch s.peekIdent() {
	case "mesh", "maximal_mesh":
		// A named sharding over a mesh of named axes.
		_, err := s.balanced('{', loc-1, "named sharding")
		return err
	}
	var maximal, replicated, manual, unknown, unreduced, lastTileDimReplicate, lastTileDims bool
	devices := -1 // count of listed devices, -1 when none are given
	var tileDims, reshape []int
	for !s.accept('}') {
		s.skipSpace()
		at := s.pos
		word := s.ident()
		switch word {
		case "maximal":
			maximal = true
		case "replicated":
			replicated = true
		case "manual":
			manual = true
		case "unknown":
			unknown = true
		case "unreduced":
			unreduced = true
		case "last_tile_dim_replicate":
			lastTileDimReplicate = true
		case "shard_as", "shard_like":
			if _, err := s.int64Value(word + " group id"); err != nil {
				return err
			}
		case "device":
			if err := s.expect('=', "after device"); err != nil {
				return err
			}
			if _, err := s.int64Value("device= attribute (must be an integer)"); err != nil {
				return err
			}
			devices = 1
		case "devices":
			if err := s.expect('=', "after devices"); err != nil {
				return err
			}
			var err error
			if tileDims, err = s.bracketInts("sharding devices shape"); err != nil {
				return err
			}
			if len(tileDims) == 0 {
				return s.errorAt(at, "expected the dimensions of the tile assignment in devices=[…]")
			}
			if s.acceptString("<=") {
				if reshape, _, err = s.iotaReshape("sharding"); err != nil {
					return err
				}
				continue
			}
			devices = 0
			for {
				if _, err := s.int64Value("device in the tile assignment"); err != nil {
					return err
				}
				devices++
				if !s.accept(',') {
					break
				}
			}
		case "metadata":
			if err := s.expect('=', "after metadata"); err != nil {
				return err
			}
			if err := s.metadataOrList(); err != nil {
				return err
			}
		case "last_tile_dims":
			if err := s.expect('=', "after last_tile_dims"); err != nil {
				return err
			}
			lastTileDims = true
			if err := s.expect('{', "to start the sharding type list"); err != nil {
				return err
			}
			for s.peek() != '}' {
				if err := s.enumWord("sharding type (maximal, replicated, manual or unreduced)", func(w string) bool {
					return w == "maximal" || w == "replicated" || w == "manual" || w == "unreduced"
				}); err != nil {
					return err
				}
				if !s.accept(',') {
					break
				}
			}
			if err := s.expect('}', "to end the sharding type list"); err != nil {
				return err
			}
		case "":
			return s.errorAt(at, "unexpected token %s in sharding", s.found())
		default:
			return s.errorAt(at, "unknown attribute %q in sharding: expected device=, devices=, metadata=, last_tile_dims=, or one of replicated, maximal, manual, unknown, unreduced, last_tile_dim_replicate, shard_as, shard_like", word)
		}
	}
	switch {
	case replicated || manual || unknown || unreduced:
		if devices >= 0 || tileDims != nil {
			kind := map[bool]string{true: "replicated"}[replicated]
			switch {
			case manual:
				kind = "manual"
			case unknown:
				kind = "unknown"
			case unreduced:
				kind = "unreduced"
			}
			return s.errorAt(loc, "%s shardings should not have any devices assigned", kind)
		}
	case maximal:
		if devices != 1 || tileDims != nil {
			return s.errorAt(loc, "maximal shardings should have exactly one device assigned")
		}
	default:
		if tileDims == nil {
			return s.errorAt(loc, "non-maximal shardings must have a tile assignment list including dimensions")
		}
		if lastTileDimReplicate && lastTileDims {
			return s.errorAt(loc, "a sharding takes last_tile_dim_replicate or last_tile_dims, not both")
		}
		n, ok := productOf(tileDims)
		if !ok {
			return s.errorAt(loc, "the tile assignment dimensions %v are too large", tileDims)
		}
		if reshape != nil {
			if m, _ := productOf(reshape); m != n {
				return s.errorAt(loc, "the iota reshape dimensions %v hold %d devices, which does not match the tile assignment dimensions product %d", reshape, m, n)
			}
			break
		}
		if devices <= 1 {
			return s.errorAt(loc, "non-maximal shardings must have more than one device assigned")
		}
		if devices != n {
			return s.errorAt(loc, "the tile assignment %v has %d positions, but %d devices are listed", tileDims, n, devices)
		}
	}
	return nil
}

// iotaReshape reads the part of an iota tile assignment after `<=`:
// `[reshape dims]`, then `T(permutation)` when there are several reshape
// dimensions (and only then), as XLA prints and reads it.
func (s *hloScanner) iotaReshape(what string) (reshape, perm []int, err error) {
	s.skipSpace()
	at := s.pos
	if reshape, err = s.bracketInts("iota reshape dimensions"); err != nil {
		return nil, nil, err
	}
	if len(reshape) == 0 {
		return nil, nil, s.errorAt(at, "expected non-empty iota reshape dimensions in %s", what)
	}
	if len(reshape) == 1 {
		return reshape, nil, nil
	}
	if !s.acceptString("T") || s.peek() != '(' {
		return nil, nil, s.errorf("expected 'T(' to start the iota transpose permutation in %s (the reshape has %d dimensions), found %s", what, len(reshape), s.found())
	}
	s.accept('(')
	seen := make([]bool, len(reshape))
	for {
		s.skipSpace()
		pat := s.pos
		d, err := s.nonNegInt("iota transpose permutation entry")
		if err != nil {
			return nil, nil, err
		}
		if d >= len(reshape) {
			return nil, nil, s.errorAt(pat, "out of range iota permutation value %d, expecting a value in [0, %d)", d, len(reshape))
		}
		if seen[d] {
			return nil, nil, s.errorAt(pat, "iota permutation value %d appears twice", d)
		}
		seen[d] = true
		perm = append(perm, d)
		if !s.accept(',') {
			break
		}
	}
	if err := s.expect(')', "to end the iota transpose permutation"); err != nil {
		return nil, nil, err
	}
	if len(perm) != len(reshape) {
		return nil, nil, s.errorAt(at, "iota transpose permutation should have the same rank as the reshape dimensions: expected %d, saw %d", len(reshape), len(perm))
	}
	return reshape, perm, nil
}

// productOf multiplies dims, reporting false past maxIotaDevices.
func productOf(dims []int) (int, bool) {
	n := 1
	for _, d := range dims {
		if d < 0 || d > 0 && n > maxIotaDevices/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}
