package kiln

// PartsJob is work split into parts that run independently, for RunParts.
type PartsJob interface {
	// RunPart runs part p, 0 ≤ p < the parts given to RunParts.
	RunPart(p int)
}

// Pending counts the parts of a RunParts call still running. Its zero value
// is ready; one Pending serves one call at a time.
type Pending struct {
	p   pending
	job exportedJob
}

// RunParts runs job.RunPart(0), …, job.RunPart(parts-1), part 0 on the
// calling goroutine and the others on the worker pool that the kernels' own
// threads come from, and returns when all are done. A compiler running its
// own parallel steps through it shares the kernels' workers (which poll for
// work briefly between parts) instead of competing with them for the
// processors. It allocates nothing.
func RunParts(job PartsJob, parts int, done *Pending) {
	if parts <= 0 {
		return
	}
	done.job.j = job
	runParallel(&done.job, parts, &done.p)
	done.job.j = nil
}

// exportedJob adapts a PartsJob to the pool's interface.
type exportedJob struct{ j PartsJob }

func (e *exportedJob) runPart(p int) { e.j.RunPart(p) }
