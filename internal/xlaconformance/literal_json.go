package xlaconformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// jsonLiteral is a literal as the data files write it: an array
// {"dtype", "shape", "values"} with values nested by dimension (complex
// numbers as [re, im], special floats as "nan", "-nan", "inf", "-inf"), or a
// tuple {"tuple": [...]}. A "dynamic" flag marks an expected literal whose
// shape may differ when the element count agrees.
type jsonLiteral struct {
	Dtype   string        `json:"dtype"`
	Shape   []int         `json:"shape"`
	Values  any           `json:"values"`
	Tuple   []jsonLiteral `json:"tuple"`
	Dynamic bool          `json:"dynamic"`
	isTuple bool
}

func (l *jsonLiteral) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if t, ok := raw["tuple"]; ok {
		l.isTuple = true
		return json.Unmarshal(t, &l.Tuple)
	}
	if err := json.Unmarshal(raw["dtype"], &l.Dtype); err != nil {
		return fmt.Errorf("literal dtype: %v", err)
	}
	if err := json.Unmarshal(raw["shape"], &l.Shape); err != nil {
		return fmt.Errorf("literal shape: %v", err)
	}
	if d, ok := raw["dynamic"]; ok {
		_ = json.Unmarshal(d, &l.Dynamic)
	}
	dec := json.NewDecoder(bytes.NewReader(raw["values"]))
	dec.UseNumber()
	return dec.Decode(&l.Values)
}

// literalText writes l in XLA's literal text, the form `kiln run --arg`
// takes.
func literalText(l jsonLiteral) string {
	if l.isTuple {
		parts := make([]string, len(l.Tuple))
		for i, e := range l.Tuple {
			parts[i] = literalText(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	dims := make([]string, len(l.Shape))
	for i, d := range l.Shape {
		dims[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("%s[%s] %s", l.Dtype, strings.Join(dims, ","), valuesText(l.Values, l.Dtype, len(l.Shape)))
}

func valuesText(v any, dtype string, rank int) string {
	if rank == 0 {
		return scalarText(v, dtype)
	}
	list, _ := v.([]any)
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = valuesText(x, dtype, rank-1)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func scalarText(v any, dtype string) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []any: // complex
		if len(x) == 2 {
			return "(" + scalarText(x[0], "f64") + ", " + scalarText(x[1], "f64") + ")"
		}
	case string:
		return x
	case json.Number:
		if dtype == "pred" {
			if x.String() == "0" {
				return "false"
			}
			return "true"
		}
		if _, err := x.Int64(); err == nil {
			return x.String()
		}
		if _, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
			return x.String()
		}
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return floatText(f)
	}
	return fmt.Sprint(v)
}

// floatText writes f as the data's own converter does: integral values
// without a fraction (and -0 as "-0"), others in the shortest form that reads
// back as f.
func floatText(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		if f == 0 && math.Signbit(f) {
			return "-0"
		}
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// flatValues returns the expected literal's elements in row-major order.
func flatValues(l jsonLiteral) []any {
	if len(l.Shape) == 0 {
		return []any{l.Values}
	}
	var out []any
	var walk func(v any, rank int)
	walk = func(v any, rank int) {
		if rank == 0 {
			out = append(out, v)
			return
		}
		list, _ := v.([]any)
		for _, x := range list {
			walk(x, rank-1)
		}
	}
	walk(l.Values, len(l.Shape))
	return out
}
