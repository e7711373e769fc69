#!/usr/bin/env bash
# Cross-compiles the kernel package for arm64 and runs its tests under qemu-aarch64,
# so the NEON kernels are checked against their Go twins. Installs qemu-user when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v qemu-aarch64 >/dev/null 2>&1; then
	echo "qemu-aarch64 not found: installing Debian's qemu-user"
	SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
	$SUDO apt-get update -qq
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
fi
# -cpu max offers every extension qemu emulates (ASIMDDP, BF16, I8MM, …): the
# kernel package runs at its best level (neonbf16) and at the base level.
export QEMU_CPU=max
echo "GOARCH=arm64 go test (qemu-aarch64 -cpu max): . ./asm/..."
GOARCH=arm64 KILN_TEST_REQUIRE_ISA=neonbf16 go test -count=1 -timeout 30m -exec qemu-aarch64 . ./asm/...
echo "GOARCH=arm64 KILN_ISA=neon go test (qemu-aarch64 -cpu max): ."
GOARCH=arm64 KILN_ISA=neon KILN_TEST_REQUIRE_ISA=neon go test -count=1 -timeout 30m -exec qemu-aarch64 .
if [ -d runtime ]; then
	# The compiler's runtime is plain Go over the kernels tested above and
	# runs its whole suite natively at every ISA level; under emulation
	# (tens of times slower) it runs the tests that drive the NEON kernels
	# through compiled plans: fusion, the small example models, loops, and
	# the generic steps, the narrow-type paths, the fast sorts and the
	# convolutions of the newer paths (weights packed on every run, int8,
	# transposed, planar) and the modules JAX exported, in their short form.
	tests='Fusion|InPlace|WhileLoop|Cancellation|Examples|Generic|Lowp|SortFast|ConvWeightsPerRun|Int8Convolution|TransposedConvolution|PlanarDepthwise|JAXExports|XLATopK|IntLoop|LoopNarrowingStore|ScanF32|ReduceWindowNarrow'
	echo "GOARCH=arm64 go test -short -run '$tests' (qemu-aarch64): ./runtime/..."
	GOARCH=arm64 KILN_TEST_REQUIRE_ISA=neonbf16 go test -count=1 -short -timeout 30m -run "$tests" -exec qemu-aarch64 ./runtime/...
fi
