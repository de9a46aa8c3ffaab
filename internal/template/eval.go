package template

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// The grammar (docs/semantics.md, Templating: resolution). Templates are decoded with encoding/json, as ODLM decodes them into
// its structs: unknown keys are ignored, keys match case-insensitively, null leaves a field
// unset and a value of the wrong JSON type is an error.

type templateRef struct {
	Boolean         *bool        `json:"boolean"`
	Required        bool         `json:"required"`
	Default         *defaultRef  `json:"default"`
	ConfigMapKeyRef *keyRef      `json:"configMapKeyRef"`
	SecretKeyRef    *keyRef      `json:"secretKeyRef"`
	ObjectRef       *objectRef   `json:"objectRef"`
	Conditional     *conditional `json:"conditional"`
}

type defaultRef struct {
	Required        bool       `json:"required"`
	DefaultValue    string     `json:"defaultValue"`
	ConfigMapKeyRef *keyRef    `json:"configMapKeyRef"`
	SecretKeyRef    *keyRef    `json:"secretKeyRef"`
	ObjectRef       *objectRef `json:"objectRef"`
}

type keyRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

type objectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
	Path       string `json:"path"`
}

type conditional struct {
	Expression *expression  `json:"expression"`
	Then       *valueSource `json:"then"`
	Else       *valueSource `json:"else"`
}

type expression struct {
	Equal       *comparison   `json:"equal"`
	NotEqual    *comparison   `json:"notEqual"`
	GreaterThan *comparison   `json:"greaterThan"`
	LessThan    *comparison   `json:"lessThan"`
	And         []*expression `json:"and"`
	Or          []*expression `json:"or"`
	Not         *expression   `json:"not"`
	Value       *valueSource  `json:"value"`
}

type comparison struct {
	Left  *valueSource `json:"left"`
	Right *valueSource `json:"right"`
}

type valueSource struct {
	Literal         string         `json:"literal"`
	Boolean         *bool          `json:"boolean"`
	Array           []valueSource  `json:"array"`
	Map             map[string]any `json:"map"`
	Required        bool           `json:"required"`
	ConfigMapKeyRef *keyRef        `json:"configMapKeyRef"`
	SecretKeyRef    *keyRef        `json:"secretKeyRef"`
	ObjectRef       *objectRef     `json:"objectRef"`
}

// decodeInto round-trips v through JSON into out, as ODLM's json.Marshal + json.Unmarshal
// does (numbers in `map` values stay json.Number).
func decodeInto(v any, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(out)
}

// evaluator evaluates one template and records what it read.
type evaluator struct {
	ctx        Context
	path       string
	sources    []Source
	defaultErr string
	exprDepth  int
}

// Limits that keep hostile templates from exhausting the stack or memory (ODLM has none;
// real configurations stay far below them). Documents themselves nest at most 1000 levels
// (internal/manifest).
const (
	// MaxExpressionDepth bounds the nesting of and/or/not in a conditional expression.
	MaxExpressionDepth = 64
	// MaxArrayItems bounds the items of an `array` value source.
	MaxArrayItems = 10000
)

func (e *evaluator) fail(format string, args ...any) *Error {
	return &Error{Path: e.path, Msg: fmt.Sprintf(format, args...)}
}

// template resolves the value of a templatingValueFrom key (docs/semantics.md, Templating: resolution). secret reports that
// the result came from a Secret.
func (e *evaluator) template(raw any) (string, bool, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return "", false, nil
	}
	var t templateRef
	if err := decodeInto(m, &t); err != nil {
		return "", false, &Error{Path: e.path, Msg: "invalid " + Key + ": " + err.Error(), Cause: err}
	}
	if t.Boolean != nil {
		return boolString(*t.Boolean), false, nil
	}
	if t.Conditional != nil {
		if t.Conditional.Expression == nil {
			return "", false, e.fail("unsupported conditional type: conditional has no expression")
		}
		ok, err := e.expr(t.Conditional.Expression)
		if err != nil {
			return "", false, err
		}
		if ok {
			return e.branch(t.Conditional.Then)
		}
		return e.branch(t.Conditional.Else)
	}
	return e.standard(&t)
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// standard is the non-conditional form: default, then configMapKeyRef, secretKeyRef and
// objectRef, each overriding when non-empty.
func (e *evaluator) standard(t *templateRef) (string, bool, error) {
	v, secret, err := e.defaultValue(t.Default)
	if err != nil {
		// ODLM logs this error and carries on with "".
		e.defaultErr = err.Error()
		v, secret = "", false
	}
	var want *Source // the highest-precedence primary ref, named by a required error
	if t.ConfigMapKeyRef != nil {
		s, tainted, src, err := e.configMap(t.ConfigMapKeyRef)
		if err != nil {
			return "", false, err
		}
		want = src
		if s != "" {
			v, secret = s, tainted
		}
	}
	if t.SecretKeyRef != nil {
		s, src, err := e.secret(t.SecretKeyRef)
		if err != nil {
			return "", false, err
		}
		want = src
		if s != "" {
			v, secret = s, true
		}
	}
	if t.ObjectRef != nil {
		s, tainted, src, err := e.object(t.ObjectRef)
		if err != nil {
			return "", false, err
		}
		want = src
		if s != "" {
			v, secret = s, tainted
		}
	}
	if v == "" && t.Required {
		msg := "required value is empty (ODLM retries until it resolves)"
		if want != nil {
			msg = fmt.Sprintf("required value from %s is empty (%s; ODLM retries until it resolves)", want, state(want))
		}
		return "", false, &Error{Path: e.path, Ref: want, Required: true, Msg: msg}
	}
	return v, secret, nil
}

