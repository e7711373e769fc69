package kiln

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// countingJob records how often each part ran.
type countingJob struct{ runs [16]atomic.Int32 }

func (j *countingJob) RunPart(p int) { j.runs[p].Add(1) }

// TestRunPartsRunsEachPartOnce checks every part count up to 16, on as many
// threads, and that a call allocates nothing.
func TestRunPartsRunsEachPartOnce(t *testing.T) {
	var done Pending
	for parts := 0; parts <= 16; parts++ {
		var j countingJob
		RunParts(&j, parts, &done)
		for p := range j.runs {
			want := int32(0)
			if p < parts {
				want = 1
			}
			if got := j.runs[p].Load(); got != want {
				t.Fatalf("%d parts: part %d ran %d times, want %d", parts, p, got, want)
			}
		}
	}
	var j countingJob
	if n := testing.AllocsPerRun(20, func() { RunParts(&j, 4, &done) }); n != 0 {
		t.Errorf("RunParts allocates %v times per call, want 0", n)
	}
}

// nestedJob runs, in each part, a GEMM that splits across threads itself.
type nestedJob struct {
	a, b []float32
	c    [][]float32
	m, n int
}

func (j *nestedJob) RunPart(p int) {
	Sgemm(false, false, j.m, j.n, j.n, 1, j.a, j.n, j.b, j.n, 0, j.c[p], j.n)
}

// TestRunPartsNested runs parts that are parallel GEMMs, more of them than
// there are workers, so every worker waits for parts of its own: waiting
// callers must run queued parts, or the pool deadlocks. Each result is
// checked against the same product on one thread.
func TestRunPartsNested(t *testing.T) {
	prev, prevWork := SetThreads(3), minPartWork
	minPartWork = 1
	defer func() { SetThreads(prev); minPartWork = prevWork }()
	r := rand.New(rand.NewPCG(21, 22))
	const parts = 6
	j := &nestedJob{m: 37, n: 150}
	j.a = convRand(r, j.m*j.n)
	j.b = convRand(r, j.n*j.n)
	for range parts {
		j.c = append(j.c, make([]float32, j.m*j.n))
	}
	finished := make(chan struct{})
	go func() {
		var done Pending
		for range 50 {
			RunParts(j, parts, &done)
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("nested RunParts calls did not finish in 60 s: the worker pool deadlocked")
	}
	SetThreads(1)
	want := make([]float32, j.m*j.n)
	Sgemm(false, false, j.m, j.n, j.n, 1, j.a, j.n, j.b, j.n, 0, want, j.n)
	for p, c := range j.c {
		for i := range want {
			if c[i] != want[i] {
				t.Fatalf("part %d: C[%d] = %v, one thread gives %v", p, i, c[i], want[i])
			}
		}
	}
}
