package kiln

import (
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// isaLevel orders the instruction-set levels the kernels are written for.
// A higher level on the same architecture implies every lower one.
type isaLevel int

const (
	levelGeneric isaLevel = iota // pure Go
	levelNEON                    // arm64 Advanced SIMD
	levelAVX2                    // amd64 AVX2 + FMA
	levelAVX512                  // amd64 AVX-512 F+BW+VL+DQ
)

var levelNames = [...]string{
	levelGeneric: "generic",
	levelNEON:    "neon",
	levelAVX2:    "avx2",
	levelAVX512:  "avx512",
}

func (l isaLevel) String() string { return levelNames[l] }

// levelFeatures names the ISA extensions each level's kernels use, as
// Features reports them after the architecture.
var levelFeatures = [...]string{
	levelGeneric: "generic",
	levelNEON:    "neon",
	levelAVX2:    "avx2 fma",
	levelAVX512:  "avx512f avx2 fma",
}

// parseLevel maps a KILN_ISA value to a level.
func parseLevel(s string) (isaLevel, bool) {
	for l, name := range levelNames {
		if s == name {
			return isaLevel(l), true
		}
	}
	return levelGeneric, false
}

// cpuInfo is what start-up detection found: the best level the hardware and
// the build support, the level chosen after KILN_ISA, and the cache sizes
// that set the GEMM blocking.
type cpuInfo struct {
	best        isaLevel
	chosen      isaLevel
	override    string // the KILN_ISA value, if set
	note        string // why an override was not honoured, if it was not
	l1d, l2, l3 int    // bytes; defaults when cpuid cannot tell
	brand       string
	flags       []string // the hardware features relevant to the kernels
}

// detectBest returns the highest level this CPU and this build can run.
func detectBest() isaLevel {
	if !asmAvailable {
		return levelGeneric
	}
	switch runtime.GOARCH {
	case "amd64":
		x := cpu.X86
		if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ && x.HasAVX2 && x.HasFMA {
			return levelAVX512
		}
		if x.HasAVX2 && x.HasFMA {
			return levelAVX2
		}
	case "arm64":
		if cpu.ARM64.HasASIMD || runtime.GOARCH == "arm64" { // ASIMD is mandatory in ARMv8-A
			return levelNEON
		}
	}
	return levelGeneric
}

// hardwareFlags lists the CPU features that matter to the kernels, as found.
func hardwareFlags() []string {
	var f []string
	add := func(ok bool, name string) {
		if ok {
			f = append(f, name)
		}
	}
	switch runtime.GOARCH {
	case "amd64":
		x := cpu.X86
		add(x.HasAVX512F, "avx512f")
		add(x.HasAVX512BW, "avx512bw")
		add(x.HasAVX512VL, "avx512vl")
		add(x.HasAVX512DQ, "avx512dq")
		add(x.HasAVX512VNNI, "avx512vnni")
		add(x.HasAVX512BF16, "avx512bf16")
		add(x.HasAVX2, "avx2")
		add(x.HasFMA, "fma")
	case "arm64":
		a := cpu.ARM64
		add(a.HasASIMD || runtime.GOARCH == "arm64", "asimd")
		add(a.HasFPHP, "fphp")
		add(a.HasASIMDHP, "asimdhp")
		add(a.HasASIMDDP, "asimddp")
		add(a.HasSVE, "sve")
	}
	return f
}

func detectCPU() cpuInfo {
	info := cpuInfo{
		best:  detectBest(),
		l1d:   cpuid.CPU.Cache.L1D,
		l2:    cpuid.CPU.Cache.L2,
		l3:    cpuid.CPU.Cache.L3,
		brand: cpuid.CPU.BrandName,
		flags: hardwareFlags(),
	}
	// Conservative defaults for CPUs (or emulators) that do not report caches.
	if info.l1d <= 0 {
		info.l1d = 32 << 10
	}
	if info.l2 <= 0 {
		info.l2 = 256 << 10
	}
	if info.l3 <= 0 {
		info.l3 = 4 << 20
	}
	info.chosen = info.best
	info.override = os.Getenv("KILN_ISA")
	if info.override != "" {
		want, ok := parseLevel(strings.ToLower(info.override))
		switch {
		case !ok:
			info.note = "KILN_ISA=" + info.override + " is not one of generic, avx2, avx512, neon; using " + info.best.String()
		case want == levelGeneric:
			info.chosen = levelGeneric
		case !sameArch(want, info.best) || want > info.best:
			info.note = "KILN_ISA=" + info.override + " is not available on this CPU or build; using " + info.best.String()
		default:
			info.chosen = want
		}
	}
	return info
}

// sameArch reports whether two non-generic levels belong to one architecture.
func sameArch(a, b isaLevel) bool {
	arch := func(l isaLevel) string {
		switch l {
		case levelNEON:
			return "arm64"
		case levelAVX2, levelAVX512:
			return "amd64"
		}
		return ""
	}
	return arch(a) == arch(b)
}
