package runtime

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
)

func BenchmarkTmpRW(b *testing.B) {
	defer kiln.SetThreads(kiln.SetThreads(1))
	src, _ := os.ReadFile(os.Getenv("HLOFILE"))
	m, err := ir.ParseModule(string(src))
	if err != nil {
		b.Fatal(err)
	}
	exe, err := Compile(m, WithThreads(1))
	if err != nil {
		b.Fatal(err)
	}
	var args []*Tensor
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range exe.ParameterShapes() {
		t, _ := NewTensor(s)
		bs := t.Bytes()
		for i := 0; i+1 < len(bs); i += 2 {
			bs[i] = byte(r.IntN(256))
			bs[i+1] = byte(0x3e + r.IntN(2)) // bf16 values near 0.1..1
		}
		args = append(args, t)
	}
	outs := []*Tensor{}
	for _, s := range exe.ResultShapes() {
		t, _ := NewTensor(s)
		outs = append(outs, t)
	}
	for b.Loop() {
		exe.RunInto(context.Background(), outs, args...)
	}
}
