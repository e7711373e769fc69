package runtime

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// checkElidedMemory refuses, before any is filled, elided constants whose
// values would not fit the memory limit (0: none): one beyond it, or all
// of them together.
func checkElidedMemory(elided []*ir.Instruction, limit int64) error {
	if limit <= 0 {
		return nil
	}
	var total int64
	for _, c := range elided {
		n := int64(c.Shape.ByteSize())
		if n < 0 || n > limit {
			return memoryError(fmt.Errorf("runtime: elided constant %q of shape %s needs %d bytes, the memory limit allows %d",
				c.Name, c.Shape.StringWithoutLayout(), n, limit))
		}
		if total += n; total > limit {
			return memoryError(fmt.Errorf("runtime: the elided constants up to %q need %d bytes, the memory limit allows %d",
				c.Name, total, limit))
		}
	}
	return nil
}

// checkMemory checks the plan against WithMemoryLimit and returns the bound
// on frames: WithMaxConcurrentRuns's, lowered to the runs the limit leaves
// room for after the constants (0: no bound). One run needs a frame, its
// arguments and its results; a plan of which not even one run fits is
// refused.
func (e *Executable) checkMemory(cfg *config) (int, error) {
	bound := cfg.maxRuns
	if cfg.memoryLimit <= 0 {
		return bound, nil
	}
	st := e.stats
	constants := int64(st.ConstantBytes) + int64(st.PackedBytes)
	var args, results int64
	for _, s := range e.params {
		args += int64(s.ByteSize())
	}
	for _, s := range e.results {
		results += int64(s.ByteSize())
	}
	perRun := int64(st.FrameBytes) + args + results
	if need := constants + perRun; need > cfg.memoryLimit {
		return 0, memoryError(fmt.Errorf("runtime: the plan needs %d bytes for its constants and one run (constants %d: %d folded or bound, %d packed; frame %d: arena %d, scratch %d; arguments %d; results %d), the memory limit allows %d",
			need, constants, st.ConstantBytes, st.PackedBytes, st.FrameBytes, st.ArenaBytes, st.FrameBytes-st.ArenaBytes, args, results, cfg.memoryLimit))
	}
	fit := int((cfg.memoryLimit - constants) / max(perRun, 1))
	if bound == 0 || fit < bound {
		bound = fit
	}
	return bound, nil
}
