package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
)

// A bind info's sources are often objects its operator creates at run time (IBM's IM
// operator writes nine Secrets and ConfigMaps its OperandBindInfo names), so a render before
// the operator ran finds none of them. A warning per binding and request buried the rest of
// the results (33 for one real configuration): one warning per OperandBindInfo says how many
// sources are missing and names the first few. A single missing source keeps its own
// warning, at its field.

// missingSource is a bind-info source the look-up order did not find.
type missingSource struct {
	field   string // spec.bindings.<key>.<secret|configmap|route|service>
	kind    string
	ref     string // namespace/name
	request key
	msg     string // the warning when it is the only one
}

// missingNamed is how many missing sources, and requests, a warning names before "and N
// more".
const missingNamed = 4

// reportMissingSources warns about the sources of bi that were not found.
func (bs *bindInfoStep) reportMissingSources(bi *operandBindInfo) {
	switch len(bi.missing) {
	case 0:
		return
	case 1:
		m := bi.missing[0]
		bs.add(diag.Warnf(bi.obj, m.field, "%s", m.msg))
		return
	}
	var sources, requests []string
	for _, m := range bi.missing {
		s := m.kind + " " + m.ref
		if !slices.Contains(sources, s) {
			sources = append(sources, s)
		}
		if rq := m.request.String(); !slices.Contains(requests, rq) {
			requests = append(requests, rq)
		}
	}
	slices.Sort(sources)
	slices.Sort(requests)
	bs.add(diag.Warnf(bi.obj, "spec.bindings", "%s not found (inputs, snapshot or cluster): %s, so ODLM copies nothing from them for %s %s (bindings %s); render again with --snapshot or --live once they exist",
		countNoun(len(sources), "source"), firstFew(sources), plural(len(requests), "OperandRequest"), firstFew(requests), firstFew(bindingKeys(bi.missing))))
}

// bindingKeys are the distinct binding keys of the missing sources, sorted.
func bindingKeys(missing []missingSource) []string {
	var keys []string
	for _, m := range missing {
		k := strings.TrimPrefix(m.field, "spec.bindings.")
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			k = k[:i]
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// firstFew joins the first missingNamed names, and says how many more there are.
func firstFew(names []string) string {
	if len(names) <= missingNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:missingNamed], ", "), len(names)-missingNamed)
}

func countNoun(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun))
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
