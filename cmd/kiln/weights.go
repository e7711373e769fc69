package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/runtime"
)

// weightFile is a --weights file matched against a module's entry
// parameters.
type weightFile struct {
	path    string
	tensors map[string]*runtime.Tensor
	// bound maps an entry parameter number to the name of the tensor bound
	// to it.
	bound map[int]string
}

// loadWeightFile reads the named tensors of path (.safetensors, .npz or
// .npy) and matches them to m's entry parameters by name, with the rule
// runtime.WithWeights uses (runtime.ParameterNames), so that the tool knows
// which parameters are left for --arg and --npy. Binding is strict, as in
// the runtime: a matched tensor of the wrong shape is an error, and so is a
// tensor that binds to no parameter.
func loadWeightFile(m *ir.Module, path string) (*weightFile, error) {
	weights, err := runtime.LoadWeights(path)
	if err != nil {
		return nil, err
	}
	tensors := weights.Tensors()
	w := &weightFile{path: path, tensors: tensors, bound: map[int]string{}}
	used := map[string]bool{}
	for i, p := range m.Entry.Parameters {
		if !p.Shape.IsArray() {
			continue
		}
		for _, name := range runtime.ParameterNames(p) {
			t, ok := tensors[name]
			if !ok {
				continue
			}
			if !t.Shape().Compatible(p.Shape) {
				return nil, fmt.Errorf("%s: tensor %q has shape %v, parameter %d (%s) is %v",
					path, name, t.Shape().StringWithoutLayout(), i, p.Name, p.Shape.StringWithoutLayout())
			}
			w.bound[i] = name
			used[name] = true
			break
		}
	}
	var unused []string
	for n := range tensors {
		if !used[n] {
			unused = append(unused, n)
		}
	}
	sort.Strings(unused)
	if len(unused) > 5 {
		unused = append(unused[:5], "…")
	}
	if len(w.bound) == 0 && len(tensors) > 0 {
		return nil, fmt.Errorf("%s: none of its %d tensors (%s) matches a parameter of %s (%s); a tensor binds a parameter under one of the names runtime.ParameterNames lists",
			path, len(tensors), strings.Join(unused, ", "), m.Entry.Name, paramList(m.Entry.Parameters))
	}
	if len(unused) > 0 {
		return nil, fmt.Errorf("%s: tensors %s bind to no parameter of %s; the parameters left unbound are %s",
			path, strings.Join(unused, ", "), m.Entry.Name, paramList(freeParameters(m.Entry.Parameters, w)))
	}
	return w, nil
}

// literal returns the tensor bound to entry parameter i as a literal.
func (w *weightFile) literal(i int) (*ir.Literal, bool) {
	if w == nil {
		return nil, false
	}
	name, ok := w.bound[i]
	if !ok {
		return nil, false
	}
	return w.tensors[name].Literal(), true
}
