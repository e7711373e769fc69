package sched

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kilnml/kiln/affine"
)

// String prints the plan: one line per kernel in execution order with
// every decision it carries, then the results, the aliases and the
// subplans:
//
//	plan main: 2 kernels, arena 262144 B, intermediates 262144 B, lower bound 262144 B
//	  k0: dot [dot add maximum] gemm(b=1 m=256 n=256 k=64) epilogue(bias, relu) (param0, param2, param3) -> arena@0[262144]
//	  k1: reduce [reduce] reducer=add parallel=4 (arena@0[262144], const#5) -> result0
//	  results: result0
//
// A loop's input read other than at the output's own index shows the map
// it is read through, as the input index in terms of the loop's index
// variables d0, d1, …: param1@(d1) is a row vector broadcast along d0.
func (pl *Plan) String() string {
	var b strings.Builder
	pl.write(&b, "")
	return strings.TrimRight(b.String(), "\n")
}

func (pl *Plan) write(b *strings.Builder, indent string) {
	fmt.Fprintf(b, "%splan %s: %d kernels, arena %d B, intermediates %d B, lower bound %d B\n",
		indent, pl.Func.Name, len(pl.Kernels), pl.ArenaBytes, pl.IntermediateBytes, pl.LowerBoundBytes)
	for i, k := range pl.Kernels {
		fmt.Fprintf(b, "%s  k%d: %s\n", indent, i, k.Describe())
	}
	if len(pl.Results) > 0 {
		rs := make([]string, len(pl.Results))
		for i, r := range pl.Results {
			rs[i] = r.String()
		}
		fmt.Fprintf(b, "%s  results: %s\n", indent, strings.Join(rs, ", "))
	}
	for _, a := range pl.Aliases {
		verdict := "copied"
		if a.InPlace {
			verdict = "in place"
		}
		fmt.Fprintf(b, "%s  alias: result%d over param%d: %s\n", indent, a.Result, a.Param, verdict)
	}
	subs := make([]*Plan, 0, len(pl.Subplans))
	for _, sp := range pl.Subplans {
		subs = append(subs, sp)
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Func.Name < subs[j].Func.Name })
	for _, sp := range subs {
		sp.write(b, indent+"  ")
	}
}

// Describe prints the kernel with its decisions: kind, values, GEMM or
// convolution plan, epilogue, reducer, parallel split, inputs (with the
// maps a loop reads them through) and output.
func (k *Kernel) Describe() string {
	var b strings.Builder
	b.WriteString(k.Kind.String())
	if len(k.Values) > 0 {
		ops := make([]string, len(k.Values))
		for i, v := range k.Values {
			ops[i] = v.Op.String()
		}
		fmt.Fprintf(&b, " [%s]", strings.Join(ops, " "))
	}
	if k.Gemm != nil {
		b.WriteString(" " + k.Gemm.String())
	}
	if k.Conv != nil {
		b.WriteString(" " + k.Conv.String())
	}
	if k.Attn != nil {
		b.WriteString(" " + k.Attn.String())
	}
	if k.Dequant != nil {
		b.WriteString(" " + k.Dequant.String())
	}
	if len(k.Epilogue) > 0 {
		st := make([]string, len(k.Epilogue))
		for i, e := range k.Epilogue {
			st[i] = e.String()
		}
		fmt.Fprintf(&b, " epilogue(%s)", strings.Join(st, ", "))
	}
	if k.Reducer != 0 {
		fmt.Fprintf(&b, " reducer=%s", k.Reducer)
	}
	if k.Parallel > 1 {
		fmt.Fprintf(&b, " parallel=%d", k.Parallel)
	}
	if k.Out == nil {
		return b.String()
	}
	ins := make([]string, len(k.In))
	for i, in := range k.In {
		ins[i] = in.String()
		if i < len(k.Maps) && len(k.Maps[i]) > 0 && !(len(k.Maps[i]) == 1 && isIdentityMap(k.Maps[i][0]) && sameDims(k.In[i].Shape.Dims, k.Loop.Dims)) {
			ms := make([]string, len(k.Maps[i]))
			for j, m := range k.Maps[i] {
				ms[j] = mapText(m)
			}
			ins[i] += "@" + strings.Join(ms, "|")
		}
	}
	fmt.Fprintf(&b, " (%s) -> %v", strings.Join(ins, ", "), k.Out)
	return b.String()
}

func sameDims(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// mapText prints a strided map's results over d0, d1, …: (d1, d0*2+1).
// Maps that are not strided print in affine's format.
func mapText(m affine.IndexingMap) string {
	rows, consts, ok := stridedRows(m)
	if !ok {
		return m.String()
	}
	res := make([]string, len(rows))
	for j, row := range rows {
		var terms []string
		for d, c := range row {
			if c == 0 || m.DimBound(d).Lo == m.DimBound(d).Hi {
				continue
			}
			name := "d" + strconv.Itoa(d)
			switch c {
			case 1:
				terms = append(terms, name)
			case -1:
				terms = append(terms, "-"+name)
			default:
				terms = append(terms, name+"*"+strconv.Itoa(c))
			}
		}
		if consts[j] != 0 || len(terms) == 0 {
			terms = append(terms, strconv.Itoa(consts[j]))
		}
		res[j] = strings.ReplaceAll(strings.Join(terms, "+"), "+-", "-")
	}
	return "(" + strings.Join(res, ", ") + ")"
}
