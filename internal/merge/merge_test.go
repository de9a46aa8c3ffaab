package merge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/merge"
)

// decode turns JSON text into a value tree with json.Number numbers; the
// empty string stands for an absent input (Go nil).
func decode(t testing.TB, s string) any {
	t.Helper()
	if s == "" {
		return nil
	}
	v, err := decodeJSON([]byte(s))
	require.NoError(t, err, "test input %q", s)
	return v
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func TestMerge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		def     string
		changed string
		want    string
		wantErr string
	}{
		{name: "both absent", want: `{}`},
		{name: "only default", def: `{"a":1,"b":{"c":"x"}}`, want: `{"a":1,"b":{"c":"x"}}`},
		{name: "only default keeps null keys", def: `{"a":null,"b":1}`, want: `{"a":null,"b":1}`},
		{name: "only changed", changed: `{"a":[1,2]}`, want: `{"a":[1,2]}`},
		{name: "null default is empty", def: `null`, changed: `{"a":1}`, want: `{"a":1}`},
		{name: "empty changed object drops null default keys", def: `{"a":null,"b":1}`, changed: `{}`, want: `{"b":1}`},
		{name: "scalar default fills absent key", def: `{"a":1,"b":"x"}`, changed: `{"c":true}`, want: `{"a":1,"b":"x","c":true}`},
		{name: "scalar changed wins", def: `{"a":1,"b":"x","c":true}`, changed: `{"a":2,"b":"y","c":false}`, want: `{"a":2,"b":"y","c":false}`},
		{name: "false kept", def: `{"enabled":true}`, changed: `{"enabled":false}`, want: `{"enabled":false}`},
		{name: "zero and empty string kept", def: `{"n":5,"s":"x"}`, changed: `{"n":0,"s":""}`, want: `{"n":0,"s":""}`},
		{name: "explicit null restores scalar default", def: `{"a":1}`, changed: `{"a":null}`, want: `{"a":1}`},
		{name: "explicit null restores map default", def: `{"a":{"b":1}}`, changed: `{"a":null}`, want: `{"a":{"b":1}}`},
		{name: "explicit null restores list default", def: `{"a":[1]}`, changed: `{"a":null}`, want: `{"a":[1]}`},
		{name: "null without default stays null", def: `{"a":1}`, changed: `{"b":null}`, want: `{"a":1,"b":null}`},
		{name: "null default never applies", def: `{"a":null}`, changed: `{"a":3}`, want: `{"a":3}`},
		{name: "changed-only keys kept", def: `{"a":{"b":1}}`, changed: `{"a":{"c":2},"d":3}`, want: `{"a":{"b":1,"c":2},"d":3}`},
		{
			name:    "nested maps 4 deep",
			def:     `{"l1":{"l2":{"l3":{"l4":{"x":1,"y":2},"k":"d"}},"m":true}}`,
			changed: `{"l1":{"l2":{"l3":{"l4":{"y":20,"z":30}}}}}`,
			want:    `{"l1":{"l2":{"l3":{"l4":{"x":1,"y":20,"z":30},"k":"d"}},"m":true}}`,
		},
		{name: "map default vs scalar changed", def: `{"a":{"b":1}}`, changed: `{"a":"s"}`, want: `{"a":"s"}`},
		{name: "map default vs list changed", def: `{"a":{"b":1}}`, changed: `{"a":[{"b":2}]}`, want: `{"a":[{"b":2}]}`},
		{name: "list default vs map changed", def: `{"a":[{"b":1}]}`, changed: `{"a":{"c":2}}`, want: `{"a":{"c":2}}`},
		{name: "list default vs scalar changed", def: `{"a":[1]}`, changed: `{"a":false}`, want: `{"a":false}`},
		{name: "scalar default vs map changed", def: `{"a":1}`, changed: `{"a":{"b":1}}`, want: `{"a":{"b":1}}`},
		{
			name:    "list of maps merged positionally",
			def:     `{"spec":{"containers":[{"name":"a","cpu":"1"},{"name":"b","mem":"2Gi"}]}}`,
			changed: `{"spec":{"containers":[{"name":"x"},{"cpu":"3"}]}}`,
			want:    `{"spec":{"containers":[{"name":"x","cpu":"1"},{"name":"b","mem":"2Gi","cpu":"3"}]}}`,
		},
		{
			name:    "default list longer: extra dropped",
			def:     `{"l":[{"a":1},{"b":2},{"c":3}]}`,
			changed: `{"l":[{"z":0}]}`,
			want:    `{"l":[{"a":1,"z":0}]}`,
		},
		{name: "changed list longer: kept", def: `{"l":[{"a":1}]}`, changed: `{"l":[{},"s",{"b":2}]}`, want: `{"l":[{"a":1},"s",{"b":2}]}`},
		{name: "empty changed list stays empty", def: `{"l":[{"a":1}]}`, changed: `{"l":[]}`, want: `{"l":[]}`},
		{name: "non-map default elements ignored", def: `{"l":[1,"x",[1],{"a":1}]}`, changed: `{"l":[9,{"m":1},"y",{}]}`, want: `{"l":[9,{"m":1},"y",{"a":1}]}`},
		{name: "empty default map element never checked", def: `{"l":[{}]}`, changed: `{"l":["s"]}`, want: `{"l":["s"]}`},
		{name: "nested list inside list element", def: `{"l":[{"in":[{"a":1}]}]}`, changed: `{"l":[{"in":[{"b":2}]}]}`, want: `{"l":[{"in":[{"a":1,"b":2}]}]}`},
		{name: "null inside list element restores default", def: `{"l":[{"a":1}]}`, changed: `{"l":[{"a":null}]}`, want: `{"l":[{"a":1}]}`},
		{name: "equal numbers differently written", def: `{"a":1,"l":[{"x":1.0}]}`, changed: `{"a":1.0,"l":[{"x":1e0}]}`, want: `{"a":1.0,"l":[{"x":1e0}]}`},
		{
			name:    "null list element",
			def:     `{"spec":{"containers":[{"a":1},{"b":2}]}}`,
			changed: `{"spec":{"containers":[{},null]}}`,
			wantErr: "spec.containers[1]: cannot merge a mapping from the alm-example into null",
		},
		{
			name:    "string list element",
			def:     `{"spec":{"containers":[{"a":1},{"b":2}]}}`,
			changed: `{"spec":{"containers":[{},"web"]}}`,
			wantErr: "spec.containers[1]: cannot merge a mapping from the alm-example into a string",
		},
		{
			name:    "list list element",
			def:     `{"l":[{"a":1}]}`,
			changed: `{"l":[[1]]}`,
			wantErr: "l[0]: cannot merge a mapping from the alm-example into a list",
		},
		{
			name:    "error deep in list of lists of maps",
			def:     `{"a":{"l":[{"m":[{"x":1}]}]}}`,
			changed: `{"a":{"l":[{"m":[7]}]}}`,
			wantErr: "a.l[0].m[0]: cannot merge a mapping from the alm-example into a number",
		},
		{name: "default not an object", def: `[1]`, changed: `{}`, wantErr: "the default value must be a mapping, not a list"},
		{name: "changed not an object", def: `{}`, changed: `"x"`, wantErr: "the changed value must be a mapping, not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			def, changed := decode(t, tc.def), decode(t, tc.changed)
			defBefore, changedBefore := merge.DeepCopy(def), merge.DeepCopy(changed)

			got, err := merge.Merge(def, changed)

			assert.Equal(t, defBefore, def, "default mutated")
			assert.Equal(t, changedBefore, changed, "changed mutated")
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				var me *merge.Error
				require.ErrorAs(t, err, &me)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, decode(t, tc.want), got)
		})
	}
}

