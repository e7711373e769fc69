package eval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
)

func runReplicated(t *testing.T, text string, args [][]*ir.Literal) [][]*ir.Literal {
	t.Helper()
	out, err := RunReplicated(parseHLO(t, text), len(args), args)
	if err != nil {
		t.Fatalf("RunReplicated: %v", err)
	}
	return out
}

func perReplica(ls ...*ir.Literal) [][]*ir.Literal {
	out := make([][]*ir.Literal, len(ls))
	for i, l := range ls {
		out[i] = []*ir.Literal{l}
	}
	return out
}

func TestAllReduceSeedExample(t *testing.T) {
	// Two replicas holding [1.0, 2.5] and [3.0, 5.25]: the sum is [4.0,
	// 7.75] on both.
	out := runReplicated(t, fmt.Sprintf(`HloModule m, replica_count=2
%s
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add
}
`, scalarComputation("add", "add", ir.F32)), perReplica(vec[float32](1, 2.5), vec[float32](3, 5.25)))
	for r := range out {
		expectClose(t, out[r][0], "f32[2]", reals(4, 7.75), 0)
	}
}

func TestAllGatherSeedExample(t *testing.T) {
	out := runReplicated(t, `HloModule m, replica_count=2
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[4] all-gather(x), replica_groups={}, dimensions={0}
}
`, perReplica(vec[float32](1, 2.5), vec[float32](3, 5.25)))
	for r := range out {
		expectClose(t, out[r][0], "f32[4]", reals(1, 2.5, 3, 5.25), 0)
	}
}

func TestReduceScatterSeedExample(t *testing.T) {
	out := runReplicated(t, fmt.Sprintf(`HloModule m, replica_count=2
%s
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[1] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=add
}
`, scalarComputation("add", "add", ir.F32)), perReplica(vec[float32](1, 2.25), vec[float32](3, 5.25)))
	expectClose(t, out[0][0], "f32[1]", reals(4), 0)
	expectClose(t, out[1][0], "f32[1]", reals(7.5), 0)
}

func TestAllToAllSeedShapeAndValues(t *testing.T) {
	// The seed's example: f32[4,16] split along dimension 1 into 4 parts,
	// concatenated along dimension 0, gives f32[16,4]. HLO's all-to-all
	// splits and concatenates along one dimension; the builder adds the
	// reshapes and transposes, here written out.
	args := make([][]*ir.Literal, 4)
	for r := range args {
		v := make([]float32, 64)
		for i := range v {
			v[i] = float32(100*r + i)
		}
		args[r] = []*ir.Literal{lit([]int{4, 16}, v...)}
	}
	out := runReplicated(t, `HloModule m, replica_count=4
ENTRY e {
  x = f32[4,16] parameter(0)
  r = f32[4,4,4] reshape(x)
  t = f32[4,4,4] transpose(r), dimensions={1,0,2}
  a = f32[4,4,4] all-to-all(t), replica_groups={}, dimensions={0}
  ROOT o = f32[16,4] reshape(a)
}
`, args)
	// Replica r receives block r (columns 4r..4r+3) of every replica j, in
	// replica order: row 4j+i is replica j's row i, columns 4r…4r+3.
	for r := range out {
		var want []float64
		for j := 0; j < 4; j++ {
			for i := 0; i < 4; i++ {
				for c := 0; c < 4; c++ {
					want = append(want, float64(100*j+16*i+4*r+c))
				}
			}
		}
		expectClose(t, out[r][0], "f32[16,4]", reals(want...), 0)
	}
}

func TestCollectivesWithReplicaGroups(t *testing.T) {
	// Groups {0,2} and {3,1}: group order decides the gather order and
	// which shard each member receives.
	text := fmt.Sprintf(`HloModule m, replica_count=4
%s
ENTRY e {
  x = s32[2] parameter(0)
  ar = s32[2] all-reduce(x), replica_groups={{0,2},{3,1}}, to_apply=add
  ag = s32[4] all-gather(x), replica_groups={{0,2},{3,1}}, dimensions={0}
  rs = s32[1] reduce-scatter(x), replica_groups={{0,2},{3,1}}, dimensions={0}, to_apply=add
  cb = s32[2] collective-broadcast(x), replica_groups={{0,2},{3,1}}
  id = u32[] replica-id()
  ROOT t = (s32[2], s32[4], s32[1], s32[2], u32[]) tuple(ar, ag, rs, cb, id)
}
`, scalarComputation("add", "add", ir.S32))
	out := runReplicated(t, text, perReplica(vec[int32](1, 2), vec[int32](10, 20), vec[int32](100, 200), vec[int32](1000, 2000)))
	expectClose(t, out[0][0], "s32[2]", reals(101, 202), 0)
	expectClose(t, out[1][0], "s32[2]", reals(1010, 2020), 0)
	expectClose(t, out[0][1], "s32[4]", reals(1, 2, 100, 200), 0)
	expectClose(t, out[1][1], "s32[4]", reals(1000, 2000, 10, 20), 0)
	expectClose(t, out[2][2], "s32[1]", reals(202), 0)
	expectClose(t, out[3][2], "s32[1]", reals(1010), 0)
	expectClose(t, out[1][3], "s32[2]", reals(1000, 2000), 0)
	expectClose(t, out[2][3], "s32[2]", reals(1, 2), 0)
	for r := range out {
		expectClose(t, out[r][4], "u32[]", reals(float64(r)), 0)
	}
}

