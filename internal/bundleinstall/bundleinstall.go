// Package bundleinstall owns what an operator's registry+v1 bundle becomes without OLM: the
// objects OLM's install strategy creates from its ClusterServiceVersion, object for object
// as operator-controller's registry+v1 renderer (v1.11.0) writes them. Render checks the
// bundle and the install mode, then runs a list of small generators, each a function from
// the bundle to objects: ServiceAccounts, namespaced and cluster RBAC, CRDs, the bundle's
// other manifests, Deployments (with a Subscription's config applied as OLM applies it),
// webhook configurations, the Services in front of webhook Deployments, and the serving
// certificates of the chosen provider.
package bundleinstall

import (
	"errors"
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// CertProvider is what provides the serving certificates of a bundle's webhooks.
type CertProvider string

// Certificate providers (--webhook-certs).
const (
	// CertManager writes a self-signed cert-manager Issuer and a Certificate per webhook
	// Deployment, and cert-manager's CA injection annotation on what calls the webhook.
	CertManager CertProvider = "cert-manager"
	// ServiceCA uses OpenShift's service CA: the serving-cert annotation on the Service and
	// the inject-cabundle annotation on what calls the webhook.
	ServiceCA CertProvider = "service-ca"
	// CertNone writes nothing: the user supplies the serving Secret the Deployment mounts.
	CertNone CertProvider = "none"
)

// Bundle is what Render reads of a bundle.
type Bundle struct {
	Name         string // the bundle's name, for messages
	InstallModes []v1alpha1.InstallMode
	Contents     *catalog.Contents
}

// Options say where and how the bundle is installed.
type Options struct {
	// InstallNamespace is the namespace of the operator's Deployments and ServiceAccounts
	// (the Subscription's).
	InstallNamespace string
	// TargetNamespaces are the namespaces the operator watches, as its OperatorGroup gives
	// them: [""] for all namespaces.
	TargetNamespaces []string
	// Config is the Subscription's spec.config (OLM's SubscriptionConfig) or nil.
	Config map[string]any
	// Certs provides the webhooks' serving certificates; "" when none was chosen (a bundle
	// with webhooks is then an error naming the choices).
	Certs CertProvider
}

// Role says what an object is to the install, for ordering: prerequisites are created first,
// then the workloads (Deployments and the webhook configurations that call them).
type Role int

// Roles of the objects Render writes.
const (
	Prerequisite Role = iota
	Workload
)

// Object is one object Render writes and its role.
type Object struct {
	*manifest.Object
	Role Role
}

// Result is what Render writes: the objects in generator order, and warnings (what a user
// must supply, what OLM ignores).
type Result struct {
	Objects  []Object
	Warnings []string
}

// install is one Render call: the bundle, the options, and what the generators share.
type install struct {
	bundle   Bundle
	contents *catalog.Contents
	strategy *catalog.Install
	opts     Options
	warnings []string
}

// generator is one step of Render: a function from the bundle to objects.
type generator func(in *install) ([]Object, error)

// generators are Render's steps, in operator-controller's order.
var generators = []generator{
	serviceAccounts,
	namespacedPermissions,
	clusterPermissions,
	customResourceDefinitions,
	otherManifests,
	deployments,
	validatingWebhooks,
	mutatingWebhooks,
	webhookServices,
	certificates,
}

// Render checks the bundle (what a plain install cannot express, what OLM refuses) and the
// install mode the targets ask for, then writes the bundle's objects. An error joins every
// problem found.
func Render(b Bundle, opts Options) (Result, error) {
	if b.Contents == nil || b.Contents.Install == nil {
		return Result{}, fmt.Errorf("the contents of bundle %s are not known (its install strategy is needed to install it without OLM)", b.Name)
	}
	in := &install{bundle: b, contents: b.Contents, strategy: b.Contents.Install, opts: opts}
	if err := errors.Join(in.check()...); err != nil {
		return Result{}, err
	}
	var out Result
	for _, g := range generators {
		objs, err := g(in)
		if err != nil {
			return Result{}, err
		}
		out.Objects = append(out.Objects, objs...)
	}
	out.Warnings = in.warnings
	return out, nil
}

// allNamespaces reports targets meaning every namespace.
func allNamespaces(targets []string) bool {
	return len(targets) == 1 && targets[0] == ""
}

// maxNameLength is the length operator-controller keeps generated names within (a DNS label).
const maxNameLength = 63

// objectName is base-suffix, base cut so that the whole stays within maxNameLength.
func objectName(base, suffix string) string {
	if len(base)+len(suffix) > maxNameLength {
		base = base[:max(0, maxNameLength-len(suffix)-1)]
	}
	return base + "-" + suffix
}

// newObject is an object with its apiVersion, kind, name and (when namespace is not "") namespace.
func newObject(apiVersion, kind, namespace, name string) *manifest.Object {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return manifest.New(map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta})
}

// prerequisites and workloads give objects their role.
func prerequisites(objs ...*manifest.Object) []Object {
	out := make([]Object, len(objs))
	for i, o := range objs {
		out[i] = Object{Object: o, Role: Prerequisite}
	}
	return out
}

func workloads(objs ...*manifest.Object) []Object {
	out := make([]Object, len(objs))
	for i, o := range objs {
		out[i] = Object{Object: o, Role: Workload}
	}
	return out
}
