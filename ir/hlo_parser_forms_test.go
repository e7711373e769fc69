package ir

import (
	"slices"
	"strings"
	"testing"
)

// This file tests, one family at a time, the forms of HLO text XLA writes
// and reads that are not the classic `%name = shape opcode(shape %operand)`
// form: each module is written by hand, and what it must parse to (or the
// error it must give) is worked out from XLA's rules.

// mustParse parses text, failing the test on error, and checks that the
// module prints as text that parses back to an equal module.
func mustParse(t *testing.T, text string) *Module {
	t.Helper()
	m, err := ParseModule(text)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	printed := m.String()
	m2, err := ParseModule(printed)
	if err != nil {
		t.Fatalf("printed module does not parse: %v\n%s", err, printed)
	}
	if d := diffModules(m, m2); d != "" {
		t.Fatalf("module changed through print and parse: %s\n%s", d, printed)
	}
	return m
}

// mustFail parses text and checks that the error contains want.
func mustFail(t *testing.T, text, want string) {
	t.Helper()
	_, err := ParseModule(text)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v\nwant it to contain %q\n%s", err, want, text)
	}
	if err != nil {
		if _, ok := err.(*ParseError); !ok {
			t.Errorf("error %v is %T, not *ParseError", err, err)
		}
	}
}

func TestParseHeaderlessModules(t *testing.T) {
	// The ENTRY computation is the entry; the module is named after it.
	m := mustParse(t, `add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}`)
	if m.Name != "module_main" || m.Entry.Name != "main" || len(m.Computations) != 2 {
		t.Errorf("module %q, entry %q, %d computations", m.Name, m.Entry.Name, len(m.Computations))
	}
	if !strings.HasPrefix(m.String(), "HloModule module_main, entry_computation_layout={(f32[4]{0})->f32[]}") {
		t.Errorf("prints\n%s", m)
	}
	// Without ENTRY, the last computation is the entry.
	m = mustParse(t, "first {\n  ROOT p = f32[] parameter(0)\n}\nsecond {\n  ROOT q = s32[] parameter(0)\n}\n")
	if m.Entry.Name != "second" {
		t.Errorf("entry %q, want second", m.Entry.Name)
	}
	// A computation with a signature needs ENTRY or the HloModule line.
	mustFail(t, "c (p: f32[]) -> f32[] {\n  ROOT p = f32[] parameter(0)\n}", "1:3")
}

func TestParseShapelessInstructions(t *testing.T) {
	m := mustParse(t, `HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = maximum(a, b)
}
cond {
  s = (s32[], f32[2,3]) parameter(0)
  i = get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2,3]) parameter(0)
  i = get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = add(i, one)
  v = get-tuple-element(s), index=1
  ROOT t = tuple(j, v)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[3,4] parameter(1)
  d = dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = reduce(d, z), dimensions={1}, to_apply=max
  b = broadcast(z)
  k = broadcast(r), dimensions={3}
  zero = s32[] constant(0)
  init = tuple(zero, x)
  w = while(init), condition=cond, body=body
  g = get-tuple-element(w), index=1
  h = bf16[] constant(0)
  rw = reduce-window(d, h), window={size=2x2}, to_apply=max
  ROOT out = tuple(d, r, b, k, g, rw)
}`)
	want := map[string]string{
		"d":    "f32[2,4]",
		"r":    "f32[2]",
		"b":    "f32[]",
		"k":    "f32[3,2]", // XLA infers a broadcast as dimensions ++ the operand's
		"init": "(s32[], f32[2,3])",
		"w":    "(s32[], f32[2,3])",
		"g":    "f32[2,3]",
		// An init value of another float precision than the reducer's, and
		// the result of the init value's type, as XLA infers them.
		"rw":  "bf16[1,3]",
		"out": "(f32[2,4], f32[2], f32[], f32[3,2], f32[2,3], bf16[1,3])",
	}
	for name, w := range want {
		if got := m.Entry.Instruction(name).Shape.StringWithoutLayout(); got != w {
			t.Errorf("%s: inferred %s, want %s", name, got, w)
		}
	}
	if b := m.Entry.Instruction("b"); b.Dimensions == nil || len(b.Dimensions) != 0 {
		t.Errorf("broadcast of a scalar without dimensions: %v, want {}", b.Dimensions)
	}
	if got := m.Computation("max").Root.Shape.StringWithoutLayout(); got != "f32[]" {
		t.Errorf("max's root: %s", got)
	}
	const head = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
	mustFail(t, head+"  c = convert(p)\n}", "4:7: cannot infer the shape of convert")
	mustFail(t, head+"  q = s32[2] parameter(1)\n  a = add(p, q)\n}", "5:7: add: failed to infer the shape: add: operands must have the same element type")
	mustFail(t, head+"  b = broadcast(p)\n}", "4:7: broadcast: attribute dimensions is expected but not seen")
}

