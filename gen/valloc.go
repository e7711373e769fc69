package main

import (
	"fmt"
	"sort"
)

// Register allocation for vector programs. Blocks are straight-line code, so
// a linear scan is exact: a value takes a free register when it is defined
// and gives it back after its last use. Values that live across blocks —
// parameters, accumulators, the lane numbers and the constants chosen to be
// hoisted — are pinned to one register for the whole kernel. The other
// constants are loaded again right before each instruction that uses them,
// which costs a load but no register in between.

// pinst is an instruction with its registers. Registers are numbered within
// their class: vector registers from 0, opmask registers (AVX-512 masks)
// from 1 (K1).
type pinst struct {
	inst
	rd int   // result register, -1 when none
	ra []int // operand registers
	rs []int // scratch vector registers
	// dst is, for destructive instructions, the operand position whose
	// register the result overwrites, or -1 when the result is a separate
	// register (the backend copies an operand into it first).
	dst int
}

// stateUpdate is an accumulator and the value it holds after a block.
type stateUpdate struct{ state, next val }

// allocation is a program with every value in a register.
type allocation struct {
	t                 *target
	p                 *prog
	reg               map[val]int // pinned values
	pro, body, tail   []pinst
	flush, epi        []pinst
	bodyMoves         []pinst // copies that close the main loop's state updates
	tailMoves         []pinst
	flushMoves        []pinst
	hoisted           []val
	vecUsed, maskUsed int
}

func (t *target) isMaskReg(k vkind) bool { return k.isMask() && t.maskRegs > 0 }

