package eval

// rngState is the state of the generator behind the stateful `rng` op
// (rng_uniform, rng_normal), seeded from Options.Seed.
type rngState struct {
	seed    uint64
	counter uint64
}

func newRNGState(seed uint64) *rngState { return &rngState{seed: seed} }
