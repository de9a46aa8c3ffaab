package inputs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// ODLM's own documents teach a typo: its design document and its CSV's description write
// `Kind: OperandConfigs` (a capital K, and the plural), which YAML reads as a field named
// "Kind" and no kind at all. Saying only "apiVersion and kind are required" leaves the user
// comparing a file that looks right with one that is; notObjectError names the key and the
// kind it meant.

// odlmKinds are the kinds of ODLM's API, for the did-you-mean of a misspelt kind.
var odlmKinds = []string{api.KindOperandRegistry, api.KindOperandConfig, api.KindOperandRequest, api.KindOperandBindInfo, api.KindOperatorConfig}

// notObjectError is the error for a document without apiVersion or kind: at the line of a
// key that is one of them misspelt ("Kind", "apiversion", "kinds"), with a did-you-mean for
// the key and, for a kind, for its value when it is near an ODLM kind.
func notObjectError(d *manifest.Object) error {
	const base = "not a Kubernetes object: apiVersion and kind are required"
	line := d.Source.Line
	var hints []string
	for _, want := range []string{"apiVersion", "kind"} {
		if _, ok := d.Map[want]; ok {
			continue
		}
		key, ok := misspeltKey(d.Map, want)
		if !ok {
			continue
		}
		if l := d.Source.LineOf(manifest.Field(key)); l > 0 && len(hints) == 0 {
			line = l
		}
		hint := fmt.Sprintf("%q is not a field (did you mean %q?)", key, want)
		if v, isString := d.Map[key].(string); isString && want == "kind" && !slices.Contains(odlmKinds, v) {
			if near, isNear := suggest.Closest(v, odlmKinds); isNear {
				hint += fmt.Sprintf(", and %s is not a kind of ODLM's API (did you mean %q?)", v, near)
			}
		}
		hints = append(hints, hint)
	}
	if len(hints) == 0 {
		return &manifest.SyntaxError{File: d.Source.File, Line: line, Msg: base}
	}
	return &manifest.SyntaxError{File: d.Source.File, Line: line, Msg: base + ": " + strings.Join(hints, "; ")}
}

// misspeltKey finds the top-level key that is want misspelt (another case, or a near
// typo), the first in byte order when several are.
func misspeltKey(m map[string]any, want string) (string, bool) {
	for _, k := range manifest.SortedKeys(m) {
		if strings.EqualFold(k, want) {
			return k, true
		}
	}
	for _, k := range manifest.SortedKeys(m) {
		if near, ok := suggest.Closest(k, []string{want}); ok && near == want {
			return k, true
		}
	}
	return "", false
}