// allocate assigns registers, hoisting the given constants into registers
// for the whole kernel. bodyStates and tailStates are the accumulator
// updates of the two loop blocks.
func allocate(t *target, p *prog, hoist []val, bodyStates, tailStates, flushStates []stateUpdate) (*allocation, error) {
	a := &allocation{t: t, p: p, reg: map[val]int{}}
	hoisted := map[val]bool{}
	for _, c := range hoist {
		hoisted[c] = true
	}
	// Pinned registers are taken from the top, so that the block-local ones
	// are the low registers.
	nextVec, nextMask := t.vecRegs-1, t.maskRegs
	pin := func(v val) error {
		if t.isMaskReg(p.kind(v)) {
			if nextMask < 1 {
				return fmt.Errorf("%s: more pinned masks than opmask registers", t.name)
			}
			a.reg[v] = nextMask
			nextMask--
			return nil
		}
		if nextVec < 0 {
			return fmt.Errorf("%s: more pinned values than vector registers", t.name)
		}
		a.reg[v] = nextVec
		nextVec--
		return nil
	}
	for v := val(1); int(v) < len(p.vals); v++ {
		if p.vals[v].pinned {
			if err := pin(v); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range hoist {
		if err := pin(c); err != nil {
			return nil, err
		}
		a.hoisted = append(a.hoisted, c)
	}
	vecFree, maskFree := nextVec+1, nextMask
	a.vecUsed, a.maskUsed = 0, t.maskRegs-nextMask

	// The prologue defines the hoisted constants first.
	pro := make(block, 0, len(p.pro)+len(hoist))
	for _, c := range hoist {
		pro = append(pro, inst{op: opConst, kind: p.kind(c), res: c})
	}
	pro = append(pro, p.pro...)
	var err error
	var used [2]int
	run := func(b block, states []stateUpdate) ([]pinst, []pinst) {
		if err != nil {
			return nil, nil
		}
		var out, moves []pinst
		out, moves, used, err = a.block(b, hoisted, states, vecFree, maskFree)
		a.vecUsed = max(a.vecUsed, used[0])
		a.maskUsed = max(a.maskUsed, used[1])
		return out, moves
	}
	a.pro, _ = run(pro, nil)
	a.body, a.bodyMoves = run(p.body, bodyStates)
	a.tail, a.tailMoves = run(p.tail, tailStates)
	a.flush, a.flushMoves = run(p.flush, flushStates)
	a.epi, _ = run(p.epi, nil)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// block allocates one block with nVec vector registers (0…nVec-1) and nMask
// opmask registers (1…nMask) free for its own values.
func (a *allocation) block(b block, hoisted map[val]bool, states []stateUpdate, nVec, nMask int) (out, moves []pinst, used [2]int, err error) {
	p, t := a.p, a.t
	// Constants that are not hoisted are loaded right before each use.
	var code block
	for _, in := range b {
		remat := map[val]val{}
		args := make([]val, len(in.args))
		for i, v := range in.args {
			if p.vals[v].konst && !hoisted[v] {
				if r, ok := remat[v]; ok {
					args[i] = r
					continue
				}
				r := p.newVal(p.kind(v))
				p.vals[r].bits = p.vals[v].bits
				code = append(code, inst{op: opConst, kind: p.kind(v), res: r})
				remat[v] = r
				args[i] = r
				continue
			}
			args[i] = v
		}
		in.args = args
		code = append(code, in)
	}
	code = deadCode(p, code, states, hoisted)
	last := map[val]int{}
	defined := map[val]bool{}
	for i, in := range code {
		for _, v := range in.args {
			last[v] = i
		}
		if in.res != 0 {
			defined[in.res] = true
		}
	}
	stateOf := map[val]val{} // next value → the state it becomes
	for _, s := range states {
		stateOf[s.next] = s.state
		if !p.vals[s.state].pinned {
			return nil, nil, used, fmt.Errorf("state %d is not pinned", s.state)
		}
		// A next value that is defined elsewhere (or is a constant) is
		// copied at the end of the block.
	}
	for _, s := range states {
		if _, ok := last[s.next]; ok || defined[s.next] {
			last[s.next] = len(code) // live to the end of the block
		}
	}
	isPinned := func(v val) bool { _, ok := a.reg[v]; return ok }
	regOf := map[val]int{}
	for v, r := range a.reg {
		regOf[v] = r
	}
	busyVec := make([]bool, nVec)
	busyMask := make([]bool, nMask+1)
	take := func(mask bool, avoid map[int]bool) (int, error) {
		if mask {
			for r := 1; r <= nMask; r++ {
				if !busyMask[r] && !avoid[r] {
					busyMask[r] = true
					used[1] = max(used[1], r)
					return r, nil
				}
			}
			return 0, fmt.Errorf("%s: out of opmask registers", t.name)
		}
		for r := 0; r < nVec; r++ {
			if !busyVec[r] && !avoid[r] {
				busyVec[r] = true
				used[0] = max(used[0], r+1)
				return r, nil
			}
		}
		return 0, fmt.Errorf("%s: out of vector registers (%d free for block values)", t.name, nVec)
	}
	release := func(v val) {
		if isPinned(v) {
			return
		}
		r, ok := regOf[v]
		if !ok {
			return
		}
		// A value may sit in an accumulator's register (the state hint):
		// that register is not the block's to give back.
		if t.isMaskReg(p.kind(v)) {
			if r < len(busyMask) {
				busyMask[r] = false
			}
		} else if r < len(busyVec) {
			busyVec[r] = false
		}
	}
	for i, in := range code {
		pi := pinst{inst: in, rd: -1, dst: -1}
		for _, v := range in.args {
			r, ok := regOf[v]
			if !ok {
				return nil, nil, used, fmt.Errorf("%s: %v reads value %d before it is defined in this block or pinned", t.name, in.op, v)
			}
			pi.ra = append(pi.ra, r)
		}
		dies := func(pos int) bool {
			v := in.args[pos]
			return !isPinned(v) && last[v] == i
		}
		var destr []int
		if t.destructive != nil {
			destr = t.destructive(&in)
		}
		if in.res != 0 {
			resMask := t.isMaskReg(p.kind(in.res))
			switch {
			case isPinned(in.res):
				pi.rd = a.reg[in.res]
			default:
				rd := -1
				// An accumulator's next value goes straight into the
				// accumulator's register when the old value is no longer read.
				sameClass := func(pos int) bool { return t.isMaskReg(p.kind(in.args[pos])) == resMask }
				if s, ok := stateOf[in.res]; ok && last[s] <= i && destrAllows(destr, pi.ra, a.reg[s], sameClass) {
					rd = a.reg[s]
				}
				if rd < 0 && (in.op == opCast || in.op == opMove) && dies(0) {
					rd = pi.ra[0]
				}
				if rd < 0 && destr != nil {
					for _, pos := range destr {
						if dies(pos) && sameClass(pos) {
							rd = pi.ra[pos]
							break
						}
					}
				}
				if rd < 0 && destr == nil && in.op != opCast && in.op != opMove {
					for pos := range in.args {
						if dies(pos) && sameClass(pos) {
							rd = pi.ra[pos]
							break
						}
					}
				}
				if rd < 0 {
					avoid := map[int]bool{}
					if destr != nil {
						// A copy into the result comes first, so the result must
						// not be an operand's register.
						for pos, r := range pi.ra {
							if sameClass(pos) {
								avoid[r] = true
							}
						}
					}
					r, err := take(resMask, avoid)
					if err != nil {
						return nil, nil, used, err
					}
					rd = r
				}
				pi.rd = rd
			}
			if destr != nil {
				for _, pos := range destr {
					if pi.ra[pos] == pi.rd && t.isMaskReg(p.kind(in.args[pos])) == resMask {
						pi.dst = pos
						break
					}
				}
			}
		}
		// Scratch registers: distinct from the operands and the result.
		if t.scratch != nil {
			if n := t.scratch(&in); n > 0 {
				avoid := map[int]bool{}
				if pi.rd >= 0 && !t.isMaskReg(p.kind(in.res)) {
					avoid[pi.rd] = true
				}
				for pos, r := range pi.ra {
					if !t.isMaskReg(p.kind(in.args[pos])) {
						avoid[r] = true
					}
				}
				for j := 0; j < n; j++ {
					r, err := take(false, avoid)
					if err != nil {
						return nil, nil, used, err
					}
					pi.rs = append(pi.rs, r)
				}
				for _, r := range pi.rs {
					busyVec[r] = false
				}
			}
		}
		// Operands whose last use this was give their registers back, unless
		// the result took one over.
		for pos, v := range in.args {
			if dies(pos) {
				r := pi.ra[pos]
				if in.res != 0 && r == pi.rd && t.isMaskReg(p.kind(v)) == t.isMaskReg(p.kind(in.res)) {
					continue
				}
				release(v)
			}
		}
		if in.res != 0 {
			regOf[in.res] = pi.rd
			if !isPinned(in.res) {
				if t.isMaskReg(p.kind(in.res)) {
					if pi.rd < len(busyMask) {
						busyMask[pi.rd] = true
					}
				} else if pi.rd < len(busyVec) {
					busyVec[pi.rd] = true
				}
				if _, ok := last[in.res]; !ok {
					release(in.res) // never read
				}
			}
		}
		out = append(out, pi)
	}
	for _, s := range states {
		r, ok := regOf[s.next]
		if !ok {
			return nil, nil, used, fmt.Errorf("state update reads value %d, which is not defined", s.next)
		}
		if r != a.reg[s.state] {
			moves = append(moves, pinst{inst: inst{op: opMove, kind: p.kind(s.state), args: []val{s.next}, res: s.state}, rd: a.reg[s.state], ra: []int{r}, dst: -1})
		}
	}
	return out, moves, used, nil
}

// destrAllows reports whether a destructive instruction (destr non-nil) may
// write its result to register r: r must not hold an operand the
// instruction reads at a position it cannot overwrite, unless the same
// register is also at a position it can.
func destrAllows(destr []int, ra []int, r int, sameClass func(int) bool) bool {
	if destr == nil {
		return true
	}
	atDestr, atOther := false, false
	for pos, reg := range ra {
		if reg != r || !sameClass(pos) {
			continue
		}
		ok := false
		for _, d := range destr {
			ok = ok || d == pos
		}
		if ok {
			atDestr = true
		} else {
			atOther = true
		}
	}
	return !atOther || atDestr
}

// constUses counts how often each constant is read in the loop blocks (the
// body weighs most), to choose which constants to hoist.
func constUses(p *prog) []val {
	count := map[val]int{}
	for _, blk := range []struct {
		b block
		w int
	}{{p.body, 100}, {p.tail, 10}, {p.flush, 2}, {p.pro, 1}, {p.epi, 1}} {
		for _, in := range blk.b {
			for _, v := range in.args {
				if p.vals[v].konst {
					count[v] += blk.w
				}
			}
		}
	}
	cs := make([]val, 0, len(count))
	for v := range count {
		cs = append(cs, v)
	}
	sort.Slice(cs, func(i, j int) bool {
		if count[cs[i]] != count[cs[j]] {
			return count[cs[i]] > count[cs[j]]
		}
		return cs[i] < cs[j]
	})
	return cs
}

// deadCode drops the instructions of a block whose results nothing uses:
// not a store or a result, not an accumulator's next value, not a value of
// the whole kernel (pinned or a hoisted constant), not an operand of a kept
// instruction.
func deadCode(p *prog, code block, states []stateUpdate, hoisted map[val]bool) block {
	used := map[val]bool{}
	for _, s := range states {
		used[s.next] = true
	}
	keep := make([]bool, len(code))
	for i := len(code) - 1; i >= 0; i-- {
		in := code[i]
		switch {
		case in.op == opStore || in.op == opRet || in.op == opRetVec:
		case in.res != 0 && (used[in.res] || p.vals[in.res].pinned || hoisted[in.res]):
		default:
			continue
		}
		keep[i] = true
		for _, a := range in.args {
			used[a] = true
		}
	}
	out := code[:0:0]
	for i, in := range code {
		if keep[i] {
			out = append(out, in)
		}
	}
	return out
}
