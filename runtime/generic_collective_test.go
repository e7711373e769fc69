package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

func TestGenericOneReplicaCollectivesAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(111, 112))
	x := ir.MakeShape(ir.F32, 4, 6)
	y := ir.MakeShape(ir.S32, 3)
	for _, body := range []string{
		"ROOT r = f32[4,6] all-reduce(p), replica_groups={}, to_apply=add",
		"n = f32[4,6] negate(p)\n  ROOT r = (f32[4,6], f32[4,6]) all-reduce(p, n), replica_groups={{0}}, to_apply=add",
		"ROOT r = f32[4,6] all-gather(p), dimensions={1}, replica_groups={{0}}",
		"ROOT r = f32[4,6] all-to-all(p), dimensions={0}, replica_groups={{0}}",
		"ROOT r = f32[4,6] reduce-scatter(p), dimensions={1}, replica_groups={}, to_apply=add",
		"ROOT r = f32[4,6] collective-broadcast(p), replica_groups={{0}}",
		"ROOT r = f32[4,6] collective-permute(p), source_target_pairs={{0,0}}",
		"ROOT r = f32[4,6] collective-permute(p), source_target_pairs={}",
		"ROOT r = u32[] replica-id()",
		"ROOT r = u32[] partition-id()",
		"t = token[] after-all()\n  a = f32[4,6] add-dependency(p, t)\n  ROOT r = f32[4,6] negate(a)",
		"tu = (f32[4,6], s32[3]) tuple(p, q)\n  b = (f32[4,6], s32[3]) opt-barrier(tu)\n  ROOT r = s32[3] get-tuple-element(b), index=1",
	} {
		hlo := "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[4,6] parameter(0)\n  q = s32[3] parameter(1)\n  " + body + "\n}\n"
		if !validModule(hlo) {
			m, err := ir.ParseModule(hlo)
			if err == nil {
				err = m.Verify()
			}
			t.Fatalf("%v\n%s", err, hlo)
		}
		checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x, y)})
	}
}
