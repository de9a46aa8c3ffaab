package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFieldComesFromTheExample: a field of a CR made from an alm-example is the
// OperandConfig's only where its fragment holds that very path.
func TestFieldComesFromTheExample(t *testing.T) {
	t.Parallel()
	fragment := map[string]any{
		"about":    map[string]any{},
		"weekdays": "1-5",
		"excludeRef": []any{
			map[string]any{"nme": "api"},
		},
	}
	a := schemaAnchor{example: &almExample{bundle: "b", kind: "K", fragment: fragment}}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"spec.weekdays", false},
		{"spec.excludeRef[0].nme", false},
		{"spec.excludeRef[0].kind", true},
		{"spec.excludeRef[1].nme", true},
		{"spec.about.logoAltText", true},
		{"spec.weekdays.x", true},
		{"metadata.labels", true},
		{"spec", false},
	} {
		assert.Equal(t, tc.want, a.fromExample(tc.path), tc.path)
	}
	assert.False(t, schemaAnchor{}.fromExample("spec.x"), "a request-level CR or a resource has no example")
}
