package sched

import (
	"strconv"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// moduleAliases reads the module's input_output_alias attribute,
//
//	input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}) }
//
// (output shape index: (parameter number, shape index within it[, kind])),
// as pairs of result and parameter leaves numbered depth first. Entries
// that name no array leaf are ignored.
func moduleAliases(p *ssa.Program) []ResultAlias {
	if p.Source == nil {
		return nil
	}
	var text string
	for _, a := range p.Source.Attributes {
		if a.Name == "input_output_alias" {
			text = a.Value
		}
	}
	if text == "" || p.Entry.Root == nil {
		return nil
	}
	var aliases []ResultAlias
	for _, e := range parseAliasEntries(text) {
		r, ok := leafIndex(p.Entry.Root.Shape, e.output)
		if !ok || e.param < 0 || e.param >= len(p.Entry.Params) {
			continue
		}
		first := 0
		for _, prm := range p.Entry.Params[:e.param] {
			first += countLeaves(prm.Shape)
		}
		l, ok := leafIndex(p.Entry.Params[e.param].Shape, e.index)
		if !ok {
			continue
		}
		aliases = append(aliases, ResultAlias{Result: r, Param: first + l})
	}
	return aliases
}

type aliasEntry struct {
	output, index []int
	param         int
}

// parseAliasEntries parses `{ {0}: (0, {}, may-alias), … }`; malformed
// entries are skipped (the attribute is advisory: without it the plan is
// still correct).
func parseAliasEntries(text string) []aliasEntry {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(s, "{")
	s = strings.TrimSuffix(s, "}")
	var out []aliasEntry
	for {
		s = strings.TrimLeft(s, " ,\n\t")
		if s == "" {
			return out
		}
		outIdx, rest, ok := shapeIndex(s)
		if !ok {
			return out
		}
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, ":") {
			return out
		}
		rest = strings.TrimLeft(rest[1:], " ")
		if !strings.HasPrefix(rest, "(") {
			return out
		}
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return out
		}
		body := rest[1:end]
		s = rest[end+1:]
		comma := strings.IndexByte(body, ',')
		if comma < 0 {
			continue
		}
		param, err := strconv.Atoi(strings.TrimSpace(body[:comma]))
		if err != nil {
			continue
		}
		idx, _, ok := shapeIndex(strings.TrimLeft(body[comma+1:], " "))
		if !ok {
			continue
		}
		out = append(out, aliasEntry{output: outIdx, index: idx, param: param})
	}
}

// shapeIndex parses a shape index `{1,0}` at the start of s.
func shapeIndex(s string) ([]int, string, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, s, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return nil, s, false
	}
	var idx []int
	for _, f := range strings.Split(s[1:end], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, s, false
		}
		idx = append(idx, n)
	}
	return idx, s[end+1:], true
}

// leafIndex is the depth-first number of the array leaf at shape index idx
// of s.
func leafIndex(s ir.Shape, idx []int) (int, bool) {
	n := 0
	for _, i := range idx {
		if !s.IsTuple() || i < 0 || i >= len(s.Tuple) {
			return 0, false
		}
		for _, e := range s.Tuple[:i] {
			n += countLeaves(e)
		}
		s = s.Tuple[i]
	}
	return n, !s.IsTuple()
}
