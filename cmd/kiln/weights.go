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
// .npy) and matches them to m's entry parameters by name, with the rules
// runtime.WithWeights uses, so that the tool knows which parameters are
// left for --arg and --npy. A matched tensor of the wrong shape is an error;
// so is a file of which no tensor matches any parameter.
func loadWeightFile(m *ir.Module, path string) (*weightFile, error) {
	weights, err := runtime.LoadWeights(path)
	if err != nil {
		return nil, err
	}
	tensors := weights.Tensors()
	w := &weightFile{path: path, tensors: tensors, bound: map[int]string{}}
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
			break
		}
	}
	if len(w.bound) == 0 && len(tensors) > 0 {
		names := make([]string, 0, len(tensors))
		for n := range tensors {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) > 5 {
			names = append(names[:5], "…")
		}
		return nil, fmt.Errorf("%s: none of its %d tensors (%s) matches a parameter of %s (%s)",
			path, len(tensors), strings.Join(names, ", "), m.Entry.Name, paramList(m.Entry.Parameters))
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
