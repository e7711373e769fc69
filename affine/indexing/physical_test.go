package indexing

import "testing"

// Over physical layouts, each tensor's dimensions are numbered in the order
// its layout stores them; the runtime variables keep their origins, their
// maps taking the output's physical index. The compositions are XLA's, not
// simplified: the bounds of the operand become constraints.
func TestPhysicalLayouts(t *testing.T) {
	m := mustParse(t, `HloModule m
ENTRY e {
  p0 = f32[4,6]{0,1} parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT ds = f32[2,3]{0,1} dynamic-slice(p0, i, j), dynamic_slice_sizes={2,3}
}`)
	got, err := PhysicalOutputToInput(m.Entry.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "dynamic-slice", got, `
operand id = 0
(d0, d1){rt0, rt1} -> (d0 + rt1, d1 + rt0),
domain:
d0 in [0, 2],
d1 in [0, 1],
rt0 in [0, 2],
rt1 in [0, 3],
d0 + rt1 in [0, 5],
d1 + rt0 in [0, 3]
runtime variables:
rt0: parameter(1); (d0, d1) -> (), domain: d0 in [0, 2], d1 in [0, 1]
rt1: parameter(2); (d0, d1) -> (), domain: d0 in [0, 2], d1 in [0, 1]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 2],
d1 in [0, 1]
operand id = 2
(d0, d1) -> (),
domain:
d0 in [0, 2],
d1 in [0, 1]
`)

	m = mustParse(t, `HloModule m
ENTRY e {
  p0 = f32[4,6]{0,1} parameter(0)
  ROOT t = f32[6,4]{1,0} transpose(p0), dimensions={1,0}
}`)
	// A transpose whose layouts cancel it is the identity in memory.
	for name, f := range map[string]func() (*Indexing, error){
		"output to input": func() (*Indexing, error) { return PhysicalOutputToInput(m.Entry.Root, 0) },
		"input to output": func() (*Indexing, error) { return PhysicalInputToOutput(m.Entry.Root, 0) },
	} {
		got, err := f()
		if err != nil {
			t.Fatal(err)
		}
		checkIndexing(t, name, got, `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 5],
d1 in [0, 3]
`)
	}
}
