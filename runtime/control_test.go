package runtime

import "testing"

// A loop whose body updates a vector in place (x ← x·0.5 + v) and a
// counter, and reads the old vector again after computing the new one
// (y ← x + old x): both kinds of state element, written in place and
// copied back, must give the evaluator's results.
const whileAccumulate = `HloModule loop
cond {
  s = (s32[], f32[300], f32[300], f32[300]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(37)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[300], f32[300], f32[300]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[300] get-tuple-element(s), index=1
  v = f32[300] get-tuple-element(s), index=2
  y = f32[300] get-tuple-element(s), index=3
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[300] broadcast(h), dimensions={}
  xh = f32[300] multiply(x, hb)
  x2 = f32[300] add(xh, v)
  y2 = f32[300] add(x2, x)
  ROOT t = (s32[], f32[300], f32[300], f32[300]) tuple(i2, x2, v, y2)
}
ENTRY main {
  x = f32[300] parameter(0)
  v = f32[300] parameter(1)
  z = s32[] constant(0)
  zf = f32[] constant(0)
  y = f32[300] broadcast(zf), dimensions={}
  init = (s32[], f32[300], f32[300], f32[300]) tuple(z, x, v, y)
  w = (s32[], f32[300], f32[300], f32[300]) while(init), condition=cond, body=body
  ROOT r = f32[300] get-tuple-element(w), index=3
}`

func TestWhileLoopState(t *testing.T) {
	m, e := compileText(t, whileAccumulate)
	checkAgainstEval(t, m, e, 1e-6)
	var w *whileStep
	for _, s := range e.entry.steps {
		if ws, ok := s.(*whileStep); ok {
			w = ws
		}
	}
	if w == nil {
		t.Fatal("no while step in the plan")
	}
	// The counter and y are rewritten element for element: in place. x is
	// read again after its new value is computed: copied back.
	if !w.inPlace[0] || w.inPlace[1] || !w.inPlace[3] {
		t.Errorf("in-place state elements %v, want [true false _ true]", w.inPlace)
	}
}
