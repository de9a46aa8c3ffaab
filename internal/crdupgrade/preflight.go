package crdupgrade

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/crdify/pkg/validations"
	"sigs.k8s.io/crdify/pkg/validators/version"
)

// crdify's names of the results this file reads differently from the others.
const (
	ruleFieldRemoval = "existingFieldRemoval"
	ruleRequired     = "required"
	ruleUnhandled    = "unhandled"
)

// pair is the two schemas a crdify property comparison compared: one version in the old and
// the new CRD, or two served versions of the new CRD.
type pair struct {
	version  string
	old, new *apiextensionsv1.JSONSchemaProps
}

// preflight runs crdify as operator-controller's preflight does and returns its errors (and
// warnings, as safe findings) as findings.
func preflight(oldCRD, newCRD *apiextensionsv1.CustomResourceDefinition) ([]Finding, error) {
	r, err := newRunner()
	if err != nil {
		return nil, err
	}
	results := r.Run(oldCRD, newCRD)
	findings := crdWide(oldCRD, results.CRDValidation)
	for _, vr := range results.SameVersionValidation {
		p := pair{version: vr.Version, old: schemaOf(oldCRD, vr.Version), new: schemaOf(newCRD, vr.Version)}
		findings = append(findings, propertyFindings(p, vr, true)...)
	}
	for _, vr := range results.ServedVersionValidation {
		from, to, _ := strings.Cut(vr.Version, " -> ")
		p := pair{version: vr.Version, old: schemaOf(newCRD, from), new: schemaOf(newCRD, to)}
		findings = append(findings, propertyFindings(p, vr, false)...)
	}
	return findings, nil
}

// crdWide turns crdify's whole-CRD results into findings: a removed field becomes one finding
// at its version and path; scope and stored versions name their field of the CRD.
func crdWide(oldCRD *apiextensionsv1.CustomResourceDefinition, results []validations.ComparisonResult) []Finding {
	var out []Finding
	for _, res := range results {
		for _, msg := range res.Errors {
			out = append(out, crdWideFinding(oldCRD, res.Name, msg, false))
		}
		for _, msg := range res.Warnings {
			out = append(out, crdWideFinding(oldCRD, res.Name, msg, true))
		}
	}
	return out
}

// crdWideFinding is one message of a whole-CRD result.
func crdWideFinding(oldCRD *apiextensionsv1.CustomResourceDefinition, rule, msg string, safe bool) Finding {
	f := Finding{Rule: rule, Safe: safe, Message: msg}
	switch rule {
	case "scope":
		f.Field = "spec.scope"
	case "storedVersionRemoval":
		f.Field = "status.storedVersions"
		f.Message = msg + ": objects are stored in these versions and the API server refuses a CRD without them"
	case ruleFieldRemoval:
		if ver, key, ok := removedField(msg); ok {
			f.Version = ver
			f.Field = jsonPath(schemaOf(oldCRD, ver), key)
			f.Message = "field removed: the API server drops it from stored objects when it reads them"
		}
	}
	return f
}

// removedField reads crdify's "removed field : <version>.<property>" (a version name is a DNS
// label, without dots).
func removedField(msg string) (ver, key string, ok bool) {
	_, rest, ok := strings.Cut(msg, " : ")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, ".")
}

// propertyFindings turns one version's (or served pair's) property results into findings.
// crdify compares a removed field with an empty schema (its type "changed" to ""); within a
// version, skipRemoved leaves those to the field's existingFieldRemoval finding.
func propertyFindings(p pair, vr version.VersionedPropertyComparisonResult, skipRemoved bool) []Finding {
	var out []Finding
	newFields := fieldsOf(p.new)
	for _, pc := range vr.PropertyComparisons {
		path := jsonPath(p.new, pc.Property)
		if _, known := newFields[path]; !known {
			if skipRemoved {
				continue
			}
			path = jsonPath(p.old, pc.Property)
		}
		for _, res := range pc.ComparisonResults {
			out = append(out, resultFindings(p, path, res)...)
		}
	}
	return out
}

// resultFindings turns one comparison's messages into findings; new required fields become
// one finding each, and unhandled changes name the schema keywords that changed instead of
// crdify's dump of the two schemas.
func resultFindings(p pair, path string, res validations.ComparisonResult) []Finding {
	var out []Finding
	for _, msg := range res.Errors {
		switch res.Name {
		case ruleRequired:
			out = append(out, newRequired(p, path)...)
		case ruleUnhandled:
			out = append(out, Finding{Version: p.version, Field: path, Rule: res.Name, Message: unhandled(p, path)})
		default:
			out = append(out, Finding{Version: p.version, Field: path, Rule: res.Name, Message: msg})
		}
	}
	for _, msg := range res.Warnings {
		out = append(out, Finding{Version: p.version, Field: path, Rule: res.Name, Safe: true, Message: msg})
	}
	return out
}

// newRequired is one finding per field the new schema at path requires and the old did not.
func newRequired(p pair, path string) []Finding {
	var oldReq, newReq []string
	if s := fieldsOf(p.old)[path]; s != nil {
		oldReq = s.Required
	}
	if s := fieldsOf(p.new)[path]; s != nil {
		newReq = s.Required
	}
	var out []Finding
	for _, name := range sortedSet(newReq) {
		if slices.Contains(oldReq, name) {
			continue
		}
		out = append(out, Finding{
			Version: p.version, Field: childPath(path, name), Rule: ruleRequired,
			Message: "new required field: stored objects without it are refused on their next update",
		})
	}
	return out
}

// handledKeywords are the schema keywords crdify's validations compare (and description,
// which OLM ignores); any other change is unhandled.
var handledKeywords = []string{
	"default", "description", "enum", "maxItems", "maxLength", "maxProperties", "maximum",
	"minItems", "minLength", "minProperties", "minimum", "nullable", "pattern", "required", "type",
}

// unhandled names the schema keywords of the field at path that changed and no validation
// covers (its children aside), such as x-kubernetes-validations or format.
func unhandled(p pair, path string) string {
	keys := changedKeywords(fieldsOf(p.old)[path], fieldsOf(p.new)[path])
	keys = slices.DeleteFunc(keys, func(k string) bool { return slices.Contains(handledKeywords, k) })
	if len(keys) == 0 {
		return "changed in a way no validation covers: OLM refuses it"
	}
	return fmt.Sprintf("%s changed, which no validation covers: OLM refuses it", strings.Join(keys, ", "))
}
