package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestPlanNotes: plan-level notes come first in text and Markdown (escaped there), and in
// JSON as "notes", [] when there are none.
func TestPlanNotes(t *testing.T) {
	t.Parallel()
	p := Plan{Operators: []Operator{}, Objects: newObjects(), Notes: []string{"the cluster serves no OLM kinds", "not searched: A | B <x>"}}
	text := string(p.Text())
	assert.True(t, strings.HasPrefix(text, "note: the cluster serves no OLM kinds\nnote: not searched: A | B <x>\n\nThe render installs no operator"), text)
	md := string(p.Markdown())
	assert.True(t, strings.HasPrefix(md, "## odlm-render plan\n\n> note: the cluster serves no OLM kinds\n\n> note: not searched: A \\| B &lt;x&gt;\n\n"), md)
	j, err := p.JSON()
	require.NoError(t, err)
	assert.Contains(t, string(j), `"notes": [
    "the cluster serves no OLM kinds",`)

	p.Notes = []string{}
	j, err = p.JSON()
	require.NoError(t, err)
	assert.Contains(t, string(j), `"notes": []`)
	assert.NotContains(t, string(p.Text()), "note:")
	assert.NotContains(t, string(p.Markdown()), "note:")
}
