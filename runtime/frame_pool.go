package runtime

import "sync"

// framePool keeps the frames of runs that have finished, for the next runs
// to reuse. Unlike sync.Pool it never drops a frame at a garbage
// collection, so a steady state of RunInto calls allocates nothing even
// while the collector runs: a frame is made only when more runs are in
// flight at once than ever before, and the pool then holds as many frames
// as the highest concurrency seen (each one arena of Stats().ArenaBytes).
type framePool struct {
	mu   sync.Mutex
	free []*frame
	make func() *frame
}

// get returns a free frame, or a new one when none is free.
func (p *framePool) get() *frame {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		fr := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return fr
	}
	p.mu.Unlock()
	return p.make()
}

// put returns a frame to the pool.
func (p *framePool) put(fr *frame) {
	p.mu.Lock()
	p.free = append(p.free, fr)
	p.mu.Unlock()
}
