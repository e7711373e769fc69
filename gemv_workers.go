package kiln

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The packed-rows path's helpers: long-lived goroutines that, after a part,
// keep polling for the next one for a short while before they sleep. A
// packed-rows call takes a few microseconds, about what it takes to wake a
// sleeping thread (and, in a virtual machine, its idle virtual CPU); a
// helper that is still polling starts within a fraction of a microsecond.
// Batch-1 inference calls one such product after another, so while a model
// runs the helpers stay awake, and a few hundred microseconds after it
// stops they sleep. While they poll they yield to any other goroutine that
// is ready to run.

// helperPoll is how long a helper polls for work after its last part.
const helperPoll = 200 * time.Microsecond

// helperTask is one part of a job, handed to a helper through its mailbox.
type helperTask struct {
	job  parallelJob
	part int
}

// helper is one long-lived goroutine: its mailbox, and a wake channel for
// when it sleeps.
type helper struct {
	mailbox atomic.Pointer[helperTask]
	asleep  atomic.Bool
	wake    chan struct{}
}

// helperSet is the process's helpers, started on first use.
type helperSet struct {
	mu      sync.Mutex
	started atomic.Int32
	all     [maxPackedRowsParts]helper
}

var helpers helperSet

// post hands task to helper i (0-based), starting helpers up to it. A task
// still in the mailbox (not yet taken) is replaced: the jobs that use
// helpers never depend on one showing up.
func (s *helperSet) post(i int, task *helperTask) {
	if int(s.started.Load()) <= i {
		s.mu.Lock()
		for n := int(s.started.Load()); n <= i; n++ {
			h := &s.all[n]
			h.wake = make(chan struct{}, 1)
			go h.run()
			s.started.Store(int32(n + 1))
		}
		s.mu.Unlock()
	}
	h := &s.all[i]
	h.mailbox.Store(task)
	// A helper sets asleep before its last look at the mailbox, so either
	// it sees the task there or this sees it asleep.
	if h.asleep.Load() {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

func (h *helper) run() {
	for {
		idle := time.Now()
		for spins := 0; ; spins++ {
			if h.mailbox.Load() != nil {
				if t := h.mailbox.Swap(nil); t != nil {
					t.job.runPart(t.part)
					idle, spins = time.Now(), 0
					continue
				}
			}
			if spins%64 == 63 {
				if time.Since(idle) > helperPoll {
					break
				}
				runtime.Gosched()
			}
		}
		h.asleep.Store(true)
		if t := h.mailbox.Swap(nil); t != nil {
			h.asleep.Store(false)
			t.job.runPart(t.part)
			continue
		}
		<-h.wake
		h.asleep.Store(false)
	}
}
