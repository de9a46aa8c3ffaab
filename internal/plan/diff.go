package plan

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// ignoredMetadata are the metadata fields the cluster manages: never a change.
var ignoredMetadata = map[string]bool{
	"uid": true, "resourceVersion": true, "generation": true, "creationTimestamp": true,
	"managedFields": true, "selfLink": true,
}

// ignoredAnnotations are annotations kubectl and controllers write: never a change.
var ignoredAnnotations = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true,
	"deployment.kubernetes.io/revision":                true,
}

// ignored tells whether the field at path (from the object's root) is one the cluster
// manages. A list index has no Key, so it matches none of these names.
func ignored(path []manifest.PathStep) bool {
	key := func(i int) string { return path[i].Key }
	switch {
	case len(path) == 1:
		return key(0) == "status" || key(0) == "apiVersion"
	case len(path) == 2 && key(0) == "metadata":
		return ignoredMetadata[key(1)]
	case len(path) == 3 && key(0) == "metadata" && key(1) == "annotations":
		return ignoredAnnotations[key(2)]
	}
	return false
}

// differ walks a rendered object against the cluster's and collects the changed fields.
type differ struct {
	secret bool
	out    []FieldChange
}

// diffObject lists the fields of the rendered object rendered that the cluster's object live
// lacks or holds otherwise, sorted by path, values unshortened (Objects.finish shortens and
// hides them). A field the render does not set and the cluster has is not a change: apply
// leaves it as it is (it may be defaulted by the API server or set by a controller).
func diffObject(ref ObjectRef, live, rendered map[string]any) []FieldChange {
	d := differ{secret: ref.isSecret()}
	if d.secret {
		rendered = withStringData(rendered)
	}
	d.walk(live, true, rendered, nil)
	slices.SortFunc(d.out, func(a, b FieldChange) int { return strings.Compare(a.Path, b.Path) })
	return d.out
}

// withStringData is a Secret's rendered manifest with stringData merged into data, base64
// encoded, as the API server stores it.
func withStringData(secret map[string]any) map[string]any {
	sd, ok := secret["stringData"].(map[string]any)
	if !ok {
		return secret
	}
	out := make(map[string]any, len(secret))
	for k, v := range secret {
		out[k] = v
	}
	delete(out, "stringData")
	data := map[string]any{}
	if old, ok := secret["data"].(map[string]any); ok {
		for k, v := range old {
			data[k] = v
		}
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	out["data"] = data
	return out
}

// walk compares the rendered value with the cluster's (liveFound false when the cluster
// lacks the field) at path (as the render marks Secret-derived fields).
func (d *differ) walk(live any, liveFound bool, rendered any, path []manifest.PathStep) {
	if ignored(path) {
		return
	}
	switch r := rendered.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !liveFound || !ok {
			d.record(live, liveFound, rendered, path)
			return
		}
		for _, k := range manifest.SortedKeys(r) {
			lv, found := l[k]
			d.walk(lv, found, r[k], append(slices.Clip(path), manifest.PathStep{Key: k}))
		}
	case []any:
		l, ok := live.([]any)
		if !liveFound || !ok || len(l) != len(r) {
			d.record(live, liveFound, rendered, path)
			return
		}
		for i := range r {
			d.walk(l[i], true, r[i], append(slices.Clip(path), manifest.PathStep{Index: i, IsIndex: true}))
		}
	default:
		d.record(live, liveFound, rendered, path)
	}
}

// record adds a field change when the values differ.
func (d *differ) record(live any, liveFound bool, rendered any, path []manifest.PathStep) {
	oldText, newText := jsonText(live), jsonText(rendered)
	if liveFound && oldText == newText {
		return
	}
	change := FieldChange{Path: jsonPath(path), Change: FieldChanged, Old: oldText, New: newText, steps: path}
	switch {
	case !liveFound:
		change.Change, change.Old = FieldAdded, ""
	case rendered == nil:
		change.Change, change.New = FieldRemoved, ""
	}
	if d.secret && len(path) > 0 && (path[0].Key == "data" || path[0].Key == "stringData") {
		change.Old, change.New = hideIfSet(change.Old), hideIfSet(change.New)
	}
	d.out = append(d.out, change)
}

// hideIfSet is hidden, or "" for no value.
func hideIfSet(s string) string {
	if s == "" {
		return ""
	}
	return hidden
}

// jsonPath writes a path as the plan prints it: .key, ["key"] for a key with other
// characters, [i] for a list index.
func jsonPath(path []manifest.PathStep) string {
	out := ""
	for _, s := range path {
		if s.IsIndex {
			out += "[" + strconv.Itoa(s.Index) + "]"
			continue
		}
		out = joinKey(out, s.Key)
	}
	return out
}

// plainKey matches a map key written after a dot in a JSON path.
var plainKey = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// joinKey appends a map key to a JSON path: .key, or ["key"] when it has other characters.
func joinKey(path, key string) string {
	if !plainKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonText is v as compact JSON with sorted keys ("null" for nil).
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "(not JSON)"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// shorten cuts s to maxValue characters, ending with "..." when cut.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxValue {
		return s
	}
	r := []rune(s)
	return string(r[:maxValue-3]) + "..."
}

// minSecretText is the shortest Secret value hidden wherever it appears: shorter ones stand
// for too many other values to be told apart (a Secret's own fields are hidden whatever
// their length).
const minSecretText = 3

// secretTexts are the values of the Secrets a plan meets, as written and base64 encoded.
type secretTexts map[string]bool

// addSecret adds a Secret's data (decoded and not) and stringData values.
func (s secretTexts) addSecret(obj map[string]any) {
	data, _ := obj["data"].(map[string]any)
	for _, v := range data {
		if text, ok := v.(string); ok {
			s.add(text)
			if b, err := base64.StdEncoding.DecodeString(text); err == nil {
				s.add(string(b))
			}
		}
	}
	stringData, _ := obj["stringData"].(map[string]any)
	for _, v := range stringData {
		if text, ok := v.(string); ok {
			s.add(text)
			s.add(base64.StdEncoding.EncodeToString([]byte(text)))
		}
	}
}

// add remembers one text, and its JSON-escaped form, when long enough.
func (s secretTexts) add(text string) {
	if utf8.RuneCountInString(text) < minSecretText {
		return
	}
	s[text] = true
	s[strings.Trim(jsonText(text), `"`)] = true
}

// holds tells whether value contains a Secret's text.
func (s secretTexts) holds(value string) bool {
	for text := range s {
		if strings.Contains(value, text) {
			return true
		}
	}
	return false
}

// reveal is a value as printed: hidden when it holds a Secret's text, else shortened.
func (s secretTexts) reveal(value string) string {
	if value == "" || value == hidden {
		return value
	}
	if s.holds(value) {
		return hidden
	}
	return shorten(value)
}

// finish hides the values of fields the render marks as holding a Secret's value (marks,
// by object key: render.Output.SecretFields), both before and after (the cluster's value
// there came from the same Secret), and, as a last guard, any value that holds a Secret's
// text; it shortens the others.
func (o *Objects) finish(marks map[manifest.Key]secret.Fields) {
	for i := range o.Changed {
		marked := marks[o.Changed[i].key()]
		for j := range o.Changed[i].Fields {
			f := &o.Changed[i].Fields[j]
			if marked.Overlaps(f.steps) {
				f.Old, f.New = hideIfSet(f.Old), hideIfSet(f.New)
				continue
			}
			f.Old, f.New = o.secrets.reveal(f.Old), o.secrets.reveal(f.New)
		}
	}
}
