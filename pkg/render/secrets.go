package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// Values derived from Secrets (docs/semantics.md, Templating: look-ups, and docs/semantics.md, Decided deviations: one look-up order). A value a template reads from a Secret stays
// a Secret's value wherever the render copies it: into the object the template fills, into an
// operand CR merged from an OperandConfig spec, into a bind-info copy, into the objects an
// emitted ODLM object makes in the next round. The render marks the fields of every object it
// writes such a value into (secretMarks, by object identity and field path, kept for the
// whole render so that a mark never disappears between passes or rounds); a template that
// reads a marked field, or anything containing one, reads a Secret's value (templateReader).
// Marks err on the side of too many: an object made from a marked ODLM object whose mapping
// is not followed field by field is marked whole.
//
// As a last guard, the texts of every value a template resolved from a Secret are redacted
// from the results (redactSecrets), should a message quote a field that holds one.

// secretMarks are the marked fields of the objects the render wrote, by manifest.Ref.Key.
type secretMarks map[manifest.Key]secret.Fields

// markSecret marks fields of an emitted object.
func (c *renderCache) markSecret(o *manifest.Object, fields secret.Fields) {
	if fields.Empty() || o == nil {
		return
	}
	k := o.Ref().Key()
	f := c.secretMarks[k]
	f.AddAll(fields)
	c.secretMarks[k] = f
}

// markSecretWhole marks every field of an emitted object.
func (c *renderCache) markSecretWhole(o *manifest.Object) {
	var all secret.Fields
	all.Add(nil)
	c.markSecret(o, all)
}

// secretFieldsOf returns the marked fields of the object with o's identity.
func (c *renderCache) secretFieldsOf(o *manifest.Object) secret.Fields {
	if o == nil {
		return secret.Fields{}
	}
	return c.secretMarks[o.Ref().Key()]
}

// secretFieldsOfOutput are the marked fields of the output's objects, by object; nil when
// none is marked.
func (c *renderCache) secretFieldsOfOutput(objs []*manifest.Object) map[*manifest.Object]secret.Fields {
	var out map[*manifest.Object]secret.Fields
	for _, o := range objs {
		if f := c.secretFieldsOf(o); !f.Empty() {
			if out == nil {
				out = map[*manifest.Object]secret.Fields{}
			}
			out[o] = f
		}
	}
	return out
}

// secretFieldsUnder returns the marked fields of o under a field path as diagnostics print it
// (spec.services[0].spec), relative to it.
func (c *renderCache) secretFieldsUnder(o *manifest.Object, field string) secret.Fields {
	f := c.secretFieldsOf(o)
	if f.Empty() {
		return f
	}
	return f.Under(manifest.SplitPath(field))
}

// odlmCarriesSecrets reports whether an OperandRegistry, OperandRequest or OperandBindInfo
// the previous round emitted holds a Secret's value: what the controller makes from them
// (Subscriptions, OperatorGroups, trackers, CatalogSources, bind-info copies) is then marked
// whole, as the render does not follow their fields one by one.
func (r *run) odlmCarriesSecrets() bool {
	if r.lookups.carried == nil {
		return false
	}
	for _, o := range r.lookups.carried.odlm {
		if o.Kind() != api.KindOperandConfig && !r.cache.secretFieldsOf(o).Empty() {
			return true
		}
	}
	return false
}

// minRedacted is the shortest text redactSecrets removes: shorter ones ("1", "ok") stand for
// too many other words in messages to be told apart.
const minRedacted = 3

// noteSecretValue remembers the texts of the value a template resolved from a Secret (at
// steps of value). Every Secret-derived value enters the render through a template, and a
// copy of it elsewhere holds these texts, so redacting them covers the copies.
func (c *renderCache) noteSecretValue(value any, steps []manifest.PathStep) {
	if c.secretTexts == nil {
		return
	}
	var at secret.Fields
	at.Add(steps)
	walkMarked(value, nil, at, func(s string) {
		if utf8.RuneCountInString(s) >= minRedacted {
			c.secretTexts[s] = true
		}
	})
}

// walkMarked calls f with the text of every scalar of v at or under a marked field.
func walkMarked(v any, at []manifest.PathStep, fields secret.Fields, f func(string)) {
	if !fields.Overlaps(at) {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walkMarked(e, append(slices.Clip(at), manifest.PathStep{Key: k}), fields, f)
		}
	case []any:
		for i, e := range x {
			walkMarked(e, append(slices.Clip(at), manifest.PathStep{Index: i, IsIndex: true}), fields, f)
		}
	case string:
		f(x)
	case json.Number:
		f(string(x))
	case nil:
	default:
		f(fmt.Sprint(x))
	}
}

// redactSecrets removes the remembered texts from the results' messages and object names,
// where they stand as whole words (so "spec" in a message survives a secret "spec-x").
func redactSecrets(rs diag.Results, texts map[string]bool) diag.Results {
	if len(texts) == 0 {
		return rs
	}
	sorted := manifest.SortedKeys(texts)
	// longest first: a text that contains another is removed whole
	slices.SortStableFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	out := make(diag.Results, len(rs))
	for i, res := range rs {
		res.Message = redactText(res.Message, sorted)
		if res.Object != nil {
			ref := *res.Object
			ref.Name, ref.Namespace = redactText(ref.Name, sorted), redactText(ref.Namespace, sorted)
			res.Object = &ref
		}
		out[i] = res
	}
	return out
}

const redacted = "<a value from a Secret>"

func redactText(s string, texts []string) string {
	for _, t := range texts {
		if strings.Contains(s, t) {
			s = replaceWords(s, t)
		}
	}
	return s
}

// replaceWords replaces the occurrences of t in s that no letter or digit continues on
// either side.
func replaceWords(s, t string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, t)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(t)
		if wordEdge(s[:i], t, true) && wordEdge(s[end:], t, false) {
			b.WriteString(s[:i] + redacted)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

// wordEdge reports whether t, placed next to side (before it when before is false), ends
// there: t's own edge is not a letter or digit, or side's is not.
func wordEdge(side, t string, before bool) bool {
	var own, next rune
	if before {
		own, _ = utf8.DecodeRuneInString(t)
		next, _ = utf8.DecodeLastRuneInString(side)
	} else {
		own, _ = utf8.DecodeLastRuneInString(t)
		next, _ = utf8.DecodeRuneInString(side)
	}
	return !isWordRune(own) || !isWordRune(next)
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