func TestParseNestedInstructionsAndCompactTupleAccess(t *testing.T) {
	m := mustParse(t, `HloModule m
ENTRY e {
  t = (f32[4], (s32[], f32[4])) parameter(0)
  s = f32[4] add(f32[4] negate(%t#0), f32[4] %t#1#1)
  ROOT r = f32[4] multiply(s, %t#0)
}`)
	names := func(c *Computation) []string {
		var out []string
		for _, in := range c.Instructions {
			out = append(out, in.Name+"="+in.Opcode.String())
		}
		return out
	}
	// The nested negate is named negate.anon; %t#0 becomes t_0 once, before
	// its first use, and %t#1#1 the chain t_1, t_1_1.
	want := []string{"t=parameter", "t_0=get-tuple-element", "negate.anon=negate", "t_1=get-tuple-element",
		"t_1_1=get-tuple-element", "s=add", "r=multiply"}
	if got := names(m.Entry); !slices.Equal(got, want) {
		t.Errorf("instructions %v, want %v", got, want)
	}
	if g := m.Entry.Instruction("t_1_1"); g.TupleIndex != 1 || g.Operands[0].Name != "t_1" || g.Shape.StringWithoutLayout() != "f32[4]" {
		t.Errorf("t_1_1 = %v", g)
	}
	if r := m.Entry.Root; r.Operands[1].Name != "t_0" {
		t.Errorf("second use of %%t#0 reads %s", r.Operands[1].Name)
	}
	const head = "HloModule m\nENTRY e {\n  t = (f32[4], f16[4]) parameter(0)\n"
	mustFail(t, head+"  ROOT r = f32[4] negate(%t#2)\n}", "4:29: GTE index 2 out of bounds")
	mustFail(t, head+"  ROOT r = f32[4] negate(%t#a)\n}", "4:29: expected tuple index after '#' (expects integer)")
	mustFail(t, head+"  ROOT r = f32[4] negate(f32[4] %t#1)\n}", "the declared operand shape f32[4] is not compatible with the shape of operand \"t_1\", f16[4]")
	// A nested instruction takes no attributes: the comma belongs to the
	// operand list, so a broadcast of an array lacks its dimensions.
	mustFail(t, "HloModule m\nENTRY e {\n  ROOT r = sqrt(f32[10,10] broadcast(f32[10] parameter(0)))\n}", "broadcast: attribute dimensions is expected but not seen")
}

func TestParseInlineComputations(t *testing.T) {
	m := mustParse(t, `HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  s = f32[] reduce(p, z), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT c = f32[] add(a, b)
  }
  i = s32[] constant(1)
  ROOT r = f32[] conditional(i, s, s), branch_computations={
    { x = f32[] parameter(0)
      ROOT n = f32[] negate(x) },
    { y = f32[] parameter(0)
      ROOT m = f32[] abs(y) }
  }
}`)
	var got []string
	for _, c := range m.Computations {
		got = append(got, c.Name)
	}
	if want := []string{"_", "_.1", "_.2", "e"}; !slices.Equal(got, want) {
		t.Errorf("computations %v, want %v", got, want)
	}
	r := m.Entry.Root
	if len(r.Branches) != 2 || r.Branches[0].Root.Opcode != OpNegate || r.Branches[1].Root.Opcode != OpAbs {
		t.Errorf("branches %v", r.Branches)
	}
}

func TestParseSingleInstruction(t *testing.T) {
	// Operands that name nothing become parameters of their written shapes;
	// with no name on the left, the instruction is named "_".
	m := mustParse(t, "f32[2,3] add(f32[2,3] x, f32[2,3] %y)")
	if m.Name != "_" || m.Entry.Name != "_" || m.Entry.Root.Name != "_" || len(m.Entry.Parameters) != 2 ||
		m.Entry.Parameters[0].Name != "x" || m.Entry.Parameters[1].Name != "y" {
		t.Errorf("module:\n%s", m)
	}
	m = mustParse(t, "%c = f32[2] concatenate(f32[1], f32[1]), dimensions={0}")
	if p := m.Entry.Parameters; len(p) != 2 || p[0].Name != "_0" || p[1].Name != "_1" {
		t.Errorf("unnamed operands: %v", p)
	}
	mustFail(t, "%multiply = f32[2,4]{1,0} multiply(%broadcast, %x)", "operand broadcast had no shape in the HLO text")
	mustFail(t, "par0 = (f32[3,5], f32[]) parameter(0), parameter_replication={true,false,true}",
		"parameter has 2 leaf buffers, but parameter_replication has 3 elements")
}

