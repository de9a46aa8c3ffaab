// Package template owns ODLM's templatingValueFrom: the grammar, its evaluation against
// objects read through a Reader, and the conversion of results into JSON values. It never
// reads files or the network itself and never puts a Secret's value in an error or a Use.
//
// The behaviour follows the controller's code (docs/semantics.md, Templating), not its
// documentation: a template is decoded the way encoding/json decodes it into ODLM's structs
// (unknown keys ignored, keys matched case-insensitively, a value of the wrong JSON type is an
// error), the standard form gives objectRef > secretKeyRef > configMapKeyRef > default, errors
// inside `default` are ignored, and results become strings except "true"/"false" (booleans)
// and JSON arrays.
package template

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// Key is the map key that marks a template.
const Key = "templatingValueFrom"

// Reader reads the objects templates refer to: a Read without Object for a missing object;
// err for a failure to read (unreachable cluster, forbidden), which fails the template.
//
// namespace is the reference's namespace after defaulting to Context.Namespace; a reader of
// cluster-scoped kinds ignores it, as an API client does.
type Reader interface {
	Get(apiVersion, kind, namespace, name string) (Read, error)
}

// Read is what a Reader found. Secret marks the fields of Object that hold a value derived
// from a Secret (the render's own objects, where earlier templates wrote one): a template that
// reads them reads a Secret's value, with everything that entails (Use.Secret).
type Read struct {
	Object map[string]any // nil when there is no such object
	Secret secret.Fields
}

// Context of one evaluation: the instance the template belongs to (ODLM passes the
// OperandConfig: its namespace is the default namespace of every ref).
type Context struct {
	Namespace string
	Reader    Reader
}

// Use records one resolved template.
type Use struct {
	Path    string   // field path inside value, e.g. "spec.size" / "items[2].host"
	Sources []Source // refs read, in order
	// Secret is set when the value derives from a Secret (read from one, or from a field
	// the render wrote a Secret's value into): callers must not print it, and must mark
	// where they write it (Steps)
	Secret bool
	Value  string // the resolved string; "" when Secret
	// Steps is Path as steps, for marking the field
	Steps []manifest.PathStep
	// DefaultError is the error ODLM logs and ignores while evaluating `default` (the
	// default then counts as ""); "" when there was none. It never holds a Secret value.
	DefaultError string
}

// Source is one object a template read.
type Source struct {
	Ref        string // configMapKeyRef, secretKeyRef or objectRef
	APIVersion string // "v1" for configMapKeyRef and secretKeyRef
	Kind       string // ConfigMap, Secret or the objectRef kind
	Namespace  string // after defaulting to Context.Namespace
	Name       string
	Key        string // configMapKeyRef / secretKeyRef key
	Path       string // objectRef path
	Found      bool   // the object exists
	// Tainted is set when the object is not a Secret but what was read of it holds a value
	// derived from one
	Tainted bool
}

// String describes the source without any value, e.g. `ConfigMap ns/name key "k"` or
// `v1 Service ns/name path ".spec.clusterIP"`.
func (s Source) String() string {
	if s.Ref != "objectRef" {
		return s.Kind + " " + s.Namespace + "/" + s.Name + " key " + strconv.Quote(s.Key)
	}
	return s.APIVersion + " " + s.Kind + " " + s.Namespace + "/" + s.Name + " path " + strconv.Quote(s.Path)
}

// Error is a template failure at a path.
type Error struct {
	Path string
	// Ref is the reference the failure is about: the one that failed to read, or, for a
	// required value that resolved to "", the reference that would have supplied it (nil when
	// the template names none).
	Ref *Source
	// Required is set when a required value resolved to "" (ODLM retries until it appears):
	// the value may exist only at runtime.
	Required bool
	Msg      string
	// Sources are the refs read by the failed template before it failed, in order.
	Sources []Source
	// Cause is the underlying error (a Reader's error, for instance), if any.
	Cause error
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Cause }

