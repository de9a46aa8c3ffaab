package plan

import (
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/textsafe"
)

// mermaid is a Mermaid flowchart of op's path, for the pull-request comment (GitHub and
// GitLab draw ```mermaid blocks): each CSV a node, each hop an edge labelled with its edge
// (replaces, skips, skipRange), the bundles OLM will not install on the cluster (blocked) and
// the deprecated ones marked, and, when OLM does not reach the target, a dashed edge to it.
// The dependencies OLM installs or updates for op's target (deps: those whose
// DependencyReason names it) hang off the target, each with its own From and To. "" when
// there is nothing to draw.
func (op Operator) mermaid(deps []Operator) string {
	var required []Operator
	for _, d := range deps {
		if op.To != "" && strings.Contains(d.DependencyReason, op.To+" requires ") {
			required = append(required, d)
		}
	}
	if len(op.Path) == 0 && len(required) == 0 && (op.PathError == "" || op.From == "" || op.To == "") {
		return ""
	}
	var b strings.Builder
	b.WriteString("```mermaid\nflowchart LR\n")
	ids := map[string]string{}
	node := func(csv string) string {
		if id, ok := ids[csv]; ok {
			return id
		}
		id := fmt.Sprintf("n%d", len(ids))
		ids[csv] = id
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id, mermaidText(csv))
		return id
	}
	deprecated := op.deprecatedBundles()
	var blocked, marked []string
	if op.From != "" {
		node(op.From)
	}
	for _, h := range op.Path {
		from, to := node(h.From), node(h.To)
		label := h.Via
		if h.OpenShiftBlocked || h.KubeBlocked {
			label += ", blocked"
			blocked = append(blocked, to)
		}
		fmt.Fprintf(&b, "  %s -->|%s| %s\n", from, mermaidText(label), to)
		if deprecated[h.To] {
			marked = append(marked, to)
		}
	}
	if _, reached := ids[op.To]; !reached && op.PathError != "" && op.To != "" {
		last := op.From
		if len(op.Path) > 0 {
			last = op.Path[len(op.Path)-1].To
		}
		from, to := ids[last], node(op.To)
		fmt.Fprintf(&b, "  %s -.->|no path| %s\n", from, to)
		blocked = append(blocked, to)
	}
	var dependencies []string
	for _, d := range required {
		target := node(op.To)
		id := fmt.Sprintf("d%d", len(dependencies))
		label := d.Package + ": " + d.To
		if d.From != "" && d.From != d.To {
			label = d.Package + ": " + d.From + " to " + d.To
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n  %s -.->|requires| %s\n", id, mermaidText(label), target, id)
		dependencies = append(dependencies, id)
	}
	if len(blocked) > 0 {
		b.WriteString("  classDef blocked fill:#fdd,stroke:#c00\n")
		fmt.Fprintf(&b, "  class %s blocked\n", strings.Join(blocked, ","))
	}
	if len(marked) > 0 {
		b.WriteString("  classDef deprecated fill:#ffd,stroke:#a80,stroke-dasharray:3\n")
		fmt.Fprintf(&b, "  class %s deprecated\n", strings.Join(marked, ","))
	}
	if len(dependencies) > 0 {
		b.WriteString("  classDef dependency fill:#def,stroke:#36c\n")
		fmt.Fprintf(&b, "  class %s dependency\n", strings.Join(dependencies, ","))
	}
	b.WriteString("```\n")
	return b.String()
}

// deprecatedBundles are the bundles op's deprecations name ("bundle NAME: message").
func (op Operator) deprecatedBundles() map[string]bool {
	out := map[string]bool{}
	for _, d := range op.Deprecations {
		if rest, ok := strings.CutPrefix(d, "bundle "); ok {
			name, _, _ := strings.Cut(rest, ":")
			out[name] = true
		}
	}
	return out
}

// mermaidText is s inside a quoted Mermaid label or an edge label: the characters Mermaid
// reads as syntax written as its entity codes.
func mermaidText(s string) string {
	// a backtick would close the fence the chart is in; controls are escaped first
	return strings.NewReplacer(`"`, "#quot;", "|", "#124;", "<", "#lt;", ">", "#gt;", "`", "#96;", "\\", "#92;").Replace(textsafe.Line(s))
}