func TestParseStackFrameIndex(t *testing.T) {
	text := `HloModule m, entry_computation_layout={()->pred[]}

FileNames
1 "main.py"
2 "lib/ops.py"

FunctionNames
1 "main"
2 "helper"

FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=2 end_column=8}
2 {file_name_id=2 function_name_id=2 line=5 end_line=7 column=4 end_column=1}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}


ENTRY %e () -> pred[] {
  ROOT %c = pred[] constant(true), metadata={op_name="c" stack_frame_id=2}
}
`
	m := mustParse(t, text)
	x := m.StackFrames
	if x == nil || !slices.Equal(x.FileNames, []string{"main.py", "lib/ops.py"}) || len(x.FileLocations) != 2 ||
		x.FileLocations[1] != (FileLocation{2, 2, 5, 7, 4, 1}) || len(x.Frames) != 2 || x.Frames[1] != (StackFrame{2, 1}) {
		t.Fatalf("stack frames %+v", x)
	}
	// XLA prints the section as it reads it.
	if withoutWhitespace(m.String()) != withoutWhitespace(text) {
		t.Errorf("printed text differs:%s", firstDifference(withoutWhitespace(m.String()), withoutWhitespace(text)))
	}
	mustFail(t, strings.Replace(text, " end_line=7", "", 1), "file location field end_line is expected but not seen")
	mustFail(t, strings.Replace(text, "FunctionNames", "Functions", 1), "expected 'FunctionNames' after the FileNames section")
}