func TestMergeResultSharesNothing(t *testing.T) {
	t.Parallel()
	def := decode(t, `{"a":{"b":[{"c":1}]},"l":[{"x":1}]}`)
	changed := decode(t, `{"l":[{"y":2}]}`)
	got, err := merge.Merge(def, changed)
	require.NoError(t, err)

	got.(map[string]any)["a"].(map[string]any)["b"].([]any)[0].(map[string]any)["c"] = "mutated"
	got.(map[string]any)["l"].([]any)[0].(map[string]any)["y"] = "mutated"

	assert.Equal(t, decode(t, `{"a":{"b":[{"c":1}]},"l":[{"x":1}]}`), def)
	assert.Equal(t, decode(t, `{"l":[{"y":2}]}`), changed)
}

func TestMergeNilMapsAreNull(t *testing.T) {
	t.Parallel()
	got, err := merge.Merge(map[string]any(nil), map[string]any(nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{}, got)

	got, err = merge.Merge(decode(t, `{"a":{"b":1},"l":[2]}`), map[string]any{"a": map[string]any(nil), "l": []any(nil)})
	require.NoError(t, err)
	assert.Equal(t, decode(t, `{"a":{"b":1},"l":[2]}`), got)
}

func TestMergeNullChanged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		def     string
		wantErr string
	}{
		{name: "absent default"},
		{name: "null default", def: `null`},
		{name: "empty default", def: `{}`},
		{name: "only null default values", def: `{"a":null,"b":null}`},
		{name: "non-empty default", def: `{"a":null,"b":{"c":1},"z":1}`, wantErr: "b: cannot merge a default value into a null object"},
		{name: "default not an object", def: `3`, wantErr: "the default value must be a mapping, not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			def := decode(t, tc.def)
			before := merge.DeepCopy(def)
			got, err := merge.MergeNullChanged(def)
			assert.Equal(t, before, def)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, map[string]any{}, got)
		})
	}
}

func TestErrorWithoutPath(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "boom", (&merge.Error{Msg: "boom"}).Error())
	assert.Equal(t, "a.b[0]: boom", (&merge.Error{Path: "a.b[0]", Msg: "boom"}).Error())
}
