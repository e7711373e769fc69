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
pkgs=". ./asm/..."
[ -d runtime ] && pkgs="$pkgs ./runtime/..."
echo "GOARCH=arm64 go test (qemu-aarch64): $pkgs"
GOARCH=arm64 KILN_TEST_REQUIRE_ISA=neon go test -count=1 -exec qemu-aarch64 $pkgs
