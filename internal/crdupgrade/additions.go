package crdupgrade

import (
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/crdify/pkg/validations"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Rules this package adds to crdify's.
const (
	ruleVersionRemoval = "versionRemoval"
	ruleVersionAdded   = "versionAdded"
	ruleFieldAdded     = "fieldAdded"
	ruleEnum           = "enum"
)

// removedVersions finds the versions of the old CRD the new one drops. OLM's preflight reads
// status.storedVersions of the CRD on the cluster (crdify's storedVersionRemoval, which
// reports the versions listed there; decode defaults it to the storage version, as the API
// server does); but a served version may have been the storage version once and hold
// objects still, so dropping any version is unsafe here.
func removedVersions(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition) []Finding {
	var out []Finding
	for _, v := range oldCRD.Spec.Versions {
		if validations.GetCRDVersionByName(newCRD, v.Name) != nil || slices.Contains(oldCRD.Status.StoredVersions, v.Name) {
			continue
		}
		out = append(out, Finding{Version: v.Name, Rule: ruleVersionRemoval, Message: removedVersionMessage(v)})
	}
	return out
}

func removedVersionMessage(v apiextensionsv1.CustomResourceDefinitionVersion) string {
	const stored = "objects may be stored in it if it ever was the storage version (the cluster's status.storedVersions says; this manifest does not list it), and the API server refuses a CRD that drops a stored version"
	if v.Served {
		return "a served version is removed: clients and manifests that use it break, and " + stored
	}
	return "a version is removed: " + stored
}

// addedVersions finds the versions the new CRD adds: safe.
func addedVersions(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition) []Finding {
	var out []Finding
	for _, v := range newCRD.Spec.Versions {
		if validations.GetCRDVersionByName(oldCRD, v.Name) != nil {
			continue
		}
		out = append(out, Finding{
			Version: v.Name, Rule: ruleVersionAdded, Safe: true,
			Message: fmt.Sprintf("version added (served: %t, storage: %t)", v.Served, v.Storage),
		})
	}
	return out
}

// sameVersions are the schemas of the versions both CRDs have, in the new CRD's order.
func sameVersions(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition) []pair {
	var out []pair
	for _, v := range newCRD.Spec.Versions {
		if validations.GetCRDVersionByName(oldCRD, v.Name) == nil {
			continue
		}
		out = append(out, pair{version: v.Name, old: schemaOf(oldCRD, v.Name), new: schemaOf(newCRD, v.Name)})
	}
	return out
}

// addedFields finds the fields a version's new schema adds under a field the old schema had
// and does not require: safe (a new required field is crdify's required rule). A field under
// a new field is part of it and not reported.
func addedFields(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition) []Finding {
	var out []Finding
	for _, p := range sameVersions(oldCRD, newCRD) {
		oldFields, newFields := fieldsOf(p.old), fieldsOf(p.new)
		for _, path := range manifest.SortedKeys(newFields) {
			f := newFields[path]
			_, parentKnown := oldFields[f.parent]
			if _, known := oldFields[path]; known || !parentKnown || path == "" || requiredIn(newFields[f.parent], path, f.parent) {
				continue
			}
			out = append(out, Finding{Version: p.version, Field: path, Rule: ruleFieldAdded, Safe: true, Message: "optional field added"})
		}
	}
	return out
}

// requiredIn tells whether the object field at parent requires its field at path.
func requiredIn(parent *field, path, parentPath string) bool {
	if parent == nil {
		return false
	}
	for _, name := range parent.Required {
		if childPath(parentPath, name) == path {
			return true
		}
	}
	return false
}

// widenedEnums finds the enums of a version that gain values and lose none: safe (OLM allows
// enum values added; removed ones are crdify's enum rule).
func widenedEnums(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition) []Finding {
	var out []Finding
	for _, p := range sameVersions(oldCRD, newCRD) {
		oldFields, newFields := fieldsOf(p.old), fieldsOf(p.new)
		for _, path := range manifest.SortedKeys(newFields) {
			o := oldFields[path]
			if o == nil || len(o.Enum) == 0 {
				continue
			}
			oldValues, newValues := enumValues(o.Enum), enumValues(newFields[path].Enum)
			added := slices.DeleteFunc(slices.Clone(newValues), func(v string) bool { return slices.Contains(oldValues, v) })
			if len(added) == 0 || slices.ContainsFunc(oldValues, func(v string) bool { return !slices.Contains(newValues, v) }) {
				continue
			}
			out = append(out, Finding{Version: p.version, Field: path, Rule: ruleEnum, Safe: true, Message: fmt.Sprintf("enum values added: %v", added)})
		}
	}
	return out
}

// enumValues are an enum's values as JSON, sorted.
func enumValues(enum []apiextensionsv1.JSON) []string {
	out := make([]string, 0, len(enum))
	for _, v := range enum {
		out = append(out, string(v.Raw))
	}
	return sortedSet(out)
}
