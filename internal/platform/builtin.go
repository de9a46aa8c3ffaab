// Package platform owns what a cluster serves before any operator is installed: Kubernetes'
// built-in kinds, with their versions and scope (generated from client-go's typed clients,
// builtin_table.go), OLM v0's CRDs (operator-framework/api's), and OpenShift's own APIs that users' configurations use (Route and the
// console kinds), as the CustomResourceDefinitions openshift/api publishes for them
// (openshift/, copied from openshift/api@2a3d739). It answers "is this kind served, is it
// namespaced"; internal/crd checks objects against the CRDs.
package platform

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	olmcrds "github.com/operator-framework/api/crds"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
)

// builtinKind is a kind the API server serves without a CRD.
type builtinKind struct {
	group, version, kind string
	namespaced           bool
}

// Builtin is a Kubernetes built-in kind: the versions client-go knows for it and its scope.
type Builtin struct {
	Versions   []string
	Namespaced bool
}

var builtins = sync.OnceValue(func() map[string]*Builtin {
	out := map[string]*Builtin{}
	for _, k := range builtinKinds {
		key := k.group + "|" + k.kind
		b, ok := out[key]
		if !ok {
			b = &Builtin{Namespaced: k.namespaced}
			out[key] = b
		}
		b.Versions = append(b.Versions, k.version)
	}
	return out
})

// LookupBuiltin returns the built-in kind of a group ("" is the core group) and kind.
func LookupBuiltin(group, kind string) (*Builtin, bool) {
	b, ok := builtins()[group+"|"+kind]
	return b, ok
}

// Serves reports whether the kind has a version.
func (b *Builtin) Serves(version string) bool { return slices.Contains(b.Versions, version) }

//go:embed openshift/*.yaml
var openshiftFiles embed.FS

// OpenShiftCRDs are the CRDs of OpenShift's APIs, parsed once.
var OpenShiftCRDs = sync.OnceValues(func() ([]*crd.Definition, error) {
	names, err := fs.Glob(openshiftFiles, "openshift/*.yaml")
	if err != nil {
		return nil, err
	}
	var out []*crd.Definition
	for _, n := range names {
		data, err := openshiftFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		d, err := crd.Parse(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, d)
	}
	return out, nil
})

// OLMCRDs are OLM v0's CRDs (Subscription, OperatorGroup, CatalogSource,
// ClusterServiceVersion…), as operator-framework/api ships them, parsed once.
var OLMCRDs = sync.OnceValues(func() ([]*crd.Definition, error) {
	var out []*crd.Definition
	for _, c := range []func() *apiextensionsv1.CustomResourceDefinition{
		olmcrds.CatalogSource, olmcrds.ClusterServiceVersion, olmcrds.InstallPlan, olmcrds.OperatorGroup,
		olmcrds.Operator, olmcrds.Subscription, olmcrds.OperatorCondition, olmcrds.OLMConfig,
	} {
		in := c()
		d, err := crd.FromV1(in)
		if err != nil {
			return nil, fmt.Errorf("OLM's %s: %w", in.Name, err)
		}
		out = append(out, d)
	}
	return out, nil
})
