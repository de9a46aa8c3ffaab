// Package platform owns what a cluster serves before any operator is installed: Kubernetes'
// built-in kinds, with their versions and scope (generated from client-go's typed clients,
// builtin_table.go), OLM v0's CRDs (operator-framework/api's), OLM v1's (olmv1/, copied from
// operator-framework/operator-controller v1.11.0), and OpenShift's own APIs that users' configurations use (Route and the
// console kinds), as the CustomResourceDefinitions openshift/api publishes for them
// (openshift/, copied from openshift/api@2a3d739). It answers "is this kind served, is it
// namespaced"; internal/crd checks objects against the CRDs.
package platform

import (
	"embed"
	"fmt"
	"sync"

	olmcrds "github.com/operator-framework/api/crds"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/crd"
)

// builtinKind is a kind the API server serves without a CRD.
type builtinKind struct {
	group, version, kind, plural string
	namespaced                   bool
}

// Builtin is a Kubernetes built-in kind: the versions client-go knows for it and its scope.
type Builtin struct {
	Versions   []string
	Namespaced bool
	// Plural is the resource name (configmaps), as RBAC rules name it.
	Plural string
}

var builtins = sync.OnceValue(func() map[string]*Builtin {
	out := map[string]*Builtin{}
	for _, k := range builtinKinds {
		key := k.group + "|" + k.kind
		b, ok := out[key]
		if !ok {
			b = &Builtin{Namespaced: k.namespaced, Plural: k.plural}
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

//go:embed openshift/*.yaml olmv1/*.yaml
var openshiftFiles embed.FS

// platformCRD is a CRD of the platform, parsed on first use (OLM's CSV CRD alone is a
// megabyte of schema: a render that emits no such object never reads it).
type platformCRD struct {
	group, kind string
	load        func() (*crd.Definition, error)
	once        sync.Once
	def         *crd.Definition
	err         error
}

func (p *platformCRD) get() (*crd.Definition, error) {
	p.once.Do(func() { p.def, p.err = p.load() })
	return p.def, p.err
}

func olmCRD(kind string, f func() *apiextensionsv1.CustomResourceDefinition) *platformCRD {
	return &platformCRD{group: "operators.coreos.com", kind: kind, load: func() (*crd.Definition, error) {
		in := f()
		d, err := crd.FromV1(in)
		if err != nil {
			return nil, fmt.Errorf("OLM's %s: %w", in.Name, err)
		}
		return d, nil
	}}
}

func openshiftCRD(group, kind, file string) *platformCRD {
	return &platformCRD{group: group, kind: kind, load: func() (*crd.Definition, error) {
		data, err := openshiftFiles.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		d, err := crd.Parse(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return d, nil
	}}
}

// platformCRDs are OLM v0's CRDs (operator-framework/api's), OpenShift's and OLM v1's, listed
// on first use.
var platformCRDs = sync.OnceValue(func() []*platformCRD {
	return []*platformCRD{
		olmCRD("CatalogSource", olmcrds.CatalogSource),
		olmCRD("ClusterServiceVersion", olmcrds.ClusterServiceVersion),
		olmCRD("InstallPlan", olmcrds.InstallPlan),
		olmCRD("OperatorGroup", olmcrds.OperatorGroup),
		olmCRD("Operator", olmcrds.Operator),
		olmCRD("Subscription", olmcrds.Subscription),
		olmCRD("OperatorCondition", olmcrds.OperatorCondition),
		olmCRD("OLMConfig", olmcrds.OLMConfig),
		openshiftCRD("route.openshift.io", "Route", "openshift/routes.crd.yaml"),
		openshiftCRD("console.openshift.io", "ConsoleCLIDownload", "openshift/consoleclidownloads.crd.yaml"),
		openshiftCRD("console.openshift.io", "ConsoleLink", "openshift/consolelinks.crd.yaml"),
		openshiftCRD("console.openshift.io", "ConsoleNotification", "openshift/consolenotifications.crd.yaml"),
		openshiftCRD("console.openshift.io", "ConsoleQuickStart", "openshift/consolequickstarts.crd.yaml"),
		openshiftCRD("console.openshift.io", "ConsoleYAMLSample", "openshift/consoleyamlsamples.crd.yaml"),
		// OLM v1's (operator-framework/operator-controller v1.11.0, standard CRDs)
		openshiftCRD("olm.operatorframework.io", "ClusterExtension", "olmv1/olm.operatorframework.io_clusterextensions.yaml"),
		openshiftCRD("olm.operatorframework.io", "ClusterCatalog", "olmv1/olm.operatorframework.io_clustercatalogs.yaml"),
	}
})

// LookupCRD returns the platform's CRD of a group and kind (OLM's or OpenShift's), parsing
// it on first use; ok is false when the platform has none.
func LookupCRD(group, kind string) (def *crd.Definition, ok bool, err error) {
	for _, p := range platformCRDs() {
		if p.group == group && p.kind == kind {
			def, err = p.get()
			return def, true, err
		}
	}
	return nil, false, nil
}

// CRDKinds are the kinds of the platform's CRDs, for did-you-means.
func CRDKinds() []string {
	list := platformCRDs()
	out := make([]string, 0, len(list))
	for _, p := range list {
		out = append(out, p.kind)
	}
	return out
}
