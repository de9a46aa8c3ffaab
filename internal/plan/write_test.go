package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		action, from, to, want string
	}{
		{ActionInstall, "", "p.v2", "ns/p (p, channel c): install p.v2"},
		{ActionInstall, "", "", "ns/p (p, channel c): install (unknown)"},
		{ActionUpgrade, "p.v1", "p.v2", "ns/p (p, channel c): upgrade p.v1 -> p.v2"},
		{ActionBehind, "p.v2", "p.v1", "ns/p (p, channel c): behind p.v2 -> p.v1 (OLM does not go back)"},
		{ActionUnchanged, "p.v2", "p.v2", "ns/p (p, channel c): unchanged at p.v2"},
		{ActionRemove, "p.v1", "", "ns/p (p, channel c): remove p.v1"},
	} {
		t.Run(tc.action+" "+tc.want, func(t *testing.T) {
			t.Parallel()
			op := newOperator("ns", "p", "p", "c")
			op.Action, op.From, op.To = tc.action, tc.from, tc.to
			assert.Equal(t, tc.want, op.headline())
		})
	}
}

// TestMarkdownEscapes: text from the catalog or the cluster cannot break the table or open
// HTML.
func TestMarkdownEscapes(t *testing.T) {
	t.Parallel()
	op := newOperator("ns", "a|b", "<script>", "c")
	op.Action = ActionInstall
	op.Notes = append(op.Notes, "x | y <b>")
	md := string(Plan{Operators: []Operator{op}}.Markdown())
	assert.Contains(t, md, `| ns/a\|b | &lt;script&gt; | install |`)
	assert.Contains(t, md, `- note: x \| y &lt;b&gt;`)
	assert.NotContains(t, md, "<script>")
	assert.NotContains(t, md, "<b>")
}

func TestUnsafeCounts(t *testing.T) {
	t.Parallel()
	op := newOperator("ns", "p", "p", "c")
	op.CRDChanges = []CRDChange{{Safe: true}, {Safe: false}}
	op.StoredObjects = []StoredProblem{{Object: "ns/x"}}
	op.RBAC.Added = []Rule{{Escalations: []string{}}, {Escalations: []string{"secrets"}}}
	assert.Equal(t, 3, Plan{Operators: []Operator{op, newOperator("ns", "q", "q", "c")}}.Unsafe())
}
