package template

import (
	"encoding/base64"
	"fmt"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/objpath"
)

// Source look-ups (spec 7.5). Every read is recorded in e.sources. No message built here
// contains a value read from an object.

func (e *evaluator) namespace(ns string) string {
	if ns == "" {
		return e.ctx.Namespace
	}
	return ns
}

// get reads the object of src (recording it) the way ODLM's API client does: an empty or
// unusable name or namespace is a client error, not a missing object.
func (e *evaluator) get(src *Source, role string) (map[string]any, error) {
	if err := checkSegment("resource name", src.Name, false); err != nil {
		return nil, e.readErr(src, role, err)
	}
	if err := checkSegment("namespace", src.Namespace, true); err != nil {
		return nil, e.readErr(src, role, err)
	}
	if e.ctx.Reader == nil {
		return nil, e.readErr(src, role, fmt.Errorf("no objects to read from"))
	}
	obj, found, err := e.ctx.Reader.Get(src.APIVersion, src.Kind, src.Namespace, src.Name)
	if err != nil {
		e.sources = append(e.sources, *src)
		return nil, e.readErr(src, role, err)
	}
	src.Found = found && obj != nil
	e.sources = append(e.sources, *src)
	if !src.Found {
		return nil, nil
	}
	return obj, nil
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
// missing; binaryData is not consulted).
func (e *evaluator) configMap(r *keyRef) (string, *Source, error) {
	src := &Source{Ref: "configMapKeyRef", APIVersion: "v1", Kind: "ConfigMap", Namespace: e.namespace(r.Namespace), Name: r.Name, Key: r.Key}
	obj, err := e.get(src, "configMapKeyRef")
	if err != nil || obj == nil {
		return "", src, err
	}
	data, _ := obj["data"].(map[string]any)
	switch v := data[r.Key].(type) {
	case nil:
		return "", src, nil
	case string:
		return v, src, nil
	default:
		ref := *src
		return "", src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("configMapKeyRef: %s: data value is %s, not a string", ref.String(), manifest.Describe(v))}
	}
}

// secret returns the decoded data[key] of the referenced Secret, with stringData merged over
// data as an API server stores it ("" when the object or key is missing).
func (e *evaluator) secret(r *keyRef) (string, *Source, error) {
	src := &Source{Ref: "secretKeyRef", APIVersion: "v1", Kind: "Secret", Namespace: e.namespace(r.Namespace), Name: r.Name, Key: r.Key}
	obj, err := e.get(src, "secretKeyRef")
	if err != nil || obj == nil {
		return "", src, err
	}
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
// parts starting with "." are JSONPath). apiVersion and kind are required; a missing object
// or an empty path gives "".
func (e *evaluator) object(r *objectRef) (string, *Source, error) {
	src := &Source{Ref: "objectRef", APIVersion: r.APIVersion, Kind: r.Kind, Namespace: e.namespace(r.Namespace), Name: r.Name, Path: r.Path}
	if r.APIVersion == "" {
		ref := *src
		return "", src, &Error{Path: e.path, Ref: &ref, Msg: "objectRef: apiVersion is empty"}
	}
	if r.Kind == "" {
		ref := *src
		return "", src, &Error{Path: e.path, Ref: &ref, Msg: "objectRef: kind is empty"}
	}
	obj, err := e.get(src, "objectRef")
	if err != nil || obj == nil || r.Path == "" {
		return "", src, err
	}
	s, err := evaluatePath(r.Path, obj)
	if err != nil {
		ref := *src
		if isSecretKind(r.APIVersion, r.Kind) {
			// JSONPath errors may print the object's values: say only that it failed.
			return "", src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("objectRef: %s: the path cannot be evaluated on the Secret", ref.String())}
		}
		return "", src, &Error{Path: e.path, Ref: &ref, Msg: fmt.Sprintf("objectRef: %s: %v", ref.String(), err), Cause: err}
	}
	return s, src, nil
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

func isSecretKind(apiVersion, kind string) bool {
	return apiVersion == "v1" && kind == "Secret"
}
