package fbc

import (
	"testing"
	"testing/fstest"

	"github.com/joelanford/ignore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIgnoreRules checks .indexignore files as this package applies them (operator-registry's
// library, gitignore rules), including a file below an ignored folder.
func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		rules  string
		path   string // relative to the folder of the .indexignore
		ignore bool
	}{
		{"*.json", "a.json", true},
		{"*.json", "x/y/a.json", true},
		{"*.json", "a.yaml", false},
		{"# comment\n\n*.json", "a.json", true},
		{"/top.yaml", "top.yaml", true},
		{"/top.yaml", "sub/top.yaml", false},
		{"sub/*.yaml", "sub/a.yaml", true},
		{"**/sub/*.yaml", "other/sub/a.yaml", true},
		{"docs/**", "docs/x/y.yaml", true},
		{"build/", "build/a.yaml", true},
		{"*.yaml\n!keep.yaml", "keep.yaml", false},
		{"*.yaml\n!keep.yaml", "drop.yaml", true},
		{"a.yaml   ", "a.yaml", true},
		{"hidden", "hidden/deeper/a.yaml", true},
	}
	for _, tc := range tests {
		t.Run(tc.rules+"|"+tc.path, func(t *testing.T) {
			m, err := ignore.NewMatcher(fstest.MapFS{".indexignore": {Data: []byte(tc.rules)}}, indexIgnoreFile)
			require.NoError(t, err)
			assert.Equal(t, tc.ignore, treeIgnored(m, tc.path))
		})
	}
}

func TestIgnoreDeeperFileWins(t *testing.T) {
	m, err := ignore.NewMatcher(fstest.MapFS{
		".indexignore":     {Data: []byte("*.yaml")},
		"sub/.indexignore": {Data: []byte("!a.yaml")},
	}, indexIgnoreFile)
	require.NoError(t, err)
	assert.False(t, treeIgnored(m, "sub/a.yaml"))
	assert.True(t, treeIgnored(m, "sub/b.yaml"))
	assert.True(t, treeIgnored(m, "a.yaml"))
}
