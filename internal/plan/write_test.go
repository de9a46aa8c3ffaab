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
	assert.Contains(t, md, `| ns/a\|b | \<script\> | install |`)
	assert.Contains(t, md, `- note: x \| y \<b\>`)
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
	assert.True(t, strings.HasPrefix(md, "## odlm-render plan\n\n> note: the cluster serves no OLM kinds\n\n> note: not searched: A \\| B \\<x\\>\n\n"), md)
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

// TestMermaid: the flowchart of a path, with a hostile CSV name (from a catalog or a
// cluster) kept inside its label, and none without a path.
func TestMermaid(t *testing.T) {
	t.Parallel()
	op := newOperator("ns", "p", "p", "c")
	op.Action, op.From, op.To = ActionUpgrade, `p.v1"]-->x[`, "p.v3"
	op.Path = []Hop{{From: op.From, To: "p.v2", Via: "skipRange"}, {From: "p.v2", To: "p.v3", Via: "replaces", KubeBlocked: true}}
	op.Deprecations = []string{"bundle p.v2: old"}
	assert.Equal(t, "```mermaid\nflowchart LR\n"+
		`  n0["p.v1#quot;]--#gt;x["]`+"\n"+
		`  n1["p.v2"]`+"\n"+
		"  n0 -->|skipRange| n1\n"+
		`  n2["p.v3"]`+"\n"+
		"  n1 -->|replaces, blocked| n2\n"+
		"  classDef blocked fill:#fdd,stroke:#c00\n  class n2 blocked\n"+
		"  classDef deprecated fill:#ffd,stroke:#a80,stroke-dasharray:3\n  class n1 deprecated\n```\n", op.mermaid(nil))

	noPath := newOperator("ns", "p", "p", "c")
	noPath.Action, noPath.From, noPath.To, noPath.PathError = ActionUpgrade, "p.v1", "p.v9", "no successor"
	assert.Contains(t, noPath.mermaid(nil), "  n0 -.->|no path| n1\n")

	unchanged := newOperator("ns", "p", "p", "c")
	unchanged.Action, unchanged.From, unchanged.To = ActionUnchanged, "p.v1", "p.v1"
	assert.Empty(t, unchanged.mermaid(nil))
	require.NotContains(t, string(Plan{Operators: []Operator{unchanged}}.Markdown()), "mermaid")
}
