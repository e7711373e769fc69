package xlaconformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
	"github.com/kilnml/kiln/runtime"
)

// evalCase is one case of hlo_eval_cases.json: a module, its arguments and
// the expected result.
type evalCase struct {
	HLO        string        `json:"hlo"`
	Args       []jsonLiteral `json:"args"`
	Comparison *comparison   `json:"comparison"`
	Expected   struct {
		Form       string          `json:"form"`
		Literal    *jsonLiteral    `json:"literal"`
		Dtype      string          `json:"dtype"`
		Values     json.RawMessage `json:"values"`
		TupleIndex []int           `json:"tuple_index"`
	} `json:"expected"`
}

func init() {
	Register(Suite{Name: "eval", File: "hlo_eval_cases.json", Check: func(c Case) error { return checkEval(c, true) }})
	Register(Suite{Name: "evalc", File: "hlo_eval_cases.json", Check: func(c Case) error { return checkEval(c, false) }})
}

// checkEval runs a case as `kiln run [--reference]` does: the module parsed
// and verified, the arguments read from their literal text, the outputs
// printed one per line, then read back and compared with the expected
// literal.
func checkEval(c Case, reference bool) error {
	var ec evalCase
	if err := json.Unmarshal(c.Raw, &ec); err != nil {
		return fmt.Errorf("case: %v", err)
	}
	m, err := ir.ParseModule(ec.HLO)
	if err != nil {
		return fmt.Errorf("parse: %v", err)
	}
	if err := m.Verify(); err != nil {
		return fmt.Errorf("verify: %v", err)
	}
	args := make([]*ir.Literal, len(ec.Args))
	for i, a := range ec.Args {
		if args[i], err = ir.ParseLiteral(literalText(a)); err != nil {
			return fmt.Errorf("argument %d: %v", i, err)
		}
	}
	var outs []*ir.Literal
	if reference {
		outs, err = eval.Run(m, args...)
	} else {
		outs, err = runCompiled(m, args)
	}
	if err != nil {
		return err
	}
	var printed strings.Builder
	for _, o := range outs {
		printed.WriteString(o.ToStatic().String())
		printed.WriteByte('\n')
	}
	got, err := readLiterals(printed.String())
	if err != nil {
		return fmt.Errorf("unreadable output: %v", err)
	}
	cmp := comparison{Kind: "equal"}
	if ec.Comparison != nil {
		cmp = *ec.Comparison
	}
	picked := pickOutput(got, ec.Expected.TupleIndex)
	var why string
	switch ec.Expected.Form {
	case "literal":
		if ec.Expected.Literal == nil {
			return errors.New("case has no expected literal")
		}
		why = compareLiteral(picked, *ec.Expected.Literal, cmp)
	case "flat_values":
		if picked == nil || picked.isTuple {
			return errors.New("missing output")
		}
		want := jsonLiteral{Dtype: ec.Expected.Dtype}
		if err := want.UnmarshalJSON([]byte(fmt.Sprintf(`{"dtype": %q, "shape": [0], "values": %s}`, ec.Expected.Dtype, ec.Expected.Values))); err != nil {
			return err
		}
		list, _ := want.Values.([]any)
		want.Shape = []int{len(list)}
		flat := *picked
		flat.shape = []int{len(flat.flat)}
		why = compareLiteral(&flat, want, cmp)
	default:
		return fmt.Errorf("unknown expected form %q", ec.Expected.Form)
	}
	if why != "" {
		return errors.New(why)
	}
	return nil
}

// pickOutput selects the output the case expects: outputs printed one per
// line form a tuple when there are several; index walks into it.
func pickOutput(outputs []*printedLiteral, index []int) *printedLiteral {
	if len(outputs) == 1 && outputs[0].isTuple {
		outputs = outputs[0].tuple
	}
	var node *printedLiteral
	if len(outputs) == 1 {
		node = outputs[0]
	} else {
		node = &printedLiteral{isTuple: true, tuple: outputs}
	}
	for _, i := range index {
		if !node.isTuple {
			if i == 0 && len(index) == 1 {
				return node
			}
			return nil
		}
		if i >= len(node.tuple) {
			return nil
		}
		node = node.tuple[i]
	}
	return node
}

// runCompiled compiles m and runs it once on args, as `kiln run` does.
func runCompiled(m *ir.Module, args []*ir.Literal) ([]*ir.Literal, error) {
	exe, err := runtime.Compile(m)
	if err != nil {
		return nil, err
	}
	var ins []*runtime.Tensor
	for _, a := range args {
		ins = appendLeafTensors(ins, a)
	}
	outs, err := exe.Run(context.Background(), ins...)
	if err != nil {
		return nil, err
	}
	lits := make([]*ir.Literal, len(outs))
	for i, o := range outs {
		lits[i] = o.Literal()
	}
	return lits, nil
}

// appendLeafTensors appends one tensor per array leaf of l, as `kiln run`
// passes a tuple argument.
func appendLeafTensors(ts []*runtime.Tensor, l *ir.Literal) []*runtime.Tensor {
	if l.Shape().IsTuple() {
		for _, e := range l.Elements() {
			ts = appendLeafTensors(ts, e)
		}
		return ts
	}
	return append(ts, runtime.TensorFromLiteral(l))
}