func TestParseNewOpcodesAndTypes(t *testing.T) {
	m := mustParse(t, `HloModule m
step {
  x = f32[4] parameter(0)
  c = f32[4] parameter(1)
  s = add(x, c)
  ROOT t = tuple(s, s)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  c = f32[4] parameter(1)
  sc = scan(x, c), dimensions={0}, num_carries=1, to_apply=step, is_reverse=true
  h = cosh(c)
  a = atanh(h), result_accuracy={tolerance={rtol=0.5, atol=1, ulps=2}}
  i = u32[4] parameter(2)
  hi = mulhi(i, i)
  l = f8e4m3fn[16,64] parameter(3)
  ls = f8e8m0fnu[16,2] parameter(4)
  r = f8e5m2fnuz[64,8] parameter(5)
  rs = f8e8m0fnu[2,8] parameter(6)
  sd = bf16[16,8] scaled-dot(l, r, ls, rs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  m = f32[11,5] parameter(7)
  w = f32[3,5,7] parameter(8)
  g = s32[3] parameter(9)
  rd = ragged-dot(m, w, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  k = f4e2m1fn[4] constant({0.5, 1.5, -6, 3})
  s2 = s2[3] constant({-2, 1, 0})
  u1 = u1[2] constant({1, 0})
  f = f8e3m4[2] constant({15.5, -0.0625})
  ROOT out = tuple(sc, a, hi, sd, rd, k, s2, u1, f)
}`)
	for name, want := range map[string]string{
		"sc": "(f32[8,4], f32[4])", "a": "f32[4]", "hi": "u32[4]", "rd": "f32[11,7]",
	} {
		if got := m.Entry.Instruction(name).Shape.StringWithoutLayout(); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if sc := m.Entry.Instruction("sc"); sc.NumCarries != 1 || !sc.IsReverse || sc.IsAssociative {
		t.Errorf("scan attributes %+v", sc.Attrs)
	}
	if err := m.Verify(); err != nil {
		t.Errorf("verify: %v", err)
	}
	for _, c := range []struct{ name, want string }{
		{"k", "{0.5, 1.5, -6, 3}"}, {"s2", "{-2, 1, 0}"}, {"u1", "{1, 0}"}, {"f", "{15.5, -0.0625}"},
	} {
		if got := m.Entry.Instruction(c.name).Literal.ValueString(); got != c.want {
			t.Errorf("%s = %s, want %s", c.name, got, c.want)
		}
	}
	const head = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
	mustFail(t, head+"  r = s2[1] constant({2})\n}", "value 2 is out of range for s2 [-2, 1]")
	mustFail(t, head+"  r = f32[2] scan(p), dimensions={0}, to_apply=c\n}", "scan: attribute num_carries is expected but not seen")
	mustFail(t, head+"  r = f8e4m3b11fnuz[1] constant({nan(0x1)})\n}", "f8e4m3b11fnuz NaNs take no payload")
}

func TestParseAsyncForms(t *testing.T) {
	m := mustParse(t, `HloModule m
wrapped {
  a = f32[8] parameter(0)
  ROOT n = f32[8] negate(a)
}
ENTRY e {
  p = f32[8] parameter(0)
  s = ((f32[8]), f32[8], s32[]) async-start(p), calls=wrapped, async_execution_thread="side"
  u = ((f32[8]), f32[8], s32[]) async-update(s)
  d = f32[8] async-done(u), calls=wrapped
  cs = ((f32[8]), f32[8], s32[]) custom-call-start(p), custom_call_target="foo"
  cd = f32[8] custom-call-done(cs)
  late = ((), (), s32[]) call-start(), to_apply={
    x = f32[8] parameter(0)
    ROOT y = f32[8] abs(x)
  }
  bound = ((f32[8]), f32[8], s32[]) call-update(late, p)
  ROOT done = f32[8] call-done(bound)
}`)
	if s := m.Entry.Instruction("s"); s.Calls.Name != "wrapped" || s.AsyncExecutionThread != "side" {
		t.Errorf("async-start %+v", s)
	}
	if cs := m.Entry.Instruction("cs"); cs.Opcode != OpAsyncStart || cs.AsyncWrapped != OpCustomCall {
		t.Errorf("custom-call-start: %v %v", cs.Opcode, cs.AsyncWrapped)
	}
	if b := m.Entry.Instruction("bound"); b.AsyncWrapped != OpCall || len(b.Operands) != 2 {
		t.Errorf("call-update binding an operand late: %v", b)
	}
	const head = "HloModule m\nwrapped {\n  a = f32[8] parameter(0)\n  ROOT n = f32[8] negate(a)\n}\nother {\n  b = f32[8] parameter(0)\n  ROOT m = f32[8] abs(b)\n}\nENTRY e {\n  p = f32[8] parameter(0)\n"
	const start = "  s = ((f32[8]), f32[8], s32[]) async-start(p), calls=wrapped\n"
	for _, tc := range []struct{ body, want string }{
		{"  s = ((f32[8])) async-start(p), calls=wrapped\n", "AsyncStart and AsyncUpdate expect the shape to be in the form of ((operand0_shape"},
		{"  s = ((f32[8]), f32[8], s32[]) async-start(p)\n", "async-start: attribute calls is expected but not seen"},
		{start + "  d = f32[8] async-done(s)\n  e = f32[8] async-done(d)\n", "AsyncUpdate and AsyncDone cannot have AsyncDone as operand"},
		{start + "  d = f32[8] async-done()\n", "no operand found for AsyncUpdate and AsyncDone"},
		{start + "  d = f32[8] async-done(s), calls=other\n", "expect async_wrapped_computation to be wrapped, but got other"},
		{start + "  d = f32[8] async-done(s), async_execution_thread=\"side\"\n", "expect async_execution_thread to be main, but got side"},
		{start + "  t = ((f32[8]), f32[8], s32[]) async-start(p), calls=wrapped\n", "computation \"wrapped\" is called by more than one async op"},
		{"  s = ((f32[8]), f32[8], s32[]) custom-call-start(p), custom_call_target=\"x\"\n  d = f32[8] add-done(s)\n", "expect async wrapped opcode to be custom-call, but got add"},
		{"  s = ((f32[8]), f32[8], u32[]) collective-permute-start(p), source_target_pairs={{0,1}}\n  u = ((f32[8]), f32[8], u32[]) collective-permute-update(s)\n", "unknown opcode \"collective-permute-update\""},
		{"  t = token[] after-all()\n  r = (f32[8], u32[], token[]) recv(t), channel_id=1\n  u = (f32[8], u32[], token[]) recv-update(r)\n", "unknown opcode \"recv-update\""},
		{"  s = ((f32[8]), f32[8], s32[]) custom-call-start(p)\n", "custom-call-start: attribute custom_call_target is expected but not seen"},
		{"  s = ((f32[8]), f32[8], s32[]) custom-call-start(p), custom_call_target=\"x\", calls=wrapped\n", "unexpected attribute \"calls\" for custom-call-start"},
	} {
		mustFail(t, head+tc.body+"  ROOT r = f32[8] negate(p)\n}", tc.want)
	}
}

// JAX's annotation custom-calls read as ordinary custom calls with their
// sharding and backend attributes.
func TestParseJAXAnnotationCustomCalls(t *testing.T) {
	m := mustParse(t, `HloModule jit_f, num_partitions=2
ENTRY main {
  x = f32[8,4] parameter(0), sharding={devices=[2,1]<=[2]}
  s = f32[8,4] custom-call(x), custom_call_target="Sharding", sharding={devices=[2,1]<=[2]}, backend_config="unspecified_dims=[1]"
  f = f32[4,4] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
  b = f32[8,4] custom-call(f), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1]0,1}
  h = f32[8,4] custom-call(b), custom_call_target="MoveToHost"
  d = f32[8,4] custom-call(h), custom_call_target="MoveToDevice"
  ROOT a = f32[8,4] custom-call(d), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
}`)
	var targets []string
	for _, in := range m.Entry.Instructions {
		if in.Opcode == OpCustomCall {
			targets = append(targets, in.CustomCallTarget)
		}
	}
	if want := []string{"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost", "MoveToDevice", "annotate_device_placement"}; !slices.Equal(targets, want) {
		t.Errorf("targets %v", targets)
	}
	if err := m.Verify(); err != nil {
		t.Errorf("verify: %v", err)
	}
}

func TestParseBufferShapesAndMeshGroups(t *testing.T) {
	m := mustParse(t, `HloModule m, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[16] parameter(0)
  pin = b(f32[16]) custom-call(p), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  u = f32[16] custom-call(pin), custom_call_target="Unpin"
  ROOT r = f32[16] all-reduce(u), replica_groups=mesh['x'=2,'y'=2] {'y'}, to_apply=add
}`)
	if pin := m.Entry.Instruction("pin"); !pin.Shape.IsBuffer() || pin.Shape.String() != "b(f32[16])" {
		t.Errorf("buffer shape %v", pin.Shape)
	}
	r := m.Entry.Root
	if want := [][]int{{0, 1}, {2, 3}}; r.ReplicaGroups == nil || !slices.EqualFunc(r.ReplicaGroups.Groups, want, slices.Equal[[]int]) {
		t.Errorf("mesh groups %+v, want %v", r.ReplicaGroups, want)
	}
	if got := meshGroups([]int{2, 2}, []int{3, 2, 1, 0}, []int{0}); !slices.EqualFunc(got, [][]int{{3, 1}, {2, 0}}, slices.Equal[[]int]) {
		t.Errorf("mesh groups over x of listed devices: %v", got)
	}
	mustFail(t, "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] all-gather(p), dimensions={0}, replica_groups=mesh['x'=2,'y'=2, device_ids=(0,1,2)] {'x'}\n}",
		"expected 4 device_ids for the mesh axes [2 2], found 3")
}

func TestParseModuleAttributes(t *testing.T) {
	const body = "\nENTRY e {\n  p = (f32[], f32[2]) parameter(0)\n  q = f32[] parameter(1)\n  ROOT t = (f32[], f32[2]) tuple(q, q)\n}"
	m := mustParse(t, "HloModule m, input_output_alias={ {0}: (0, {0}, must-alias), {1}: (0, {1}) }, buffer_donor={ (1, {}) }, alias_passthrough_params=true, frontend_attributes={a=\"b\"}, allow_spmd_sharding_propagation_to_output={true}"+
		strings.Replace(body, "tuple(q, q)", "tuple(q, %p#1)", 1))
	if len(m.Attributes) != 5 {
		t.Errorf("attributes %v", m.Attributes)
	}
	for _, tc := range []struct{ attrs, want string }{
		{", input_output_alias={ {0, a}: (0, {0}) }", "shape index entry (expects integer)"},
		{", input_output_alias={ {0}: (zero, {0}) }", "parameter number (expects integer)"},
		{", input_output_alias={ {0 : (0, {0}) }", "at the end of a shape index"},
		{", input_output_alias={ {2}: (0, {0}) }", "trying to set up an alias at {2}, which is an invalid index for the result shape"},
		{", input_output_alias={ {0}: (2, {}) }", "parameter 2 does not exist"},
		{", input_output_alias={ {0}: (0, {0}, sometimes) }", "unexpected aliasing kind \"sometimes\""},
		{", buffer_donor={ (0, {0, a}) }", "shape index entry (expects integer)"},
		{", buffer_donor={ (0, {5}) }", "{5} is not a valid index of parameter 0's shape"},
		{", colour=blue", "unexpected attribute \"colour\" of HloModule"},
	} {
		mustFail(t, "HloModule m"+tc.attrs+body, tc.want)
	}
}

func TestParseNonASCIINames(t *testing.T) {
	mustFail(t, "HloModule m\nENTRY e {\n  naïve = f32[] parameter(0)\n}", "3:5: illegal character 'ï' (U+00EF) in instruction name na…")
	mustFail(t, "HloModule m\nENTRY e {\n  élan = f32[] parameter(0)\n}", "3:3: expected instruction name, found character 'é' (U+00E9)")
}
