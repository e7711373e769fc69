package runtime

import (
	"fmt"
	"strings"

	"github.com/kilnml/kiln/sched"
)

// Stats describes a compiled plan: its memory and its kernels.
type Stats struct {
	// ArenaBytes is the scratch memory one run uses (the entry plan's arena
	// and those of its subplans); IntermediateBytes the sum of the sizes of
	// all intermediate values; LowerBoundBytes the largest total of
	// intermediates live at one time, which no placement can go below.
	ArenaBytes, IntermediateBytes, LowerBoundBytes int
	// FrameBytes is the memory of one frame, what each run in flight holds:
	// the arena and the per-worker scratch.
	FrameBytes int
	// ConstantBytes is the memory of the constants the plan reads: the
	// module's own, those folded at compile time and the bound weights;
	// PackedBytes that of the weights packed for the GEMM and convolution
	// kernels. The executable owns both.
	ConstantBytes, PackedBytes int
	// FramesHeld is the number of frames in existence when Stats was
	// called; MaxFrames the bound on it (WithMaxConcurrentRuns,
	// WithMemoryLimit; 0: none).
	FramesHeld, MaxFrames int
	// Fusions counts kernels that compute more than one value.
	Fusions int
	// Kernels lists the entry plan's kernels in execution order.
	Kernels []KernelStat
}

// KernelStat is one kernel of the plan.
type KernelStat struct {
	Kind string   // the kernel's kind: sched's (loop, reduce, dot, …), or for a value sched leaves to the runtime (its generic kind) the kind of dedicated kernel the runtime runs it with (sort, top-k)
	Impl string   // the implementation the runtime chose ("gemm", "loop", "reference", …)
	Ops  []string // the ops it computes, in order (HLO names; kiln.* for Kiln's ops)
	Out  string   // its output buffer
}

func (k KernelStat) String() string {
	return fmt.Sprintf("%-8s %-12s %-40s -> %s", k.Kind, k.Impl, strings.Join(k.Ops, " "), k.Out)
}

// String prints the stats, one kernel per line.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "arena %d B, intermediates %d B, lower bound %d B, %d kernels, %d fusions\n",
		s.ArenaBytes, s.IntermediateBytes, s.LowerBoundBytes, len(s.Kernels), s.Fusions)
	fmt.Fprintf(&b, "frame %d B (%d held", s.FrameBytes, s.FramesHeld)
	if s.MaxFrames > 0 {
		fmt.Fprintf(&b, ", at most %d", s.MaxFrames)
	}
	fmt.Fprintf(&b, "), constants %d B, packed weights %d B\n", s.ConstantBytes, s.PackedBytes)
	for _, k := range s.Kernels {
		b.WriteString("  ")
		b.WriteString(k.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// kindedStep is implemented by the steps that run a value sched leaves to
// the runtime (a generic kernel) with a dedicated kernel of their own: its
// kind, for Stats.
type kindedStep interface{ kernelKind() string }

func collectStats(plan *sched.Plan, p *program, c *compiler) Stats {
	s := Stats{IntermediateBytes: plan.IntermediateBytes, LowerBoundBytes: plan.LowerBoundBytes,
		FrameBytes: p.frameBytes(), PackedBytes: c.packedBytes}
	for l := range c.constants {
		s.ConstantBytes += len(l.Bytes())
	}
	for _, q := range p.all {
		s.ArenaBytes += q.arena
	}
	for i, k := range plan.Kernels {
		ks := KernelStat{Kind: k.Kind.String(), Impl: k.Impl, Out: k.Out.String()}
		if k.Kind == sched.Generic && i < len(p.steps) {
			if kk, ok := p.steps[i].(kindedStep); ok {
				ks.Kind = kk.kernelKind()
			}
		}
		for _, v := range k.Values {
			ks.Ops = append(ks.Ops, v.Op.String())
		}
		if len(ks.Ops) == 0 {
			ks.Ops = []string{k.Root.Op.String()}
		}
		if len(k.Values) > 1 {
			s.Fusions++
		}
		s.Kernels = append(s.Kernels, ks)
	}
	return s
}
