package sched

import (
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// planOf parses, lowers, optimises and schedules an HLO module.
func planOf(t *testing.T, text string, opts Options) *Plan {
	t.Helper()
	m, err := ir.ParseModule(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	p, err := ssa.Lower(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := ssa.Optimize(p, ssa.Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	pl, err := Schedule(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, pl)
	return pl
}

// checkPlacement asserts the invariant of buffer assignment: arena buffers
// live at the same time never overlap in memory, and each fits the arena.
func checkPlacement(t *testing.T, pl *Plan) {
	t.Helper()
	var arena []*Buffer
	for _, b := range pl.Buffers {
		if b.Kind == Arena && b.First >= 0 {
			if b.Offset%arenaAlign != 0 || b.Offset+b.Size() > pl.ArenaBytes {
				t.Errorf("%v: offset %d, size %d, arena %d", b, b.Offset, b.Size(), pl.ArenaBytes)
			}
			arena = append(arena, b)
		}
	}
	for i, a := range arena {
		for _, b := range arena[i+1:] {
			liveTogether := a.First <= b.Last && b.First <= a.Last
			overlap := a.Offset < b.Offset+b.Size() && b.Offset < a.Offset+a.Size()
			if liveTogether && overlap && a.Size() > 0 && b.Size() > 0 {
				t.Errorf("%v (kernels %d..%d) and %v (kernels %d..%d) are live together and overlap",
					a, a.First, a.Last, b, b.First, b.Last)
			}
		}
	}
	if pl.ArenaBytes < pl.LowerBoundBytes {
		t.Errorf("arena %d B below the lower bound %d B", pl.ArenaBytes, pl.LowerBoundBytes)
	}
}

// Two independent products, each reduced: in source order both 256 KiB
// products are live at once; the schedule reduces each before computing the
// other, so the arena holds one.
const twoBranches = `HloModule branches
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[256,64] parameter(0)
  y = f32[256,64] parameter(1)
  w = f32[64,256] parameter(2)
  z = f32[] constant(0)
  a1 = f32[256,256] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b1 = f32[256,256] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a2 = f32[256] reduce(a1, z), dimensions={1}, to_apply=add
  b2 = f32[256] reduce(b1, z), dimensions={1}, to_apply=add
  ROOT t = (f32[256], f32[256]) tuple(a2, b2)
}`

func TestScheduleKeepsPeakLow(t *testing.T) {
	pl := planOf(t, twoBranches, Options{})
	const product = 256 * 256 * 4
	if pl.ArenaBytes >= 2*product {
		var order []string
		for _, k := range pl.Kernels {
			order = append(order, k.Root.Op.String())
		}
		t.Fatalf("arena %d B holds both products; kernel order %s", pl.ArenaBytes, strings.Join(order, ", "))
	}
	if pl.IntermediateBytes < 2*product {
		t.Errorf("intermediates %d B, want both products counted", pl.IntermediateBytes)
	}
}

func TestScheduleRespectsDependencies(t *testing.T) {
	pl := planOf(t, twoBranches, Options{})
	done := map[*Buffer]bool{}
	for _, b := range pl.Buffers {
		if b.Kind == Param || b.Kind == Constant {
			done[b] = true
		}
	}
	for _, k := range pl.Kernels {
		for _, in := range k.In {
			for _, r := range leafRoots(in) {
				if !done[r] {
					t.Fatalf("kernel %v reads %v before it is computed", k, r)
				}
			}
		}
		for _, r := range leafRoots(k.Out) {
			done[r] = true
		}
	}
}

func TestResultsGoToTheCaller(t *testing.T) {
	// A parameter returned as is needs a copy into the caller's buffer;
	// computed results are written there directly.
	pl := planOf(t, `HloModule results
ENTRY main {
  x = f32[8] parameter(0)
  e = f32[8] exponential(x)
  ROOT t = (f32[8], f32[8]) tuple(e, x)
}`, Options{})
	if len(pl.Results) != 2 || pl.Results[0].Kind != Result || pl.Results[1].Kind != Result {
		t.Fatalf("results %v", pl.Results)
	}
	copies := 0
	for _, k := range pl.Kernels {
		if k.Kind == Copy {
			copies++
		}
	}
	if copies != 1 || pl.ArenaBytes != 0 {
		t.Errorf("%d copy kernels and a %d B arena, want one copy (of the parameter) and no arena", copies, pl.ArenaBytes)
	}
}

func TestNoFusionOption(t *testing.T) {
	text := `HloModule chain
ENTRY main {
  x = f32[100] parameter(0)
  a = f32[100] exponential(x)
  b = f32[100] tanh(a)
  ROOT c = f32[100] negate(b)
}`
	if n := len(planOf(t, text, Options{}).Kernels); n != 1 {
		t.Errorf("fused: %d kernels, want 1", n)
	}
	if n := len(planOf(t, text, Options{NoFusion: true}).Kernels); n != 3 {
		t.Errorf("NoFusion: %d kernels, want 3", n)
	}
}
