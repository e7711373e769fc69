#!/usr/bin/env bash
# Tests the pure-Go path on 32-bit targets, so the library can be embedded
# on 32-bit devices: GOARCH=386 natively (amd64 Linux runs 386 binaries),
# GOARCH=arm under qemu-arm (Debian's qemu-user, installed when missing).
# Neither has assembly kernels: every kernel runs its Go twin.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "GOARCH=386 go build ./... and go vet ./..."
GOARCH=386 go build ./...
GOARCH=386 go vet ./...
echo "GOARCH=arm go build ./... and go vet ./..."
GOARCH=arm go build ./...
GOARCH=arm go vet ./...
if [ "$(go env GOHOSTARCH)" = amd64 ] && [ "$(go env GOHOSTOS)" = linux ]; then
	# XLA's test vectors are left out: a few hundred of them declare shapes
	# of more than 2 GiB, which a 32-bit int cannot hold (they are refused
	# as "size overflows"), so the suites' floors, set on 64-bit targets,
	# do not apply.
	pkgs=$(GOARCH=386 go list ./... | grep -v /internal/xlaconformance)
	echo "GOARCH=386 go test -short ./... (but internal/xlaconformance)"
	GOARCH=386 go test -count=1 -short -timeout 30m $pkgs
fi
if ! command -v qemu-arm >/dev/null 2>&1; then
	echo "qemu-arm not found: installing Debian's qemu-user"
	SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
	$SUDO apt-get update -qq
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
fi
# Under emulation (tens of times slower) arm runs, in their short form, the
# kernels' Go twins, the file readers and the command line, and of the
# runtime the tests that drive compiled plans through the kernels, weights
# loading and the memory bounds; 386 has run every package above with the
# same 32-bit int.
echo "GOARCH=arm go test -short (qemu-arm): . ./internal/npy ./internal/detrand ./cmd/kiln"
GOARCH=arm go test -count=1 -short -timeout 30m -exec qemu-arm . ./internal/npy ./internal/detrand ./cmd/kiln
tests='Fusion|InPlace|WhileLoop|Cancellation|Examples|Generic|Weights|Lying|Binding|Misnamed|Frames|MemoryLimit|CustomCall|Annotation|ErrArgument'
echo "GOARCH=arm go test -short -run '$tests' (qemu-arm): ./runtime"
GOARCH=arm go test -count=1 -short -timeout 30m -run "$tests" -exec qemu-arm ./runtime
