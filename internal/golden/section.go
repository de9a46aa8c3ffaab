package golden

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Section checks the part of a document (a docs page) between the lines
// "<!-- generated: NAME -->" and "<!-- end generated: NAME -->" against content, or
// rewrites it with -update: reference tables generated from the code cannot drift.
func Section(t *testing.T, file, name, content string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	begin, end := "<!-- generated: "+name+" -->\n", "<!-- end generated: "+name+" -->\n"
	doc := string(data)
	i := strings.Index(doc, begin)
	require.GreaterOrEqual(t, i, 0, "%s has no line %q", file, strings.TrimSpace(begin))
	j := strings.Index(doc[i:], end)
	require.GreaterOrEqual(t, j, 0, "%s has no line %q after the first marker", file, strings.TrimSpace(end))
	start, stop := i+len(begin), i+j
	if *Update {
		doc = doc[:start] + content + doc[stop:]
		require.NoError(t, os.WriteFile(file, []byte(doc), 0o644))
		return
	}
	require.Equal(t, content, doc[start:stop], "%s, section %s, is not what the code says: run the test with -update and read the diff", file, name)
}
