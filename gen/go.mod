module github.com/kilnml/kiln/gen

go 1.26.0

replace github.com/kilnml/kiln => ../

require github.com/mmcloughlin/avo v0.5.0

require golang.org/x/arch v0.32.0

require (
	github.com/kilnml/kiln v0.0.0-00010101000000-000000000000
	golang.org/x/mod v0.6.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.2.0 // indirect
)
