// Package bench holds Kiln's benchmark suites, run with go test -bench: each
// kernel beside its peers in the same run (gonum always; OpenBLAS through
// cgo with -tags openblas), with the core's FMA peak measured by the same
// binary so that results can be read as a fraction of what the hardware does.
//
//	go test -run '^$' -bench 'Sgemm|FMAPeak' -count 6 . | tee new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl new.txt
//
// The example models (MLP, CNN, encoder layer) run beside straightforward
// gonum versions of the same networks, on the same deterministic weights:
//
//	go test -run '^$' -bench 'Model|Compile' -count 6 . | tee models.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl models.txt
//
// It is its own module so that gonum never becomes a dependency of Kiln.
package bench
