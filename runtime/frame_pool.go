package runtime

import (
	"context"
	"sync"
	"time"
)

// framePool keeps the frames of runs that have finished, for the next runs
// to reuse. Unlike sync.Pool it never drops a frame at a garbage
// collection, so a steady state of RunInto calls allocates nothing even
// while the collector runs: a frame is made only when more runs are in
// flight at once than there are frames.
//
// Two bounds keep its memory in check. With a limit (WithMaxConcurrentRuns,
// or what WithMemoryLimit leaves room for), at most limit frames exist: a
// run that finds none free waits for one, or for its context. With a number
// of idle frames to keep (WithIdleFrames), frames beyond it that no run has
// used for the idle timeout are released.
type framePool struct {
	newFrame func() *frame

	mu   sync.Mutex
	free []*frame // idle frames, the most recently used last
	live int      // frames in existence, in use or free
	// slots, when the pool is bounded, holds one token per frame a run has
	// taken: a run blocks on sending while all are taken.
	slots chan struct{}
	// keepIdle is how many idle frames are kept however long they idle
	// (negative: all); idleAfter how long a frame beyond them may idle.
	keepIdle  int
	idleAfter time.Duration
	trimmer   *time.Timer
	trimArmed bool
}

// init sets the pool's bounds: limit frames at most (0: no limit), keep idle
// frames kept indefinitely (negative: all).
func (p *framePool) init(newFrame func() *frame, limit, keep int, idleAfter time.Duration) {
	p.newFrame = newFrame
	if limit > 0 {
		p.slots = make(chan struct{}, limit)
	}
	p.keepIdle, p.idleAfter = keep, idleAfter
}

// get returns a free frame, or a new one when none is free and the bound
// allows it; otherwise it waits for a run to finish, or for ctx.
func (p *framePool) get(ctx context.Context) (*frame, error) {
	if p.slots != nil {
		select {
		case p.slots <- struct{}{}:
		default:
			var done <-chan struct{}
			if ctx != nil {
				done = ctx.Done()
			}
			select {
			case p.slots <- struct{}{}:
			case <-done:
				return nil, ctx.Err()
			}
		}
	}
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		fr := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return fr, nil
	}
	p.live++
	p.mu.Unlock()
	return p.newFrame(), nil
}

// put returns a frame to the pool.
func (p *framePool) put(fr *frame) {
	p.mu.Lock()
	p.free = append(p.free, fr)
	if p.keepIdle >= 0 {
		fr.idleSince = time.Now()
		if len(p.free) > p.keepIdle && !p.trimArmed {
			p.armTrim()
		}
	}
	p.mu.Unlock()
	if p.slots != nil {
		<-p.slots
	}
}

// armTrim schedules a trim one idle timeout from now; p.mu is held.
func (p *framePool) armTrim() {
	p.trimArmed = true
	if p.trimmer == nil {
		p.trimmer = time.AfterFunc(p.idleAfter, p.trim)
		return
	}
	p.trimmer.Reset(p.idleAfter)
}

// trim releases the frames beyond keepIdle that have been idle for the idle
// timeout, the longest idle first, and schedules itself again while frames
// beyond keepIdle remain.
func (p *framePool) trim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trimArmed = false
	cutoff := time.Now().Add(-p.idleAfter)
	drop := 0
	for drop < len(p.free)-p.keepIdle && !p.free[drop].idleSince.After(cutoff) {
		drop++
	}
	if drop > 0 {
		n := copy(p.free, p.free[drop:])
		clear(p.free[n:])
		p.free = p.free[:n]
		p.live -= drop
	}
	if len(p.free) > p.keepIdle {
		p.armTrim()
	}
}

// held is the number of frames in existence.
func (p *framePool) held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}