// defaultValue evaluates `default`: defaultValue, then configMapKeyRef, secretKeyRef and
// objectRef, each overriding when non-empty.
func (e *evaluator) defaultValue(d *defaultRef) (string, bool, error) {
	if d == nil {
		return "", false, nil
	}
	v, secret := d.DefaultValue, false
	if d.ConfigMapKeyRef != nil {
		s, tainted, _, err := e.configMap(d.ConfigMapKeyRef)
		if err != nil {
			return "", false, err
		}
		if s != "" {
			v, secret = s, tainted
		}
	}
	if d.SecretKeyRef != nil {
		s, _, err := e.secret(d.SecretKeyRef)
		if err != nil {
			return "", false, err
		}
		if s != "" {
			v, secret = s, true
		}
	}
	if d.ObjectRef != nil {
		s, tainted, _, err := e.object(d.ObjectRef)
		if err != nil {
			return "", false, err
		}
		if s != "" {
			v, secret = s, tainted
		}
	}
	if v == "" && d.Required {
		return "", false, e.fail("default: required value is empty")
	}
	return v, secret, nil
}

// branch evaluates a then/else branch (GetValueFromBranch): boolean, non-empty literal,
// non-empty array, else the value source.
func (e *evaluator) branch(b *valueSource) (string, bool, error) {
	if b == nil {
		return "", false, nil
	}
	switch {
	case b.Boolean != nil:
		return boolString(*b.Boolean), false, nil
	case b.Literal != "":
		return b.Literal, false, nil
	case len(b.Array) > 0:
		return e.array(b.Array)
	}
	return e.source(b)
}

// array evaluates the items of a branch's array into a JSON array text.
func (e *evaluator) array(items []valueSource) (string, bool, error) {
	if len(items) > MaxArrayItems {
		return "", false, e.fail("array has %d items; at most %d are allowed", len(items), MaxArrayItems)
	}
	out := make([]any, 0, len(items))
	anySecret := false
	for i := range items {
		it := &items[i]
		switch {
		case it.Boolean != nil:
			out = append(out, *it.Boolean)
		case it.Literal != "":
			out = append(out, it.Literal)
		case it.Map != nil:
			obj := make(map[string]any, len(it.Map))
			for _, k := range manifest.SortedKeys(it.Map) {
				sub, ok := it.Map[k].(map[string]any)
				if !ok {
					obj[k] = it.Map[k]
					continue
				}
				var vs valueSource
				if err := decodeInto(sub, &vs); err != nil {
					return "", false, &Error{Path: e.path, Msg: fmt.Sprintf("invalid array map value %q: %v", k, err), Cause: err}
				}
				s, secret, err := e.source(&vs)
				if err != nil {
					return "", false, err
				}
				anySecret = anySecret || secret
				obj[k] = s
			}
			out = append(out, obj)
		default:
			s, secret, err := e.source(it)
			if err != nil {
				return "", false, err
			}
			anySecret = anySecret || secret
			out = append(out, s)
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return "", false, &Error{Path: e.path, Msg: "array: " + err.Error(), Cause: err}
	}
	return string(data), anySecret, nil
}

// source evaluates a value source (GetValueFromSource): boolean, non-empty literal, then the
// first present of objectRef, secretKeyRef, configMapKeyRef (no fallback to the next).
func (e *evaluator) source(s *valueSource) (string, bool, error) {
	if s == nil {
		return "", false, nil
	}
	if s.Boolean != nil {
		return boolString(*s.Boolean), false, nil
	}
	if s.Literal != "" {
		return s.Literal, false, nil
	}
	var (
		v      string
		secret bool
		src    *Source
		err    error
	)
	switch {
	case s.ObjectRef != nil:
		v, secret, src, err = e.object(s.ObjectRef)
	case s.SecretKeyRef != nil:
		v, src, err = e.secret(s.SecretKeyRef)
		secret = true
	case s.ConfigMapKeyRef != nil:
		v, secret, src, err = e.configMap(s.ConfigMapKeyRef)
	}
	if err != nil {
		return "", false, err
	}
	if v == "" && s.Required {
		msg := "required value source is empty"
		if src != nil {
			msg = fmt.Sprintf("required value from %s is empty (%s)", src, state(src))
		}
		return "", false, &Error{Path: e.path, Ref: src, Required: true, Msg: msg}
	}
	return v, secret && v != "", nil
}

// state says why a source gave no value.
func state(s *Source) string {
	switch {
	case !s.Found:
		return s.Kind + " not found"
	case secret.Group(s.APIVersion) == "" && (s.Kind == "ConfigMap" || s.Kind == "Secret"):
		return "key missing or empty"
	case s.Path == "":
		return "path is empty"
	default:
		return "field missing or empty"
	}
}
