package runtime

import (
	"fmt"

	"github.com/kilnml/kiln/sched"
)

// copyStep copies bytes between buffers: a parameter or constant that is
// also a result, or a tuple of them.
type copyStep struct {
	src, dst []loc
}

func (c *compiler) copyStep(k *sched.Kernel) (step, error) {
	if k.Root.Op.String() == "copy" && len(k.In) == 1 && (!k.Root.Args[0].Shape.HasDefaultLayout() || !k.Root.Shape.HasDefaultLayout()) {
		return nil, nil // a layout-changing copy: the generic implementation handles layouts
	}
	src, dst := c.leaves(k.In[0]), c.leaves(k.Out)
	if len(src) != len(dst) {
		return nil, fmt.Errorf("copy of %d leaves into %d", len(src), len(dst))
	}
	return &copyStep{src: src, dst: dst}, nil
}

func (s *copyStep) name() string { return "copy" }

func (s *copyStep) exec(fr *frame) error {
	for i := range s.src {
		copyPolling(fr, fr.bytes(s.dst[i]), fr.bytes(s.src[i]))
	}
	return nil
}
