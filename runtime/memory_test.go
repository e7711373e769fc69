package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// TestMemoryLimitRefusesAnOversizedPlan compiles a module whose result needs
// 8 GiB under a 256 MiB limit: Compile refuses it, naming both sizes, and
// allocates nothing of it.
func TestMemoryLimitRefusesAnOversizedPlan(t *testing.T) {
	if bits.UintSize < 64 {
		t.Skip("an 8 GiB shape does not fit a 32-bit int")
	}
	m := parse(t, `HloModule huge
ENTRY main {
  p = f32[] parameter(0)
  ROOT b = f32[2048,1024,1024] broadcast(p), dimensions={}
}
`)
	const limit = 256 << 20
	_, err := Compile(m, WithMemoryLimit(limit))
	if err == nil || !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("got %v, want ErrMemoryLimit", err)
	}
	for _, want := range []string{"results 8589934592", fmt.Sprintf("the memory limit allows %d", limit)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestMemoryLimitCountsConstants bounds the frames of the MLP to what a
// limit leaves after its constants, and refuses the MLP under a limit of
// its constants alone.
func TestMemoryLimitCountsConstants(t *testing.T) {
	e, in := exampleModel(t, "mlp/mlp_b1")
	st := e.Stats()
	perRun := int64(st.FrameBytes + 4*784 + 4*10)
	constants := int64(st.ConstantBytes + st.PackedBytes)

	bounded, _ := exampleModel(t, "mlp/mlp_b1", WithMemoryLimit(constants+3*perRun))
	if got := bounded.Stats().MaxFrames; got != 3 {
		t.Errorf("a limit of the constants and three runs bounds the frames to %d, want 3", got)
	}
	if _, err := bounded.Run(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	m := mlpModule(t)
	w, _ := mlpWeights(t, m)
	_, err := Compile(m, WithWeights(w), WithMemoryLimit(constants))
	if err == nil || !errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), fmt.Sprintf("the memory limit allows %d", constants)) {
		t.Fatalf("got %v, want ErrMemoryLimit giving the limit", err)
	}
}

// TestMemoryLimitRefusesElidedConstantsBeforeFilling compiles a module
// whose elided constant needs 8 GiB under a 256 MiB limit: Compile refuses
// it, naming the constant and both sizes, without asking for its values.
func TestMemoryLimitRefusesElidedConstantsBeforeFilling(t *testing.T) {
	if bits.UintSize < 64 {
		t.Skip("an 8 GiB shape does not fit a 32-bit int")
	}
	m := parse(t, `HloModule elided
ENTRY main {
  c = f32[2048,1024,1024] constant({...})
  ROOT n = f32[2048,1024,1024] negate(c)
}
`)
	filled := 0
	fill := func(c *ir.Instruction) (*ir.Literal, error) {
		filled++
		return nil, fmt.Errorf("constant %s was asked for", c.Name)
	}
	_, err := Compile(m, WithElidedConstants(fill), WithMemoryLimit(256<<20))
	if !errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), `elided constant "c" of shape f32[2048,1024,1024] needs 8589934592 bytes, the memory limit allows 268435456`) {
		t.Fatalf("got %v, want ErrMemoryLimit naming the constant and both sizes", err)
	}
	if filled != 0 {
		t.Errorf("the filler was called %d times before the refusal", filled)
	}
}
