package merge_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/odlm-render/odlm-render/internal/merge"
)

// FuzzMerge merges two JSON documents. Merge must never panic or mutate
// its inputs, and must agree with refMerge, an independent model of
// ODLM's behaviour over float64-decoded values that panics where ODLM
// panics.
func FuzzMerge(f *testing.F) {
	for _, s := range [][2]string{
		{``, ``},
		{`{"a":1}`, ``},
		{``, `{"a":1}`},
		{`{"a":{"b":[{"c":1},{"d":2}]}}`, `{"a":{"b":[{"e":3}]}}`},
		{`{"a":[{"c":1}]}`, `{"a":[null]}`},
		{`{"a":[{"c":1}]}`, `{"a":["x"]}`},
		{`{"a":1}`, `null`},
		{`{"a":null}`, `null`},
		{`null`, `{"a":null}`},
		{`{"a":1.0}`, `{"a":1}`},
		{`[1]`, `{}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, data1, data2 []byte) {
		def, ok1 := fuzzInput(data1)
		changed, ok2 := fuzzInput(data2)
		if !ok1 || !ok2 {
			return
		}
		nullChanged := len(bytes.TrimSpace(data2)) > 0 && changed == nil
		defBefore, changedBefore := merge.DeepCopy(def), merge.DeepCopy(changed)

		var got any
		var err error
		if nullChanged {
			got, err = merge.MergeNullChanged(def)
		} else {
			got, err = merge.Merge(def, changed)
		}

		if !reflect.DeepEqual(defBefore, def) || !reflect.DeepEqual(changedBefore, changed) {
			t.Fatalf("inputs mutated")
		}
		if err == nil {
			if _, ok := got.(map[string]any); !ok {
				t.Fatalf("result %T is not a map", got)
			}
		}
		if !isObjectOrNull(def) || !(nullChanged || isObjectOrNull(changed)) {
			if err == nil {
				t.Fatalf("non-object input accepted")
			}
			return
		}
		want, panicked := refRun(data1, data2)
		if panicked != (err != nil) {
			t.Fatalf("reference panicked=%v, Merge err=%v", panicked, err)
		}
		if err == nil && !sameAsFloat(t, got, want) {
			t.Fatalf("Merge=%v reference=%v", got, want)
		}
	})
}

func fuzzInput(data []byte) (any, bool) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, true
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, false
	}
	// the reference decodes into float64 and would reject numbers out of range
	var probe any
	if json.Unmarshal(data, &probe) != nil {
		return nil, false
	}
	return v, true
}

func isObjectOrNull(v any) bool {
	_, ok := v.(map[string]any)
	return ok || v == nil
}

func sameAsFloat(t *testing.T, got any, want map[string]any) bool {
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal result: %v", err)
	}
	var g map[string]any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("unmarshal result: %v", err)
	}
	if want == nil {
		want = map[string]any{}
	}
	if g == nil {
		g = map[string]any{}
	}
	return reflect.DeepEqual(g, want)
}

// refRun decodes both documents the way ODLM does and runs refMerge,
// reporting a panic instead of propagating it.
func refRun(defData, changedData []byte) (out map[string]any, panicked bool) {
	defer func() {
		if recover() != nil {
			out, panicked = nil, true
		}
	}()
	return refMerge(defData, changedData), false
}

func refMerge(defData, changedData []byte) map[string]any {
	d, c := map[string]any{}, map[string]any{}
	defEmpty, changedEmpty := len(bytes.TrimSpace(defData)) == 0, len(bytes.TrimSpace(changedData)) == 0
	if !defEmpty {
		_ = json.Unmarshal(defData, &d)
	}
	if !changedEmpty {
		_ = json.Unmarshal(changedData, &c)
	}
	if changedEmpty {
		return d
	}
	for k, v := range d {
		refKey(k, v, c[k], c)
	}
	return c
}

// refKey deliberately uses unchecked type assertions and writes into
// possibly-nil maps, so that it panics on the same inputs as ODLM.
func refKey(k string, d, c any, parent map[string]any) {
	if reflect.DeepEqual(d, c) {
		return
	}
	switch dv := d.(type) {
	case map[string]any:
		if c == nil {
			parent[k] = dv
			return
		}
		if cm, ok := c.(map[string]any); ok {
			for kk, vv := range dv {
				refKey(kk, vv, cm[kk], cm)
			}
		}
	case []any:
		if c == nil {
			parent[k] = dv
			return
		}
		if cl, ok := c.([]any); ok {
			for i, e := range dv {
				em, ok := e.(map[string]any)
				if !ok || i >= len(cl) {
					continue
				}
				for kk, vv := range em {
					refKey(kk, vv, cl[i].(map[string]any)[kk], cl[i].(map[string]any))
				}
			}
		}
	default:
		if c == nil {
			parent[k] = d
		}
	}
}
