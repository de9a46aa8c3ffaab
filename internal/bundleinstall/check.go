package bundleinstall

import (
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// check lists what stops the bundle from being installed as the options ask: the install
// mode, what a plain install cannot express, and the checks operator-controller makes of a
// registry+v1 bundle before rendering it.
func (in *install) check() []error {
	errs := in.checkNamespaces()
	errs = append(errs, in.checkInstallMode()...)
	errs = append(errs, in.checkExpressible()...)
	errs = append(errs, in.checkDeployments()...)
	errs = append(errs, in.checkWebhooks()...)
	errs = append(errs, in.checkConversionWebhooks()...)
	return errs
}

// checkNamespaces refuses to install into a namespace the platform owns (kube-system,
// kube-public, kube-node-lease, which the API server creates and fills): the bundle's
// namespaced objects would be written there, beside and over the cluster's own, with nothing
// (no OLM) to refuse them. Other "kube-" names are allowed: Kubernetes asks users to avoid
// them but real operators use them (kube-green). Watching such a namespace is allowed: that
// writes RBAC, not workloads.
func (in *install) checkNamespaces() []error {
	if platformNamespaces[in.opts.InstallNamespace] {
		return []error{fmt.Errorf("bundle %s: namespace %s is the platform's (the API server creates it and runs its own objects there): installing without OLM would write the bundle's objects into it, so it is refused; install into a namespace of its own", in.bundle.Name, in.opts.InstallNamespace)}
	}
	return nil
}

// platformNamespaces are the namespaces the API server creates for itself.
var platformNamespaces = map[string]bool{"kube-system": true, "kube-public": true, "kube-node-lease": true}

// supported is the set of install modes the bundle supports.
func (in *install) supported(t v1alpha1.InstallModeType) bool {
	return slices.ContainsFunc(in.bundle.InstallModes, func(m v1alpha1.InstallMode) bool { return m.Type == t && m.Supported })
}

func (in *install) supportedModes() []string {
	var out []string
	for _, m := range in.bundle.InstallModes {
		if m.Supported {
			out = append(out, string(m.Type))
		}
	}
	slices.Sort(out)
	return out
}

// modeOf is the install mode targets ask for, as OLM names them.
func modeOf(installNamespace string, targets []string) v1alpha1.InstallModeType {
	switch {
	case allNamespaces(targets):
		return v1alpha1.InstallModeTypeAllNamespaces
	case len(targets) == 1 && targets[0] == installNamespace:
		return v1alpha1.InstallModeTypeOwnNamespace
	case len(targets) == 1:
		return v1alpha1.InstallModeTypeSingleNamespace
	default:
		return v1alpha1.InstallModeTypeMultiNamespace
	}
}

// checkInstallMode checks the targets against the CSV's installModes as OLM does: one mode
// per shape of the targets, and a MultiNamespace install that includes its own namespace
// needs OwnNamespace too.
func (in *install) checkInstallMode() []error {
	targets := in.opts.TargetNamespaces
	if len(targets) == 0 {
		return []error{fmt.Errorf("no target namespaces: the OperatorGroup of namespace %s selects namespaces by label, which only OLM resolves; give the registry entry targetNamespaces", in.opts.InstallNamespace)}
	}
	if slices.Contains(targets, "") && !allNamespaces(targets) {
		return []error{fmt.Errorf("target namespaces %q mix all namespaces (\"\") with named ones", targets)}
	}
	mode := modeOf(in.opts.InstallNamespace, targets)
	ok := in.supported(mode)
	if mode == v1alpha1.InstallModeTypeMultiNamespace && slices.Contains(targets, in.opts.InstallNamespace) && !in.supported(v1alpha1.InstallModeTypeOwnNamespace) {
		ok = false
	}
	if ok {
		return nil
	}
	return []error{fmt.Errorf("bundle %s does not support the %s install mode that target namespaces %q in namespace %s ask for (it supports %s)",
		in.bundle.Name, mode, targets, in.opts.InstallNamespace, orNone(in.supportedModes()))}
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// checkExpressible reports what only OLM can do for a bundle: serve an aggregated API
// (apiservicedefinitions), and give the operator its OperatorCondition (an operator whose
// RBAC asks for operatorconditions reads the one OLM creates for its CSV).
func (in *install) checkExpressible() []error {
	var errs []error
	if len(in.strategy.APIServices) > 0 {
		errs = append(errs, fmt.Errorf("bundle %s serves APIServices %s (apiservicedefinitions): OLM runs them behind the aggregation layer with certificates it rotates, which a plain install cannot do",
			in.bundle.Name, strings.Join(in.strategy.APIServices, ", ")))
	}
	for _, perms := range [][]v1alpha1.StrategyDeploymentPermissions{in.contents.Permissions, in.contents.ClusterPermissions} {
		for _, p := range perms {
			for _, rule := range p.Rules {
				if slices.Contains(rule.APIGroups, "operators.coreos.com") && slices.ContainsFunc(rule.Resources, func(r string) bool { return r == "operatorconditions" || r == "operatorconditions/status" }) {
					errs = append(errs, fmt.Errorf("bundle %s: service account %s reads OperatorConditions: the operator expects the OperatorCondition OLM creates for its CSV, which exists only under OLM",
						in.bundle.Name, saNameOrDefault(p.ServiceAccountName)))
					return errs
				}
			}
		}
	}
	return errs
}

// checkDeployments: deployment names unique and DNS-1123 subdomains.
func (in *install) checkDeployments() []error {
	var errs []error
	seen := map[string]bool{}
	for _, d := range in.strategy.Deployments {
		if seen[d.Name] {
			errs = append(errs, fmt.Errorf("bundle %s: the install strategy has deployment %q twice", in.bundle.Name, d.Name))
		}
		seen[d.Name] = true
		if msgs := validation.IsDNS1123Subdomain(d.Name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("bundle %s: deployment name %q: %s", in.bundle.Name, d.Name, strings.Join(msgs, "; ")))
		}
	}
	return errs
}

// forbidden webhook rules (operator-controller's): an operator's webhook may not intercept
// OLM v1's API, every group, or the webhook configurations themselves.
var (
	forbiddenRuleGroups                = []string{"olm.operatorframework.io", "*"}
	forbiddenAdmissionRegistrationKind = []string{"*", "mutatingwebhookconfiguration", "mutatingwebhookconfigurations", "validatingwebhookconfiguration", "validatingwebhookconfigurations"}
)

// checkWebhooks: each webhook names a deployment of the strategy, has a unique DNS-1123 name
// per type, and its rules intercept nothing forbidden; a bundle with webhooks needs a
// certificate provider.
func (in *install) checkWebhooks() []error {
	var errs []error
	deployments := map[string]bool{}
	for _, d := range in.strategy.Deployments {
		deployments[d.Name] = true
	}
	names := map[string]bool{}
	for _, wh := range in.strategy.Webhooks {
		name := webhookName(wh)
		if !deployments[wh.DeploymentName] {
			errs = append(errs, fmt.Errorf("bundle %s: webhook %s (%s) names deployment %q, which the install strategy does not have", in.bundle.Name, name, wh.Type, wh.DeploymentName))
		}
		if names[string(wh.Type)+"/"+name] {
			errs = append(errs, fmt.Errorf("bundle %s: webhook %s (%s) is defined twice", in.bundle.Name, name, wh.Type))
		}
		names[string(wh.Type)+"/"+name] = true
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("bundle %s: webhook name %q: %s", in.bundle.Name, name, strings.Join(msgs, "; ")))
		}
		if wh.Type != v1alpha1.ConversionWebhook {
			errs = append(errs, in.checkRules(wh)...)
		}
	}
	if len(in.strategy.Webhooks) > 0 && in.opts.Certs == "" {
		errs = append(errs, fmt.Errorf("bundle %s has webhooks: choose who provides their serving certificates with --webhook-certs (functionConfig webhookCerts): %s, %s or %s",
			in.bundle.Name, CertManager, ServiceCA, CertNone))
	}
	return errs
}

