package template

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/objpath"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// Source look-ups (docs/semantics.md, Templating: look-ups). Every read is recorded in e.sources. No message built here
// contains a value read from an object.

func (e *evaluator) namespace(ns string) string {
	if ns == "" {
		return e.ctx.Namespace
	}
	return ns
}

// get reads the object of src (recording it) the way ODLM's API client does: an empty or
// unusable name or namespace is a client error, not a missing object. A missing object is a
// Read without Object.
func (e *evaluator) get(src *Source, role string) (Read, error) {
	if err := checkSegment("resource name", src.Name, false); err != nil {
		return Read{}, e.readErr(src, role, err)
	}
	if err := checkSegment("namespace", src.Namespace, true); err != nil {
		return Read{}, e.readErr(src, role, err)
	}
	if e.ctx.Reader == nil {
		return Read{}, e.readErr(src, role, fmt.Errorf("no objects to read from"))
	}
	read, err := e.ctx.Reader.Get(src.APIVersion, src.Kind, src.Namespace, src.Name)
	if err != nil {
		e.sources = append(e.sources, *src)
		return Read{}, e.readErr(src, role, err)
	}
	src.Found = read.Object != nil
	e.sources = append(e.sources, *src)
	return read, nil
}

// note records on the last source read whether what it gave holds a Secret's value without
// the object being a Secret (explanations say so).
func (e *evaluator) note(src *Source, tainted bool) {
	if !tainted || secret.IsKind(src.APIVersion, src.Kind) {
		return
	}
	src.Tainted = true
	if n := len(e.sources); n > 0 {
		e.sources[n-1].Tainted = true
	}
}

// checkSegment mirrors client-go's checks on a name or namespace used in a request path.
func checkSegment(what, s string, emptyOK bool) error {
	switch {
	case s == "" && !emptyOK:
		return fmt.Errorf("%s may not be empty", what)
	case s == "." || s == "..":
		return fmt.Errorf("invalid %s %q: may not be %q", what, s, s)
	case strings.ContainsAny(s, "/%"):
		return fmt.Errorf("invalid %s %q: may not contain '/' or '%%'", what, s)
	}
	return nil
}

func (e *evaluator) readErr(src *Source, role string, err error) *Error {
	ref := *src
	return &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("%s: read %s: %v", role, ref.String(), err), Cause: err}
}

// configMap returns data[key] of the referenced ConfigMap ("" when the object or key is
// missing; binaryData is not consulted), and whether the value derives from a Secret (a
// ConfigMap the render wrote one into).
func (e *evaluator) configMap(r *keyRef) (string, bool, *Source, error) {
	src := &Source{Ref: "configMapKeyRef", APIVersion: "v1", Kind: "ConfigMap", Namespace: e.namespace(r.Namespace), Name: r.Name, Key: r.Key}
	read, err := e.get(src, "configMapKeyRef")
	if err != nil || read.Object == nil {
		return "", false, src, err
	}
	tainted := read.Secret.Overlaps([]manifest.PathStep{{Key: "data"}, {Key: r.Key}})
	e.note(src, tainted)
	data, _ := read.Object["data"].(map[string]any)
	switch v := data[r.Key].(type) {
	case nil:
		return "", false, src, nil
	case string:
		return v, tainted, src, nil
	default:
		ref := *src
		return "", false, src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("configMapKeyRef: %s: data value is %s, not a string", ref.String(), manifest.Describe(v))}
	}
}

// secret returns the decoded data[key] of the referenced Secret, with stringData merged over
// data as an API server stores it ("" when the object or key is missing).
func (e *evaluator) secret(r *keyRef) (string, *Source, error) {
	src := &Source{Ref: "secretKeyRef", APIVersion: "v1", Kind: "Secret", Namespace: e.namespace(r.Namespace), Name: r.Name, Key: r.Key}
	read, err := e.get(src, "secretKeyRef")
	if err != nil || read.Object == nil {
		return "", src, err
	}
	obj := read.Object
	bad := func(what string) error {
		ref := *src
		return &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("secretKeyRef: %s: %s", ref.String(), what)}
	}
	if sd, ok := obj["stringData"].(map[string]any); ok {
		if v, present := sd[r.Key]; present && v != nil {
			s, ok := v.(string)
			if !ok {
				return "", src, bad("stringData value is " + manifest.Describe(v) + ", not a string")
			}
			return s, src, nil
		}
	}
	data, _ := obj["data"].(map[string]any)
	switch v := data[r.Key].(type) {
	case nil:
		return "", src, nil
	case string:
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return "", src, bad("data value is not valid base64")
		}
		return string(b), src, nil
	default:
		return "", src, bad("data value is " + manifest.Describe(v) + ", not a base64 string")
	}
}

// object reads the referenced object and evaluates path on it (objpath: "+"-joined parts,
// parts starting with "." are JSONPath), and says whether the value derives from a Secret:
// the object is one, or the path reads a field the render wrote a Secret's value into.
// apiVersion and kind are required, and apiVersion must be one an API server serves; a
// missing object or an empty path gives "".
func (e *evaluator) object(r *objectRef) (string, bool, *Source, error) {
	src := &Source{Ref: "objectRef", APIVersion: r.APIVersion, Kind: r.Kind, Namespace: e.namespace(r.Namespace), Name: r.Name, Path: r.Path}
	if r.APIVersion == "" || r.Kind == "" {
		ref := *src
		return "", false, src, &Error{Path: e.path, Ref: &ref, Msg: "objectRef: " + missingPart(r)}
	}
	if err := secret.CheckAPIVersion(r.APIVersion); err != nil {
		ref := *src
		return "", false, src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("objectRef: %s: %v", ref.String(), err)}
	}
	read, err := e.get(src, "objectRef")
	if err != nil || read.Object == nil || r.Path == "" {
		return "", false, src, err
	}
	isSecret := secret.IsKind(r.APIVersion, r.Kind)
	tainted := isSecret || read.Secret.ReadBy(r.Path)
	e.note(src, tainted)
	s, err := evaluatePath(r.Path, read.Object)
	if err != nil {
		ref := *src
		if isSecret || !read.Secret.Empty() {
			// JSONPath errors may print the object's values: say only that it failed
			return "", false, src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("objectRef: %s: the path cannot be evaluated on %s", ref.String(), secretHolder(isSecret))}
		}
		return "", false, src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("objectRef: %s: %v", ref.String(), err), Cause: err}
	}
	return s, tainted, src, nil
}

// missingPart names the required part an objectRef lacks.
func missingPart(r *objectRef) string {
	if r.APIVersion == "" {
		return "apiVersion is empty"
	}
	return "kind is empty"
}

func secretHolder(isSecret bool) string {
	if isSecret {
		return "the Secret"
	}
	return "an object that holds a value from a Secret"
}

// evaluatePath guards the third-party JSONPath evaluator: a panic becomes an error.
func evaluatePath(path string, obj map[string]any) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = "", fmt.Errorf("path %s cannot be evaluated", strconv.Quote(path))
		}
	}()
	return objpath.Evaluate(path, obj)
}
