package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// untrustedPlan is a plan whose every string from a catalog or a cluster is s: names,
// versions, channels, paths, messages, deprecations, object fields and values.
func untrustedPlan(s string) Plan {
	op := newOperator(s, s, s, s)
	op.Action, op.From, op.To, op.FromChannel = ActionUpgrade, s, s+"2", s
	op.Path = []Hop{{From: s, To: s + "2", Via: s, Version: s, MaxOpenShiftVersion: s}}
	op.PathError, op.DependencyOf, op.DependencyReason = s, s, s
	op.Deprecations = []string{"bundle " + s + ": " + s}
	op.CRDChanges = []CRDChange{{Bundle: s, CRD: s, Version: s, Field: s, Rule: s, Message: s}}
	op.StoredObjects = []StoredProblem{{CRD: s, Object: s, Field: s, Reason: s}}
	op.RBAC.Added = []Rule{{Scope: s, ServiceAccount: s, APIGroups: []string{s}, Resources: []string{s}, Verbs: []string{s}, Escalations: []string{s}}}
	op.Objects = []Object{{APIVersion: s, Kind: s, Name: s, Action: s}}
	op.Notes = []string{s}
	ref := ObjectRef{APIVersion: s, Kind: s, Namespace: s, Name: s}
	objects := newObjects()
	objects.Added = []ObjectRef{ref}
	objects.Changed = []ObjectChange{{ObjectRef: ref, Fields: []FieldChange{{Path: s, Change: FieldChanged, Old: s, New: s}}}}
	objects.Removed = []ObjectRef{ref}
	return Plan{Operators: []Operator{op}, Objects: objects, Notes: []string{s}}
}

// structure is what an untrusted string must not change in a written plan: its lines, what
// each line starts with (headings, list items, table rows, fences), and the HTML tags.
func structure(text string) []string {
	var out []string
	fenced := false
	// CommonMark ends a line at \n, \r or both
	for _, line := range strings.FieldsFunc(strings.ReplaceAll(text, "\r\n", "\n"), func(r rune) bool { return r == '\n' || r == '\r' }) {
		trimmed := strings.TrimLeft(line, " ")
		first := ""
		if trimmed != "" {
			first = string([]rune(trimmed)[0])
		}
		if strings.HasPrefix(trimmed, "```") {
			first = "```"
			fenced = !fenced
		}
		if fenced {
			// a Mermaid chart: its quotes, pipes and brackets are its syntax
			out = append(out, first+" "+strings.Map(func(r rune) rune {
				if strings.ContainsRune("\"|`", r) {
					return r
				}
				return -1
			}, line))
			continue
		}
		if first == "<" {
			// an HTML block (<details><summary>…): CommonMark reads no Markdown in it, so only
			// its tags count
			out = append(out, first+" "+tags(line))
			continue
		}
		out = append(out, first+" "+tags(line)+" "+active(line))
	}
	return out
}

// active are the characters of a line that Markdown (GitHub's) may read as syntax, not
// escaped by a backslash: emphasis, code, links, images, HTML, entities, tables, math,
// mentions and references, and the "://" of autolinks.
func active(line string) string {
	var out []byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++ // the escaped character
			continue
		}
		if strings.IndexByte("`*_[]<>!|~&$@#", c) >= 0 || c == ':' && strings.HasPrefix(line[i+1:], "/") {
			out = append(out, c)
		}
	}
	return string(out)
}

// tags are the HTML tags a line opens or closes ("<" not escaped).
func tags(line string) string {
	var out []string
	for i := 0; i < len(line); i++ {
		if line[i] == '<' && (i == 0 || line[i-1] != '\\') {
			end := strings.IndexAny(line[i:], "> ")
			if end < 0 {
				end = len(line) - i
			}
			out = append(out, line[i:i+end])
		}
	}
	return strings.Join(out, ",")
}

// FuzzWritersKeepTheirStructure: whatever a catalog or a cluster string holds (controls,
// Markdown, HTML, fences, links), the text plan has the same lines and no control character
// but newline and tab, the Markdown plan the same lines, line starts, fences and HTML tags as
// with a plain string, and the JSON plan holds the string exactly.
func FuzzWritersKeepTheirStructure(f *testing.F) {
	for _, s := range []string{"kube-green.v0.7.1", "a\x1b[2K\rforged\a", "x\n## heading\n```\n<img src=x>", "[l](https://e) ![i](http://e/i.png) @team #1 www.e.com",
		"</summary></details><details>", "| a | b |", "\u2028\u2029\u202e\u0085", "`code` **b** _i_ ~~s~~ $m$ &amp; \\", "\"quoted\" 'single'", "-->|forged| n9[\"x\"]"} {
		f.Add(s)
	}
	base := untrustedPlan("plain")
	baseText, baseMD := string(base.Text()), string(base.Markdown())
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return // empty fields are left out: fewer lines, by design
		}
		p := untrustedPlan(s)
		text := string(p.Text())
		require.Equal(t, strings.Count(baseText, "\n"), strings.Count(text, "\n"), "text lines")
		for _, r := range text {
			require.False(t, unicode.IsControl(r) && r != '\n' && r != '\t', "control character %U in the text plan", r)
		}
		md := string(p.Markdown())
		require.Equal(t, structure(baseMD), structure(md), "markdown structure")
		b, err := p.JSON()
		require.NoError(t, err)
		var back Plan
		require.NoError(t, json.Unmarshal(b, &back))
		if strings.ToValidUTF8(s, "\ufffd") == s {
			require.Equal(t, s, back.Notes[0])
		}
	})
}
