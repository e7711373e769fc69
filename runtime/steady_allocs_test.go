package runtime

import "testing"

// steadyAllocs is testing.AllocsPerRun(runs, f) measured three times, the
// smallest count kept. AllocsPerRun counts every allocation of the process,
// so a finalizer of an earlier test's garbage, run by the collector while f
// is measured, would count against f; an allocation f really makes shows in
// every round.
func steadyAllocs(runs int, f func()) float64 {
	best := testing.AllocsPerRun(runs, f)
	for i := 1; i < 3 && best != 0; i++ {
		best = min(best, testing.AllocsPerRun(runs, f))
	}
	return best
}
