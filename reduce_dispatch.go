package kiln

// reduceByLevel holds the reduce kernels of every level this CPU and build
// can run (the twins at the others); reduce returns those of the active level.
var reduceByLevel = func() (t [levelAVX512 + 1]*reduceKernels) {
	for i := range t {
		t[i] = reduceGo
	}
	for _, s := range runnable {
		if k := reduceArch(s.level); k != nil {
			t[s.level] = k
		}
	}
	return t
}()

func reduce() *reduceKernels { return reduceByLevel[active.Load().level] }