// Resolve walks value (an OperandConfig service spec map or a resources[].data value) and
// replaces every map holding a `templatingValueFrom` key with its resolved value: the whole
// map is replaced (siblings are lost and not evaluated), "" deletes the parent key,
// "true"/"false" become booleans, a string "[...]" that parses as a JSON array becomes that
// array (numbers json.Number), anything else stays a string. It recurses into maps and into
// list elements that are maps, not into lists of lists and not into a list element that is
// itself a template (such an element is walked as a plain map), as ODLM does. Keys are visited
// in byte order, so the first error is deterministic.
//
// It returns a new tree (value is untouched), one Use per resolved template, or the first
// error (ODLM aborts the whole walk on any error). A value that is not a map is returned as a
// copy without evaluation.
func Resolve(value any, ctx Context) (any, []Use, error) {
	out := merge.DeepCopy(value)
	m, ok := out.(map[string]any)
	if !ok {
		return out, nil, nil
	}
	w := &walker{ctx: ctx}
	if err := w.walkMap(m, nil); err != nil {
		return nil, nil, err
	}
	return out, w.uses, nil
}

type walker struct {
	ctx  Context
	uses []Use
}

func (w *walker) walkMap(m map[string]any, steps []any) error {
	for _, k := range manifest.SortedKeys(m) {
		switch v := m[k].(type) {
		case map[string]any:
			here := appendStep(steps, k)
			tv, isTemplate := v[Key]
			if !isTemplate {
				if err := w.walkMap(v, here); err != nil {
					return err
				}
				continue
			}
			use, err := w.resolveOne(tv, here)
			if err != nil {
				return err
			}
			w.uses = append(w.uses, use.Use)
			if val, keep := ToValue(use.raw); keep {
				m[k] = val
			} else {
				delete(m, k)
			}
		case []any:
			for i, e := range v {
				if em, ok := e.(map[string]any); ok {
					if err := w.walkMap(em, appendStep(steps, k, i)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func appendStep(steps []any, more ...any) []any {
	out := make([]any, 0, len(steps)+len(more))
	return append(append(out, steps...), more...)
}

type resolved struct {
	Use
	raw string // the resolved string, also when Secret
}

func (w *walker) resolveOne(tv any, steps []any) (resolved, error) {
	path := manifest.Field("", steps...)
	ev := &evaluator{ctx: w.ctx, path: path}
	s, secret, err := ev.template(tv)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
			e.Sources = ev.sources
			return resolved{}, e
		}
		return resolved{}, &Error{Path: path, Msg: err.Error(), Sources: ev.sources, Cause: err}
	}
	u := Use{Path: path, Steps: pathSteps(steps), Sources: ev.sources, Secret: secret, DefaultError: ev.defaultErr}
	if !secret {
		u.Value = s
	}
	return resolved{Use: u, raw: s}, nil
}

// pathSteps converts the walker's steps (string keys, int indices).
func pathSteps(steps []any) []manifest.PathStep {
	out := make([]manifest.PathStep, len(steps))
	for i, s := range steps {
		switch s := s.(type) {
		case int:
			out[i] = manifest.PathStep{Index: s, IsIndex: true}
		case string:
			out[i] = manifest.PathStep{Key: s}
		}
	}
	return out
}

// ToValue converts a resolved template string into the JSON value ODLM puts into the object:
// keep=false for "" (the key is deleted); "true"/"false" (exactly) become booleans; a string
// that starts with "[", ends with "]" and decodes as a JSON array whose numbers fit a float64
// becomes that array (numbers as json.Number); anything else stays a string.
func ToValue(s string) (v any, keep bool) {
	switch s {
	case "":
		return nil, false
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if d, err := manifest.DecodeJSONValue([]byte(s)); err == nil {
			if arr, ok := d.([]any); ok && numbersFit(arr) {
				return arr, true
			}
		}
	}
	return s, true
}

// numbersFit reports whether every number in v decodes as a float64 (encoding/json into
// interface{} fails otherwise, and ODLM then keeps the string).
func numbersFit(v any) bool {
	switch v := v.(type) {
	case json.Number:
		_, err := strconv.ParseFloat(string(v), 64)
		return err == nil
	case []any:
		for _, e := range v {
			if !numbersFit(e) {
				return false
			}
		}
	case map[string]any:
		for _, e := range v {
			if !numbersFit(e) {
				return false
			}
		}
	}
	return true
}
