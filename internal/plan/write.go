package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/textsafe"
)

// JSON is the plan as indented JSON, ending with a newline: {"operators": [...], "objects":
// {...}, "notes": [...]}, each operator with the keys of Operator and objects with those of
// Objects (see their json tags), every list present.
func (p Plan) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Text is the plan for a terminal: its notes, a block per operator, then the objects.
func (p Plan) Text() []byte {
	var b strings.Builder
	for _, n := range p.Notes {
		b.WriteString("note: " + textsafe.Line(n) + "\n")
	}
	if len(p.Notes) > 0 {
		b.WriteString("\n")
	}
	if len(p.Operators) == 0 {
		b.WriteString("The render installs no operator through OLM.\n")
	}
	for i, op := range p.Operators {
		if i > 0 {
			b.WriteString("\n")
		}
		op.writeText(&b)
	}
	b.WriteString("\n" + p.Objects.summary() + "\n")
	for _, l := range p.Objects.lines() {
		b.WriteString(strings.Repeat("  ", l.depth+1) + textsafe.Line(l.text) + "\n")
	}
	fmt.Fprintf(&b, "\n%d operator(s), %d unsafe finding(s), %d blocked\n", len(p.Operators), p.Unsafe(), p.Blocked())
	return []byte(b.String())
}

// headline is "<namespace>/<name> (<package>): <action> <from> -> <to>".
func (op Operator) headline() string {
	s := fmt.Sprintf("%s/%s (%s", op.Namespace, op.Name, op.Package)
	switch {
	case op.FromChannel != "" && op.FromChannel != op.Channel:
		s += ", channel " + op.FromChannel + " -> " + op.Channel
	case op.Channel != "":
		s += ", channel " + op.Channel
	}
	s += "): " + op.Action
	switch op.Action {
	case ActionInstall:
		s += " " + orNone(op.To)
	case ActionRemove:
		s += " " + orNone(op.From)
	case ActionBehind:
		s += " " + op.From + " -> " + orNone(op.To) + " (OLM does not go back)"
	case ActionUnchanged:
		s += " at " + op.From
	default:
		s += " " + op.From + " -> " + orNone(op.To)
	}
	return s
}

// orNone is s, or "(unknown)".
func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// writeText writes one operator's block, each line with its control characters escaped (a
// catalog's or a cluster's string must not act on the terminal: textsafe.Line).
func (op Operator) writeText(b *strings.Builder) {
	b.WriteString(textsafe.Line(op.headline()) + "\n")
	for _, line := range op.detailLines() {
		b.WriteString("  " + textsafe.Line(line) + "\n")
	}
}

