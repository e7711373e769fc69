package kiln

import (
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// isaLevel names an instruction-set level the kernels are written for: a
// base ISA and the extensions its kernels use. Within an architecture the
// levels are listed from the least to the most the CPU must offer; they are
// not all nested (AVX-VNNI on AVX2 CPUs is not implied by AVX-512), so a
// level is runnable when the CPU has every feature it needs (levelInfo).
type isaLevel int

const (
	levelGeneric    isaLevel = iota // pure Go
	levelNEON                       // arm64 Advanced SIMD (ARMv8.0)
	levelNEONBF16                   // + SDOT/UDOT, BFDOT/BFMMLA/BFCVT and SMMLA (ARMv8.6: ASIMDDP, BF16, I8MM)
	levelAVX2                       // amd64 AVX2 + FMA + F16C
	levelAVXVNNI                    // + AVX-VNNI (VEX VPDPBUSD)
	levelAVX512                     // AVX-512 F+BW+VL+DQ
	levelAVX512VNNI                 // + AVX512_VNNI
	levelAVX512BF16                 // + AVX512_BF16 (and AVX512_VNNI)
	levelAMX                        // + AMX-TILE, AMX-BF16, AMX-INT8, granted by the OS
	numLevels
)

// levelInfo describes each level: its name (KILN_ISA, SetISA) and the
// extensions Features reports for it.
var levelInfo = [numLevels]struct {
	name, features string
}{
	levelGeneric:    {"generic", "generic"},
	levelNEON:       {"neon", "neon"},
	levelNEONBF16:   {"neonbf16", "neon asimddp bf16 i8mm"},
	levelAVX2:       {"avx2", "avx2 fma f16c"},
	levelAVXVNNI:    {"avxvnni", "avx2 fma f16c avxvnni"},
	levelAVX512:     {"avx512", "avx512f avx2 fma"},
	levelAVX512VNNI: {"avx512vnni", "avx512f avx512vnni avx2 fma"},
	levelAVX512BF16: {"avx512bf16", "avx512f avx512vnni avx512bf16 avx2 fma"},
	levelAMX:        {"amx", "avx512f avx512vnni avx512bf16 amx-bf16 amx-int8 avx2 fma"},
}

func (l isaLevel) String() string { return levelInfo[l].name }

// parseLevel maps a KILN_ISA value to a level.
func parseLevel(s string) (isaLevel, bool) {
	for l := range numLevels {
		if s == levelInfo[l].name {
			return l, true
		}
	}
	return levelGeneric, false
}

// levelNames lists every level's name, for messages.
func levelNames() string {
	var names []string
	for l := range numLevels {
		names = append(names, levelInfo[l].name)
	}
	return strings.Join(names, ", ")
}

// cpuInfo is what start-up detection found: the levels the hardware and the
// build support, the level chosen after KILN_ISA, and the cache sizes that
// set the GEMM blocking.
type cpuInfo struct {
	supported   [numLevels]bool
	best        isaLevel
	chosen      isaLevel
	override    string // the KILN_ISA value, if set
	note        string // why an override was not honoured, if it was not
	l1d, l2, l3 int    // bytes; defaults when cpuid cannot tell
	brand       string
	flags       []string // the hardware features relevant to the kernels
}

// detectLevels reports which levels this CPU and this build can run.
func detectLevels() (s [numLevels]bool) {
	s[levelGeneric] = true
	if !asmAvailable {
		return s
	}
	switch runtime.GOARCH {
	case "amd64":
		x := cpu.X86
		s[levelAVX2] = x.HasAVX2 && x.HasFMA && x.HasF16C
		s[levelAVXVNNI] = s[levelAVX2] && x.HasAVXVNNI
		s[levelAVX512] = s[levelAVX2] && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasAVX512DQ
		s[levelAVX512VNNI] = s[levelAVX512] && x.HasAVX512VNNI
		s[levelAVX512BF16] = s[levelAVX512VNNI] && x.HasAVX512BF16
		// The tile registers are usable only once the OS has granted the
		// process their state (Linux's ARCH_REQ_XCOMP_PERM).
		s[levelAMX] = s[levelAVX512BF16] && x.HasAMXTile && x.HasAMXBF16 && x.HasAMXInt8 && requestAMX()
	case "arm64":
		s[levelNEON] = true // ASIMD is mandatory in ARMv8-A
		s[levelNEONBF16] = cpu.ARM64.HasASIMDDP && cpu.ARM64.HasI8MM && hasARM64BF16()
	}
	return s
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
		add(x.HasAMXTile, "amx-tile")
		add(x.HasAMXBF16, "amx-bf16")
		add(x.HasAMXInt8, "amx-int8")
		add(x.HasAVX2, "avx2")
		add(x.HasFMA, "fma")
		add(x.HasF16C, "f16c")
		add(x.HasAVXVNNI, "avxvnni")
	case "arm64":
		a := cpu.ARM64
		add(a.HasASIMD || runtime.GOARCH == "arm64", "asimd")
		add(a.HasFPHP, "fphp")
		add(a.HasASIMDHP, "asimdhp")
		add(a.HasASIMDDP, "asimddp")
		add(a.HasI8MM, "i8mm")
		add(hasARM64BF16(), "bf16")
		add(a.HasSVE, "sve")
	}
	return f
}

func detectCPU() cpuInfo {
	info := cpuInfo{
		supported: detectLevels(),
		l1d:       cpuid.CPU.Cache.L1D,
		l2:        cpuid.CPU.Cache.L2,
		l3:        cpuid.CPU.Cache.L3,
		brand:     cpuid.CPU.BrandName,
		flags:     hardwareFlags(),
	}
	for l := range numLevels {
		if info.supported[l] {
			info.best = l
		}
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
			info.note = "KILN_ISA=" + info.override + " is not one of " + levelNames() + "; using " + info.best.String()
		case !info.supported[want]:
			info.note = "KILN_ISA=" + info.override + " is not available on this CPU or build; using " + info.best.String()
		default:
			info.chosen = want
		}
	}
	return info
}
