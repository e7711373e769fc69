module github.com/kilnml/kiln/bench

go 1.26.0

replace github.com/kilnml/kiln => ../

require (
	github.com/kilnml/kiln v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.49.0
	gonum.org/v1/gonum v0.17.0
)

require github.com/klauspost/cpuid/v2 v2.4.2 // indirect