// detailLines are the lines under an operator's headline, shared by text and Markdown.
func (op Operator) detailLines() []string {
	var out []string
	if op.DependencyOf != "" {
		out = append(out, "dependency: OLM installs or updates it with "+op.DependencyOf+": "+op.DependencyReason)
	}
	for _, h := range op.Path {
		out = append(out, "hop: "+h.text())
	}
	if op.PathError != "" {
		out = append(out, "no path: "+op.PathError)
	}
	for _, d := range op.Deprecations {
		out = append(out, "deprecated: "+d)
	}
	for _, c := range op.CRDChanges {
		line := fmt.Sprintf("crd %s: %s", verdict(c.Safe), c.text())
		if c.Bundle != op.To {
			line += " (at hop " + c.Bundle + ")"
		}
		out = append(out, line)
	}
	for _, s := range op.StoredObjects {
		out = append(out, fmt.Sprintf("stored object unsafe: %s %s %s: %s", s.CRD, s.Object, s.Field, s.Reason))
	}
	for _, o := range op.Objects {
		out = append(out, fmt.Sprintf("object %s: %s %s (%s)", o.Action, o.Kind, o.Name, o.APIVersion))
	}
	for _, r := range op.RBAC.Added {
		out = append(out, "rbac added: "+r.text())
	}
	for _, r := range op.RBAC.Removed {
		out = append(out, "rbac removed: "+r.text())
	}
	for _, n := range op.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

// verdict is "safe" or "unsafe".
func verdict(safe bool) string {
	if safe {
		return "safe"
	}
	return "unsafe"
}

// text is a hop on one line.
func (h Hop) text() string {
	s := fmt.Sprintf("%s -> %s (%s)", h.From, h.To, h.Via)
	if h.MaxOpenShiftVersion != "" {
		s += ", maxOpenShiftVersion " + h.MaxOpenShiftVersion
		if h.OpenShiftBlocked {
			s += " (below the cluster's OpenShift version: blocked)"
		}
	}
	if h.MinKubeVersion != "" && h.KubeBlocked {
		s += ", minKubeVersion " + h.MinKubeVersion + " (above the cluster's Kubernetes version: blocked)"
	}
	return s
}

// text is a CRD change on one line.
func (c CRDChange) text() string {
	where := strings.TrimSpace(strings.Join([]string{c.CRD, c.Version, c.Field}, " "))
	return fmt.Sprintf("%s %s: %s", where, c.Rule, c.Message)
}

// text is a rule on one line.
func (r Rule) text() string {
	s := fmt.Sprintf("%s %s: verbs [%s] on", r.Scope, r.ServiceAccount, strings.Join(r.Verbs, ","))
	if len(r.NonResourceURLs) > 0 {
		s += " urls [" + strings.Join(r.NonResourceURLs, ",") + "]"
	} else {
		s += fmt.Sprintf(" [%s] in groups [%s]", strings.Join(r.Resources, ","), strings.Join(groupNames(r.APIGroups), ","))
	}
	if len(r.ResourceNames) > 0 {
		s += " named [" + strings.Join(r.ResourceNames, ",") + "]"
	}
	if len(r.Escalations) > 0 {
		s += " ESCALATION: " + strings.Join(r.Escalations, ", ")
	}
	return s
}

// groupNames are API groups as written, the core group as "core".
func groupNames(groups []string) []string {
	out := make([]string, len(groups))
	for i, g := range groups {
		out[i] = g
		if g == "" {
			out[i] = "core"
		}
	}
	return out
}

// Markdown is the plan as a GitHub pull-request comment: its notes (a quote each), a summary
// table, then a collapsible section per operator (with a Mermaid flowchart of its path), then
// the objects.
func (p Plan) Markdown() []byte {
	var b strings.Builder
	b.WriteString("## odlm-render plan\n\n")
	for _, n := range p.Notes {
		b.WriteString("> note: " + textsafe.Markdown(n) + "\n\n")
	}
	if len(p.Operators) == 0 {
		b.WriteString("The render installs no operator through OLM.\n")
	} else {
		p.writeOperatorsMarkdown(&b)
	}
	p.Objects.writeMarkdown(&b)
	return []byte(b.String())
}

// yesNo is "yes" or "no".
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// dependencies are the operators OLM adds or updates as dependencies.
func (p Plan) dependencies() []Operator {
	var out []Operator
	for _, op := range p.Operators {
		if op.DependencyOf != "" {
			out = append(out, op)
		}
	}
	return out
}

// writeOperatorsMarkdown writes the summary table and a collapsible section per operator.
func (p Plan) writeOperatorsMarkdown(b *strings.Builder) {
	b.WriteString("| Operator | Package | Action | From | To | Hops | Unsafe | Blocked |\n|---|---|---|---|---|---|---|---|\n")
	for _, op := range p.Operators {
		name := op.Namespace + "/" + op.Name
		if op.DependencyOf != "" {
			name += " (dependency)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d | %d | %s |\n", cell(name), cell(op.Package), op.Action,
			cell(op.From), cell(op.To), len(op.Path), op.unsafe(), yesNo(op.blocked()))
	}
	for _, op := range p.Operators {
		fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n", textsafe.HTML(op.headline()))
		lines := op.detailLines()
		if len(lines) == 0 {
			b.WriteString("Nothing to report.\n")
		}
		for _, line := range lines {
			b.WriteString("- " + textsafe.Markdown(line) + "\n")
		}
		if chart := op.mermaid(p.dependencies()); chart != "" {
			b.WriteString("\n" + chart)
		}
		b.WriteString("\n</details>\n")
	}
}

// writeMarkdown writes the objects section: its summary, then a nested list.
func (o Objects) writeMarkdown(b *strings.Builder) {
	b.WriteString("\n### Objects\n\n" + textsafe.Markdown(o.summary()) + "\n")
	lines := o.lines()
	if len(lines) > 0 {
		b.WriteString("\n")
	}
	for _, l := range lines {
		b.WriteString(strings.Repeat("  ", l.depth) + "- " + textsafe.Markdown(l.text) + "\n")
	}
}

// cell is s for a table cell: pipes escaped, "-" when empty.
func cell(s string) string {
	if s == "" || s == "/" {
		return "-"
	}
	return textsafe.Markdown(s)
}
