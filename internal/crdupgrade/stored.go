package crdupgrade

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/odlm-render/odlm-render/internal/crd"
)

// Problem is what the new schema makes of an existing custom resource: a value it refuses, or
// a field it no longer knows (which the API server drops when it reads the object).
type Problem struct {
	// Object is the custom resource, namespace/name (or name); "" for a problem of the CRD.
	Object string
	// Field is the JSON path of the field (spec.weekdays), "" for the object or the CRD.
	Field string
	// Reason is why, in the API server's words, without the value.
	Reason string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s %s: %s", p.Object, p.Field, p.Reason)
}

// reasonPruned is why a field the new schema does not know is a problem.
const reasonPruned = "not in the new schema: the API server drops it when it reads the object, and it is lost on the next write"

// What the API server does with a stored object the new schema refuses, checked on the real
// server (apiserver_test.go): a missing required field, or a value of another type, makes
// every update of the object fail; other values are ratcheted (Kubernetes 1.30 and later): an
// update that leaves them as they are passes.
const (
	consequenceEveryUpdate = ": every update of the object is refused until this field is fixed"
	consequenceRatchet     = ": an update that leaves the field as it is passes (validation ratcheting, Kubernetes 1.30+); one that changes it, or a new object with this value, is refused"
)

// consequence is what a refused value means for the stored object, by the server's reason.
func consequence(reason string) string {
	if reason == "Required value" || strings.Contains(reason, "must be of type") {
		return consequenceEveryUpdate
	}
	return consequenceRatchet
}

// ValidateStored checks existing custom resources against version of the new CRD (a manifest)
// with the API server's own pruning and validation (internal/crd): each object is read as
// that version, as a CRD without conversion webhook serves it. Problems come in the order of
// the objects; an object's fields the schema drops first, then the values it refuses, each
// sorted by field.
func ValidateStored(crdManifest map[string]any, version string, objects []map[string]any) []Problem {
	def, err := crd.Parse(crdManifest)
	if err != nil {
		return []Problem{{Reason: fmt.Sprintf("the new CRD cannot be read: %v", err)}}
	}
	var out []Problem
	for _, obj := range objects {
		out = append(out, validateOne(def, version, obj)...)
	}
	return out
}

// validateOne checks one object as version of def.
func validateOne(def *crd.Definition, version string, obj map[string]any) []Problem {
	name := objectName(obj)
	asVersion := maps.Clone(obj)
	asVersion["apiVersion"] = def.Group + "/" + version
	res, err := def.Check(asVersion)
	if errors.Is(err, crd.ErrVersionNotServed) {
		return []Problem{{Object: name, Reason: fmt.Sprintf("CRD %s does not serve version %s", def.Name, version)}}
	}
	if err != nil {
		return []Problem{{Object: name, Reason: fmt.Sprintf("CRD %s: %v", def.Name, err)}}
	}
	var out []Problem
	for _, path := range res.Pruned {
		out = append(out, Problem{Object: name, Field: path, Reason: reasonPruned})
	}
	for _, p := range res.Problems {
		out = append(out, Problem{Object: name, Field: p.Field, Reason: p.Reason + consequence(p.Reason)})
	}
	return out
}

// objectName is an object's namespace/name, or name.
func objectName(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" {
		return ns + "/" + name
	}
	return name
}