func (in *install) checkRules(wh v1alpha1.WebhookDescription) []error {
	var errs []error
	for _, rule := range wh.Rules {
		for _, g := range rule.APIGroups {
			if slices.Contains(forbiddenRuleGroups, g) {
				errs = append(errs, fmt.Errorf("bundle %s: webhook %s may not intercept API group %q", in.bundle.Name, webhookName(wh), g))
			}
			if g != "admissionregistration.k8s.io" {
				continue
			}
			for _, r := range rule.Resources {
				if slices.Contains(forbiddenAdmissionRegistrationKind, strings.ToLower(r)) {
					errs = append(errs, fmt.Errorf("bundle %s: webhook %s may not intercept resource %q of API group %q", in.bundle.Name, webhookName(wh), r, g))
				}
			}
		}
	}
	return errs
}

// checkConversionWebhooks: conversion webhooks convert CRDs the bundle owns, each CRD by
// one webhook, and only bundles installed for all namespaces alone may have them (a CRD is
// cluster-wide, so its conversion cannot serve one namespace's operator).
func (in *install) checkConversionWebhooks() []error {
	var errs []error
	owned := map[string]bool{}
	for _, r := range in.contents.OwnedCRDs {
		owned[r.Name] = true
	}
	convertedBy := map[string]string{}
	for _, wh := range in.strategy.Webhooks {
		if wh.Type != v1alpha1.ConversionWebhook {
			continue
		}
		if modes := in.supportedModes(); len(modes) != 1 || modes[0] != string(v1alpha1.InstallModeTypeAllNamespaces) {
			errs = append(errs, fmt.Errorf("bundle %s: conversion webhook %s needs a bundle that supports only the AllNamespaces install mode (it supports %s)", in.bundle.Name, webhookName(wh), orNone(modes)))
		}
		for _, crd := range wh.ConversionCRDs {
			if !owned[crd] {
				errs = append(errs, fmt.Errorf("bundle %s: conversion webhook %s converts CRD %s, which the bundle does not own", in.bundle.Name, webhookName(wh), crd))
			}
			if other, dup := convertedBy[crd]; dup {
				errs = append(errs, fmt.Errorf("bundle %s: conversion webhooks %s and %s both convert CRD %s", in.bundle.Name, other, webhookName(wh), crd))
			}
			convertedBy[crd] = webhookName(wh)
		}
	}
	return errs
}

// webhookName is a webhook's name: its generateName without the trailing dash.
func webhookName(wh v1alpha1.WebhookDescription) string {
	return strings.TrimSuffix(wh.GenerateName, "-")
}