func TestCollectivePermute(t *testing.T) {
	out := runReplicated(t, `HloModule m, replica_count=3
ENTRY e {
  x = f32[2] parameter(0)
  ROOT p = f32[2] collective-permute(x), source_target_pairs={{0,1},{1,2}}
}
`, perReplica(vec[float32](1, 2), vec[float32](3, 4), vec[float32](5, 6)))
	expectClose(t, out[0][0], "f32[2]", reals(0, 0), 0) // no source: zeros
	expectClose(t, out[1][0], "f32[2]", reals(1, 2), 0)
	expectClose(t, out[2][0], "f32[2]", reals(3, 4), 0)
}

func TestAllReduceGeneralComputationAndTupleForm(t *testing.T) {
	// A reducer the fast path does not recognise (max through copy), two
	// operands at once, and a tuple all-to-all.
	out := runReplicated(t, `HloModule m, replica_count=2
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ca = f32[] copy(a)
  ROOT r = f32[] maximum(ca, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] negate(x)
  ar = (f32[2], f32[2]) all-reduce(x, y), replica_groups={}, to_apply=mx
  a0 = f32[2] get-tuple-element(ar), index=0
  a1 = f32[2] get-tuple-element(ar), index=1
  tt = (f32[2], f32[2]) all-to-all(x, y), replica_groups={}
  t0 = f32[2] get-tuple-element(tt), index=0
  t1 = f32[2] get-tuple-element(tt), index=1
  ROOT t = (f32[2], f32[2], f32[2], f32[2]) tuple(a0, a1, t0, t1)
}
`, perReplica(vec[float32](1, 5), vec[float32](3, 2)))
	expectClose(t, out[0][0], "f32[2]", reals(3, 5), 0)
	expectClose(t, out[1][1], "f32[2]", reals(-1, -2), 0)
	// Member j's operand i goes to member i: replica 0 gets (x0, x1),
	// replica 1 gets (y0, y1).
	expectClose(t, out[0][2], "f32[2]", reals(1, 5), 0)
	expectClose(t, out[0][3], "f32[2]", reals(3, 2), 0)
	expectClose(t, out[1][2], "f32[2]", reals(-1, -5), 0)
	expectClose(t, out[1][3], "f32[2]", reals(-3, -2), 0)
}

func TestCollectivesInALoopAndSingleReplica(t *testing.T) {
	// An all-reduce inside a while loop meets once per iteration.
	text := fmt.Sprintf(`HloModule m
%s
cond {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[] get-tuple-element(p), index=1
  s = f32[] all-reduce(v), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[]) tuple(j, s)
}
ENTRY e {
  x = f32[] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[]) tuple(z, x)
  w = (s32[], f32[]) while(t), condition=cond, body=body
  ROOT r = f32[] get-tuple-element(w), index=1
}
`, scalarComputation("add", "add", ir.F32))
	out := runReplicated(t, text, perReplica(scalar[float32](1), scalar[float32](2)))
	// 1 + 2 = 3, then 6, then 12 on both.
	expectClose(t, out[0][0], "f32[]", reals(12), 0)
	expectClose(t, out[1][0], "f32[]", reals(12), 0)
	// With one replica (Run) the collectives keep their single-replica meaning.
	single := runHLO(t, text, scalar[float32](5))
	expectClose(t, single[0], "f32[]", reals(5), 0)
}

func TestCollectiveErrors(t *testing.T) {
	add := scalarComputation("add", "add", ir.F32)
	// A replica that fails stops the others instead of leaving them waiting.
	m := parseHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add
}
`, add))
	_, err := RunReplicated(m, 2, [][]*ir.Literal{{vec[float32](1, 2)}, {vec[float32](1, 2, 3)}})
	wantErr(t, err, "replica 1")
	// A group naming a replica that does not exist.
	m = parseHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={{0,5}}, to_apply=add
}
`, add))
	_, err = RunReplicated(m, 2, perReplica(vec[float32](1, 2), vec[float32](3, 4)))
	wantErr(t, err, "replica 5")
	m = parseHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={{0,1}}, to_apply=add
}
`, add))
	_, err = RunReplicated(m, 3, perReplica(vec[float32](1, 2), vec[float32](3, 4), vec[float32](5, 6)))
	wantErr(t, err, "replica 2 is in no replica group")
	// Context cancellation ends replicas that wait forever: one replica
	// takes the only infeed value and waits at the all-reduce, the other
	// waits for an infeed value that never comes.
	m = parseHLO(t, fmt.Sprintf(`HloModule m
%s
ENTRY e {
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  x = f32[2] get-tuple-element(in), index=0
  ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add
}
`, add))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	feed := make(chan *ir.Literal, 1)
	feed <- vec[float32](1, 2)
	_, err = RunReplicatedWithOptions(m, Options{Context: ctx, Infeed: feed}, 2, [][]*ir.Literal{{}, {}})
	wantErr(t, err, "deadline exceeded")
	_, err = RunReplicated(m, 2, perReplica(vec[float32](1, 2)))
	wantErr(t, err, "1 argument lists for 2 replicas")
}
