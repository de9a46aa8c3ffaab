package fbc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeRecord(t *testing.T) {
	tests := []struct {
		name string
		blob map[string]any
		dst  any
		want any    // the decoded record, when no error
		err  string // the exact error text
	}{
		{
			name: "channel: numbers are strings as written, map[any]any is a mapping",
			blob: map[string]any{"name": "c", "entries": []any{map[any]any{"name": json.Number("1.0"), "skips": []any{"a", json.Number("2")}}}},
			dst:  &channelRecord{},
			want: &channelRecord{Name: "c", Entries: []ChannelEntry{{Name: "1.0", Skips: []string{"a", "2"}}}},
		},
		{
			name: "required field missing",
			blob: map[string]any{"entries": []any{}},
			dst:  &channelRecord{},
			err:  `field "name" is missing or empty`,
		},
		{
			name: "an entry is named by its index until its name is known",
			blob: map[string]any{"name": "c", "entries": []any{map[string]any{"replaces": "x"}}},
			dst:  &channelRecord{},
			err:  `entry 0: field "name" is missing or empty`,
		},
		{
			name: "then by its name",
			blob: map[string]any{"name": "c", "entries": []any{map[string]any{"name": "a", "skips": []any{true}}}},
			dst:  &channelRecord{},
			err:  `entry "a": field "skips" element 0: expected a string, got a boolean`,
		},
		{
			name: "an element that is not a mapping",
			blob: map[string]any{"name": "c", "entries": []any{"a"}},
			dst:  &channelRecord{},
			err:  `field "entries" element 0: expected a mapping, got a string`,
		},
		{
			name: "a list that is a mapping",
			blob: map[string]any{"name": "b", "properties": map[string]any{}},
			dst:  &bundleRecord{},
			err:  `field "properties": expected a list, got a mapping`,
		},
		{
			name: "a required mapping",
			blob: map[string]any{"entries": []any{map[string]any{"message": "m"}}},
			dst:  &deprecationsRecord{},
			err:  `entry 0: field "reference" is missing`,
		},
		{
			name: "elements without a label, booleans",
			blob: map[string]any{"installModes": []any{map[string]any{"type": "OwnNamespace", "supported": "yes"}}},
			dst:  &csvMetadataProperty{},
			err:  `installModes element 0: field "supported": expected a boolean, got a string`,
		},
		{
			name: "annotations take scalars as text",
			blob: map[string]any{"annotations": map[string]any{"a": true, "b": 1, "c": nil}},
			dst:  &csvMetadataProperty{},
			want: &csvMetadataProperty{Annotations: map[string]string{"a": "true", "b": "1", "c": ""}},
		},
		{
			name: "a closed record refuses unknown fields",
			blob: map[string]any{"ownedCRDs": []any{map[string]any{"name": "n", "plural": "p"}}},
			dst:  &contentsRecord[map[string]any]{},
			err:  `ownedCRDs element 0: unknown field "plural" (fields: name, version, kind)`,
		},
		{
			name: "a field that reads itself",
			blob: map[string]any{"name": "b", "almExamples": map[string]any{}},
			dst:  &snapshotBundleRecord{},
			err:  `almExamples: expected a list or a string, got a mapping`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeRecord(tc.blob, tc.dst)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, tc.dst)
		})
	}
}

func TestRecordKeys(t *testing.T) {
	assert.Equal(t, []string{"name", "replaces", "skips", "skipRange"}, recordKeys(ChannelEntry{}))
	assert.Equal(t, []string{"name", "head", "headError", "entries"}, recordKeys(&snapshotChannelRecord{}))
	require.EqualError(t, knownFields(map[string]any{"name": "a", "weight": 1}, ChannelEntry{}),
		`unknown field "weight" (fields: name, replaces, skips, skipRange)`)
}
