package catalog

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		rules  string
		path   string // relative to the folder of the .indexignore
		isDir  bool
		ignore bool
	}{
		{"*.json", "a.json", false, true},
		{"*.json", "x/y/a.json", false, true},
		{"*.json", "a.yaml", false, false},
		{"# comment\n\n*.json", "a.json", false, true},
		{"/top.yaml", "top.yaml", false, true},
		{"/top.yaml", "sub/top.yaml", false, false},
		{"sub/*.yaml", "sub/a.yaml", false, true},
		{"sub/*.yaml", "other/sub/a.yaml", false, false},
		{"**/sub/*.yaml", "other/sub/a.yaml", false, true},
		{"docs/**", "docs/x/y.yaml", false, true},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"*.yaml\n!keep.yaml", "keep.yaml", false, false},
		{"*.yaml\n!keep.yaml", "drop.yaml", false, true},
		{`\#odd.yaml`, "#odd.yaml", false, true},
		{"a.yaml   ", "a.yaml", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.rules+"|"+tc.path, func(t *testing.T) {
			f, err := parseIgnore("/root", []byte(tc.rules))
			require.NoError(t, err)
			got := ignored([]*ignoreFile{f}, filepath.Join("/root", filepath.FromSlash(tc.path)), tc.isDir)
			assert.Equal(t, tc.ignore, got)
		})
	}

	_, err := parseIgnore("/root", []byte("ok\n[bad"))
	assert.ErrorContains(t, err, "line 2")
}

func TestIgnoreDeeperFileWins(t *testing.T) {
	outer, err := parseIgnore("/root", []byte("*.yaml"))
	require.NoError(t, err)
	inner, err := parseIgnore("/root/sub", []byte("!a.yaml"))
	require.NoError(t, err)
	stack := []*ignoreFile{outer, inner}
	assert.False(t, ignored(stack, "/root/sub/a.yaml", false))
	assert.True(t, ignored(stack, "/root/sub/b.yaml", false))
	assert.True(t, ignored(stack, "/root/a.yaml", false))
}
