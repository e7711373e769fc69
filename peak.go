package kiln

// peakChains is the number of independent FMA chains in the generated peak
// loops (gen/peak.go); the generic level uses the same count.
const peakChains = 12

// FMAPeak runs iters iterations of peakChains independent fused multiply-adds
// at the vector width of the chosen kernel set and returns the number of
// floating-point operations performed. Benchmarks divide it by the elapsed
// time to measure the core's peak in the same run as the kernels they rate.
func FMAPeak(iters int) int {
	t := kernels()
	t.fmaPeak(iters)
	return 2 * iters * peakChains * t.fmaLanes
}

// fmaPeakSink keeps the generic loop's result alive.
var fmaPeakSink float32

func fmaPeakGo(iters int) {
	var acc [peakChains]float32
	x, y := float32(1e-7), float32(0.999)
	for i := 0; i < iters; i++ {
		for j := range acc {
			acc[j] = acc[j]*y + x
		}
	}
	fmaPeakSink = acc[0]
}
