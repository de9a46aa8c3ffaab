// Package crdupgrade owns the question OLM v1 (operator-controller) asks before it upgrades a
// CustomResourceDefinition: is replacing the old CRD with the new one safe for the custom
// resources already stored? It runs the checks of operator-controller's CRD upgrade safety
// preflight (sigs.k8s.io/crdify, with the preflight's configuration) on two manifests, and adds
// what a manifest lacks and the preflight gets from the cluster (versions that may hold stored
// objects) and the changes the preflight lets through (reported as safe). ValidateStored
// checks existing objects against the new schema with the API server's own code (internal/crd).
package crdupgrade

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/crdify/pkg/config"
	"sigs.k8s.io/crdify/pkg/runner"
	"sigs.k8s.io/crdify/pkg/validations/property"
)

// Finding is one change between the old and the new CRD and whether OLM v1 lets it through.
type Finding struct {
	// CRD is the CRD's metadata.name.
	CRD string
	// Version is the CRD version the change is in; "" for a change of the whole CRD; "a -> b"
	// for a difference between two served versions of the new CRD that the old did not have.
	Version string
	// Field is the JSON path of the changed field (spec.excludeRef[*].kind), "" for the
	// version's root or the whole CRD.
	Field string
	// Rule names the check: crdify's validation names (scope, existingFieldRemoval, type,
	// enum, required, default, maximum, minLength, pattern, unhandled…), and this package's
	// versionRemoval, versionAdded and fieldAdded.
	Rule string
	// Safe is true for a change OLM v1 lets through.
	Safe bool
	// Message says what changed and, when unsafe, why it matters.
	Message string
}

func (f Finding) String() string {
	verdict := "unsafe"
	if f.Safe {
		verdict = "safe"
	}
	return fmt.Sprintf("%s %s %s %s (%s): %s", f.CRD, f.Version, f.Field, f.Rule, verdict, f.Message)
}

// Unsafe returns the findings OLM v1 refuses an upgrade for.
func Unsafe(findings []Finding) []Finding {
	return slices.DeleteFunc(slices.Clone(findings), func(f Finding) bool { return f.Safe })
}

// Check compares an old and a new CustomResourceDefinition manifest (apiextensions.k8s.io/v1,
// decoded YAML or JSON) and returns every finding, unsafe and safe, in a deterministic order
// (the whole CRD first, then by version, field, rule and message). An error is a manifest
// that is not a v1 CRD, or two CRDs of different names.
func Check(oldManifest, newManifest map[string]any) ([]Finding, error) {
	oldCRD, err := decode(oldManifest)
	if err != nil {
		return nil, fmt.Errorf("old CRD: %w", err)
	}
	newCRD, err := decode(newManifest)
	if err != nil {
		return nil, fmt.Errorf("new CRD %s: %w", oldCRD.Name, err)
	}
	if oldCRD.Name != newCRD.Name {
		return nil, fmt.Errorf("the old CRD is %s and the new %s: not an upgrade of one CRD", oldCRD.Name, newCRD.Name)
	}
	unsafe, err := preflight(oldCRD, newCRD)
	if err != nil {
		return nil, fmt.Errorf("CRD %s: %w", newCRD.Name, err)
	}
	findings := slices.Concat(unsafe, removedVersions(oldCRD, newCRD), addedVersions(oldCRD, newCRD),
		addedFields(oldCRD, newCRD), widenedEnums(oldCRD, newCRD))
	for i := range findings {
		findings[i].CRD = newCRD.Name
	}
	sortFindings(findings)
	return slices.Compact(findings), nil
}

// decode reads a manifest into the v1 CRD type, defaulted as the API server defaults it
// (status.storedVersions, when empty, gets the storage version).
func decode(manifest map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	apiVersion, _ := manifest["apiVersion"].(string)
	kind, _ := manifest["kind"].(string)
	if apiVersion != apiextensionsv1.SchemeGroupVersion.String() || kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("apiVersion %q kind %q is not an apiextensions.k8s.io/v1 CustomResourceDefinition", apiVersion, kind)
	}
	raw, err := json.Marshal(manifest)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	if out.Name == "" {
		return nil, fmt.Errorf("metadata.name is empty")
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(out)
	return out, nil
}

// olmConfig is operator-controller's preflight configuration (v1.11.0): served versions are
// not compared when the CRD converts with a webhook, changes no validation covers are
// refused, description changes are allowed, and so are enum values added.
func olmConfig() *config.Config {
	return &config.Config{
		Conversion:           config.ConversionPolicyIgnore,
		UnhandledEnforcement: config.EnforcementPolicyError,
		Validations: []config.ValidationConfig{
			{Name: "description", Enforcement: config.EnforcementPolicyNone},
			{
				Name:          "enum",
				Enforcement:   config.EnforcementPolicyError,
				Configuration: map[string]any{"additionPolicy": property.AdditionPolicyAllow},
			},
		},
	}
}

// sortFindings orders findings: the whole CRD's first, then by version, field, rule, safety
// and message.
func sortFindings(findings []Finding) {
	slices.SortFunc(findings, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.CRD, b.CRD),
			cmp.Compare(a.Version, b.Version),
			cmp.Compare(a.Field, b.Field),
			cmp.Compare(a.Rule, b.Rule),
			compareBool(a.Safe, b.Safe),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	default:
		return 1
	}
}

// newRunner builds crdify's runner with OLM's configuration.
func newRunner() (*runner.Runner, error) {
	r, err := runner.New(olmConfig(), runner.DefaultRegistry())
	if err != nil {
		return nil, fmt.Errorf("configuring crdify: %w", err)
	}
	return r, nil
}
