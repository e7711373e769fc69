//go:build !unix

package runtime

import "time"

// processCPUTime is not measured here: benchmarks report only wall time.
func processCPUTime() time.Duration { return 0 }
