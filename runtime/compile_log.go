package runtime

import (
	"context"
	"log/slog"
	"time"

	"github.com/kilnml/kiln/ir"
)

// stageLog reports the stages of one Compile to a logger (WithLogger): one
// debug line per stage with its duration, and a summary.
type stageLog struct {
	l            *slog.Logger
	module       string
	start, since time.Time
}

func newStageLog(l *slog.Logger, m *ir.Module) *stageLog {
	now := time.Now()
	return &stageLog{l: l, module: m.Name, start: now, since: now}
}

// stage reports that the named stage has finished.
func (s *stageLog) stage(name string) {
	if s.l == nil || !s.l.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	now := time.Now()
	s.l.Debug("kiln compile stage", "module", s.module, "stage", name, "duration", now.Sub(s.since))
	s.since = now
}

// done reports the whole compile.
func (s *stageLog) done(st Stats) {
	if s.l == nil {
		return
	}
	s.l.Debug("kiln compile done", "module", s.module, "duration", time.Since(s.start),
		"kernels", len(st.Kernels), "arena_bytes", st.ArenaBytes, "constant_bytes", st.ConstantBytes, "packed_bytes", st.PackedBytes)
}
