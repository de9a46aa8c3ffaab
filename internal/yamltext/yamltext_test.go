package yamltext_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/yamltext"
)

func TestLineClasses(t *testing.T) {
	tests := []struct {
		line                                   string
		indent                                 int
		blank, comment, content, start, finish bool
		entryAt                                int // -1: not an entry at its indent
	}{
		{line: "", blank: true, entryAt: -1},
		{line: "   ", indent: 3, blank: true, entryAt: -1},
		{line: "  # note", indent: 2, comment: true, entryAt: -1},
		{line: "key: value", content: true, entryAt: -1},
		{line: "  - item", indent: 2, content: true, entryAt: 2},
		{line: "  -", indent: 2, content: true, entryAt: 2},
		{line: "  -x", indent: 2, content: true, entryAt: -1},
		{line: "---", content: true, start: true, entryAt: -1},
		{line: "--- # c", content: true, start: true, entryAt: -1},
		{line: "---x", content: true, entryAt: -1},
		{line: "...", content: true, finish: true, entryAt: -1},
		{line: "%YAML 1.2", entryAt: -1},
		{line: "\xef\xbb\xbf# bom then comment", entryAt: -1},
		{line: "\t# tab then comment", entryAt: -1},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			b := []byte(tt.line)
			assert.Equal(t, tt.indent, yamltext.Indent(b))
			assert.Equal(t, tt.blank, yamltext.IsBlank(b))
			assert.Equal(t, tt.comment, yamltext.IsComment(b))
			assert.Equal(t, tt.content, yamltext.HasContent(b))
			assert.Equal(t, tt.start, yamltext.IsDocMarker(b, "---"))
			assert.Equal(t, tt.finish, yamltext.IsDocMarker(b, "..."))
			if tt.entryAt >= 0 {
				assert.True(t, yamltext.IsListEntry(b, tt.entryAt))
			} else {
				assert.False(t, yamltext.IsListEntry(b, tt.indent) && tt.indent < len(b))
			}
		})
	}
}

func TestLinesAndEndings(t *testing.T) {
	var got []string
	yamltext.Lines([]byte("a: 1\r\n  b: 2\nlast"), func(i int, line []byte) {
		got = append(got, string(yamltext.TrimEOL(line)))
	})
	assert.Equal(t, []string{"a: 1", "  b: 2", "last"}, got)

	line, end := yamltext.Next([]byte("x\ny"), 0)
	assert.Equal(t, "x\n", string(line))
	assert.Equal(t, 2, end)

	assert.True(t, yamltext.OnlyNewlineBreaks([]byte("a\r\nb\n")))
	assert.False(t, yamltext.OnlyNewlineBreaks([]byte("a\rb")))
	assert.False(t, yamltext.OnlyNewlineBreaks([]byte("a\xc2\x85b")))
	assert.False(t, yamltext.OnlyNewlineBreaks([]byte("a\r")))
}

func TestDedentAndKey(t *testing.T) {
	assert.Equal(t, "b: 1\n", string(yamltext.Dedent([]byte("    b: 1\n"), 4)))
	assert.Equal(t, "b: 1\n", string(yamltext.Dedent([]byte("  b: 1\n"), 4)), "never more than the line has")
	assert.True(t, yamltext.IsKey([]byte("items:"), "items"))
	assert.True(t, yamltext.IsKey([]byte("items: # c"), "items"))
	assert.False(t, yamltext.IsKey([]byte("itemsx:"), "items"))
	assert.False(t, yamltext.IsKey([]byte("items:x"), "items"))
}
