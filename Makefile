# Kiln build, test and benchmark entry points. `make test` is what CI runs.
GO      ?= go
GOFILES  = $(shell find . -name '*.go' -not -path './.git/*')
# Sub-modules with their own go.mod (kept out of the main module's dependencies).
SUBMODS  = $(wildcard gen bench)
# Packages run once per ISA level, under purego and under -race (only those that exist yet).
KERNEL_PKGS = . $(if $(wildcard runtime),./runtime/...)

.PHONY: run test fmt-check vet unit isa purego race arm64-test 32bit-test check-generate generate bench fuzz cross cpu conformance

## run: compile and run the bundled example models, print their results and speed.
run:
	@$(GO) run ./cmd/kiln examples

## test: everything CI checks (formatting, vet, generated code, unit tests, ISA variants, purego, arm64 under qemu, 386 and arm under qemu).
test: fmt-check vet check-generate unit isa purego arm64-test 32bit-test

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt -l reports:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	@for m in $(SUBMODS); do (cd $$m && echo "go vet ($$m)" && $(GO) vet ./...) || exit 1; done

unit:
	$(GO) test -count=1 ./...
	@for m in $(SUBMODS); do (cd $$m && echo "go test ($$m)" && $(GO) test -count=1 ./...) || exit 1; done

# isa: the kernel packages once per forced instruction-set level (the
# default run of unit is the best level); the levels that only add
# low-precision kernels run the kernel package alone. A level this CPU lacks
# falls back to the best one, with a note.
isa:
	@for isa in generic avx2 avx512; do echo "KILN_ISA=$$isa"; KILN_ISA=$$isa $(GO) test -count=1 $(KERNEL_PKGS) || exit 1; done
	@for isa in avxvnni avx512vnni avx512bf16; do echo "KILN_ISA=$$isa"; KILN_ISA=$$isa $(GO) test -count=1 . || exit 1; \
		if [ -d runtime ]; then KILN_ISA=$$isa $(GO) test -count=1 -run 'Lowp|SortFast' ./runtime || exit 1; fi; done

purego:
	$(GO) test -count=1 -tags purego $(KERNEL_PKGS)

race:
	$(GO) test -race -count=1 -timeout 45m $(KERNEL_PKGS)

arm64-test:
	@.ci/arm64-test.sh

# 32bit-test: the pure-Go path on GOARCH=386 (native) and GOARCH=arm (qemu-arm).
32bit-test:
	@.ci/32bit-test.sh

check-generate:
	@.ci/check-generate.sh

## generate: regenerate the assembly kernels from the generators in gen/.
generate:
	cd gen && $(GO) run . -out ..

## conformance: XLA's test vectors through Kiln, one `suite: passed/total` line each (CONFORMANCE_FLAGS=-conformance.v lists failures).
conformance:
	@$(GO) test -count=1 -v -run TestConformance ./internal/xlaconformance -args $(CONFORMANCE_FLAGS) | grep -E 'conformance_test.go:[0-9]+: |FAIL|^ok'

## bench: the benchmark suites (bench module), kiln beside its peers.
bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 5 ./...

## fuzz: run each fuzz target for FUZZTIME (default 30s).
FUZZTIME ?= 30s
fuzz:
	@.ci/fuzz.sh $(FUZZTIME)

## cross: build every package for arm64 and with the purego tag.
cross:
	GOARCH=arm64 $(GO) build ./...
	GOARCH=386 $(GO) build ./...
	GOARCH=arm $(GO) build ./...
	GOARCH=arm64 $(GO) test -c -o /dev/null .
	$(GO) build -tags purego ./...

cpu:
	@$(GO) run ./cmd/kiln cpu
