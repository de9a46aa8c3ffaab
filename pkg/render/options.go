package render

import (
	"errors"
	"fmt"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/optionspec"
)

// Options tune a render. It is the one contract of the engine: the front doors map their
// flags (tag `flag`) and functionConfig fields (tag `json`) onto it, and Validate, which
// Render calls, checks it. A field without tags is set by a front door from its own inputs.
type Options struct {
	// KeepInputs keeps the consumed ODLM inputs in the output. Inputs annotated
	// config.kubernetes.io/local-config: "true" are always kept.
	KeepInputs bool `json:"keepInputs,omitempty" flag:"keep-inputs" help:"keep the consumed ODLM inputs in the output"`
	// DefaultNamespace is used for namespaced ODLM inputs that have no metadata.namespace.
	DefaultNamespace string `json:"namespace,omitempty" flag:"namespace" help:"namespace for ODLM inputs that have none"`
	// Sources are read after the objects the render emits and the inputs (in order: a
	// snapshot, then a live cluster).
	Sources cluster.Chain `json:"-"`
	// Pending is PendingWarn (default) or PendingError.
	Pending PendingMode `json:"pending,omitempty" flag:"pending" enum:"warn,error" default:"warn" help:"required template values that exist only once the output is applied: warn (render the rest) or error"`
	// Secrets is SecretsInline (default) or SecretsForbid.
	Secrets SecretsMode `json:"secrets,omitempty" flag:"secrets" enum:"inline,forbid" default:"inline" help:"values templates read from Secrets: inline (as ODLM does) or forbid (an error outside a Secret)"`
	// Explain adds an info result for every resolved template, naming its sources.
	Explain bool `json:"explain,omitempty" flag:"explain" help:"say where every templatingValueFrom value came from (never a Secret's value)"`
	// BindInfoSecrets is what an OperandBindInfo copy of a Secret becomes: BindInfoCopy
	// (default), BindInfoExternalSecrets or BindInfoSkip.
	BindInfoSecrets BindInfoMode `json:"bindinfoSecrets,omitempty" flag:"bindinfo-secrets" enum:"copy,external-secrets,skip" default:"copy" help:"what an OperandBindInfo copy of a Secret becomes: copy (with its data, as ODLM does), external-secrets (an ExternalSecret reading the source at run time: no data in the output) or skip"`

	// Pin sets each Subscription's startingCSV to the head of its channel; ManualApproval
	// then also sets installPlanApproval: Manual (a reproducible version lock).
	Pin            bool `json:"pin,omitempty" flag:"pin" help:"set each Subscription's startingCSV to the head of its channel in the catalog (a reproducible version lock)"`
	ManualApproval bool `json:"manualApproval,omitempty" flag:"manual-approval" help:"with pin: also set installPlanApproval: Manual"`
	// CheckPins reports startingCSVs that are no longer heads, or that OLM cannot reach from
	// the installed CSV (a Subscription's status in the inputs or a snapshot).
	CheckPins bool `json:"checkPins,omitempty" flag:"check-pins" help:"warn about startingCSVs that are no longer channel heads or that OLM cannot reach from the installed CSV (from the inputs or a snapshot)"`
	// FailOnDeprecated turns olm.deprecations warnings into errors.
	FailOnDeprecated bool `json:"failOnDeprecated,omitempty" flag:"fail-on-deprecated" help:"make olm.deprecations of a package, channel or bundle in use an error, not a warning"`
	// EmitCatalogSources writes the CatalogSources the Subscriptions use (from the inputs or
	// snapshots), their olm.catalogImageTemplate resolved for KubeVersion.
	EmitCatalogSources bool `json:"emitCatalogSources,omitempty" flag:"emit-catalogsources" help:"emit the CatalogSources the Subscriptions use (from the inputs or a snapshot), olm.catalogImageTemplate resolved for the Kubernetes version"`
	// ImageMirrors rewrite the images of the CatalogSources and ClusterCatalogs the render
	// emits: each "FROM=TO" replaces a leading FROM (a registry, or a repository prefix) with
	// TO; the longest FROM that matches wins.
	ImageMirrors []string `json:"imageMirrors,omitempty" flag:"image-mirror" help:"FROM=TO: emitted CatalogSources and ClusterCatalogs pull their catalog image from the mirror TO instead of FROM (a registry or repository prefix; repeatable, the longest match wins)"`
	// GlobalCatalogNamespace is OLM's global catalog namespace: its CatalogSources serve
	// every namespace (ODLM sees their packages from any namespace, OLM resolves
	// dependencies from them), and a `--catalog NAME=PATH` without a namespace names one there.
	GlobalCatalogNamespace string `json:"globalCatalogNamespace,omitempty" flag:"global-catalog-namespace" default:"openshift-marketplace" help:"OLM's global catalog namespace (olm upstream): its CatalogSources serve every namespace, and a --catalog NAME=PATH without a namespace names a CatalogSource there"`
	// KubeVersion is the cluster's Kubernetes version (1.28.3), for image templates and the
	// bundles' minKubeVersion (minkubeversion.go).
	KubeVersion string `json:"kubeVersion,omitempty" flag:"kube-version" help:"the cluster's Kubernetes version (1.28.3): resolves olm.catalogImageTemplate, and bundles whose minKubeVersion is above it are warned of"`
	// Ordering is "" (none), OrderingArgoCD or OrderingKpt.
	Ordering OrderingMode `json:"ordering,omitempty" flag:"ordering" enum:"argocd,kpt" help:"ordering annotations on rendered objects: argocd (sync waves, SkipDryRunOnMissingResource) or kpt (depends-on); none by default"`
	// ODLMNoOLM renders what ODLM deployed in its own no-OLM mode (NO_OLM=true) creates:
	// tracking ConfigMaps instead of Subscriptions and OperatorGroups, alm-examples from the
	// operator Deployment. The operators are deployed by other means; OLM: none is the render
	// deploying them itself. It was NoOLM (noOLM, --no-olm).
	ODLMNoOLM bool `json:"odlmNoOLM,omitempty" flag:"odlm-no-olm" formerly:"noOLM,no-olm" help:"render what ODLM in its no-OLM mode (NO_OLM=true) creates for operators deployed by other means: tracking ConfigMaps instead of Subscriptions and OperatorGroups, alm-examples from the operator Deployment (inputs or a snapshot); not --olm none, which deploys the operators"`
	// CRDDefaults writes the defaults of their CRDs into the custom resources the render
	// emits, as the API server stores them; without it the server applies them.
	CRDDefaults bool `json:"crdDefaults,omitempty" flag:"crd-defaults" help:"write the defaults of their CRDs into the custom resources the render emits, as the API server stores them (by default the server applies them)"`
	// OLM is OLMv0 (default), OLMv1 or OLMNone: what installs the operators.
	OLM OLMVersion `json:"olm,omitempty" flag:"olm" enum:"v0,v1,none" default:"v0" help:"what installs the operators: v0 (Subscriptions, OperatorGroups, CatalogSources), v1 (operator-controller's ClusterExtensions and catalogd's ClusterCatalogs) or none (the operators themselves, from their bundles: CRDs, RBAC, Deployments, webhooks, as OLM's install strategy creates them)"`
	// Dependencies is what the render does about the operators OLM v0 adds as dependencies:
	// DependenciesReport (an info each) or DependenciesSubscriptions (a Subscription each).
	Dependencies DependenciesMode `json:"dependencies,omitempty" flag:"dependencies" enum:"report,subscriptions" default:"report" help:"with olm v0, the operators OLM installs as dependencies of the bundles the render installs: report (an info naming each) or subscriptions (also write a Subscription for each, pinned to the bundle OLM would pick, so that GitOps owns every operator of the namespace)"`
	// WebhookCerts provides the serving certificates of the webhooks of operators installed
	// with OLMNone; a bundle with webhooks needs it.
	WebhookCerts WebhookCertsMode `json:"webhookCerts,omitempty" flag:"webhook-certs" enum:"cert-manager,service-ca,none" help:"with olm none: who provides the serving certificates of the operators' webhooks: cert-manager (an Issuer and Certificate per webhook Deployment, CA injected), service-ca (OpenShift's service CA annotations) or none (the Deployment as the bundle has it, as operator-controller writes it without a certificate provider: you supply the certificate)"`
	// OLMv1ServiceAccount names an installer ServiceAccount in each ClusterExtension and
	// writes the RBAC installing its bundle needs (operator-controller before v1.11).
	OLMv1ServiceAccount bool `json:"olmV1ServiceAccount,omitempty" flag:"olm-v1-service-account" help:"with olm v1: name an installer ServiceAccount in each ClusterExtension and write the RBAC installing its bundle needs, derived from the bundle (operator-controller before v1.11 installs with it)"`
	// OLMv1WatchNamespace installs an operator whose OLM v0 OperatorGroup targets one
	// namespace for that namespace (spec.config.inline.watchNamespace).
	OLMv1WatchNamespace bool `json:"olmV1WatchNamespace,omitempty" flag:"olm-v1-watch-namespace" help:"with olm v1: install an operator whose OLM v0 OperatorGroup targets one namespace for that namespace only (config.inline.watchNamespace, a field of operator-controller's experimental ClusterExtension CRD only, with its SingleOwnNamespaceInstallSupport feature gate: the standard CRD drops it)"`
	// OLMv1SelfCertified sets upgradeConstraintPolicy SelfCertified on each ClusterExtension:
	// operator-controller then installs the version asked for even where it does not succeed
	// the installed one directly.
	OLMv1SelfCertified bool `json:"olmV1SelfCertified,omitempty" flag:"olm-v1-self-certified" help:"with olm v1: set upgradeConstraintPolicy SelfCertified on each ClusterExtension, so that operator-controller moves an installed extension to the version the render asks for even where the catalog has no direct upgrade edge to it (you certify the upgrade is safe)"`
}

// PendingMode is what a required template value that exists only once the output is applied
// does: PendingWarn or PendingError.
type PendingMode string

// SecretsMode is where values templates read from Secrets may go: SecretsInline or
// SecretsForbid.
type SecretsMode string

// BindInfoMode is what an OperandBindInfo copy of a Secret becomes: BindInfoCopy,
// BindInfoExternalSecrets or BindInfoSkip.
type BindInfoMode string

// OrderingMode is the ordering annotations on rendered objects: OrderingArgoCD or
// OrderingKpt ("" none).
type OrderingMode string

// OLMVersion is what installs the operators: OLMv0, OLMv1 or OLMNone.
type OLMVersion string

// DependenciesMode is what the render does about dependencies OLM v0 adds (Options.Dependencies).
type DependenciesMode string

// Dependency modes.
const (
	// DependenciesReport names each dependency in an info (the default).
	DependenciesReport DependenciesMode = "report"
	// DependenciesSubscriptions also writes a Subscription for each, as OLM would create it,
	// pinned to the bundle OLM would pick.
	DependenciesSubscriptions DependenciesMode = "subscriptions"
)

// WebhookCertsMode is who provides the serving certificates of the webhooks of operators
// installed without OLM: "cert-manager", "service-ca" or "none" (bundleinstall.CertProvider).
type WebhookCertsMode string

// Bind-info Secret modes: what a copied Secret becomes.
const (
	// BindInfoCopy copies the Secret with its data, as ODLM does (default).
	BindInfoCopy BindInfoMode = "copy"
	// BindInfoExternalSecrets emits an External Secrets Operator ExternalSecret (and the
	// SecretStore and RBAC it needs) that reads the source at run time: no data in the output.
	BindInfoExternalSecrets BindInfoMode = "external-secrets"
	// BindInfoSkip emits nothing for Secrets.
	BindInfoSkip BindInfoMode = "skip"
)

// OLM versions the render writes for (Options.OLM).
const (
	// OLMv0 writes Subscriptions, OperatorGroups and CatalogSources (the default).
	OLMv0 OLMVersion = "v0"
	// OLMv1 writes operator-controller's ClusterExtensions and catalogd's ClusterCatalogs.
	OLMv1 OLMVersion = "v1"
	// OLMNone writes the operators themselves, as OLM's install strategy creates them from
	// their bundles: CRDs, RBAC, Deployments, webhooks (internal/bundleinstall).
	OLMNone OLMVersion = "none"
)

// Ordering styles for the rendered objects.
const (
	// OrderingArgoCD adds Argo CD sync waves, and SkipDryRunOnMissingResource on CRs whose
	// CRD an operator being installed provides.
	OrderingArgoCD OrderingMode = "argocd"
	// OrderingKpt adds config.kubernetes.io/depends-on for kpt live apply / Config Sync.
	OrderingKpt OrderingMode = "kpt"
)

// Pending values: how a required template value that exists only at run time is treated.
const (
	// PendingWarn renders everything that does not depend on the value and warns (default).
	PendingWarn PendingMode = "warn"
	// PendingError makes every pending value an error, for CI that needs complete output.
	PendingError PendingMode = "error"
)

// Secrets policies for values templates read from Secrets.
const (
	// SecretsInline writes them where ODLM would (default).
	SecretsInline SecretsMode = "inline"
	// SecretsForbid makes a Secret-derived value in any rendered object other than a Secret
	// an error.
	SecretsForbid SecretsMode = "forbid"
)

// optionList lists the options the front doors set, in declaration order (internal/optionspec
// reads each field's functionConfig name, flag, allowed values, default and help from its tags).
func optionList() []optionspec.Option { return optionspec.Of[Options]() }

// GlobalNamespace is GlobalCatalogNamespace, or its default: OLM's global catalog namespace
// on OpenShift, where ODLM runs (openshift-marketplace).
func (o Options) GlobalNamespace() string {
	if o.GlobalCatalogNamespace == "" {
		return naming.GlobalCatalogNamespace
	}
	return o.GlobalCatalogNamespace
}

// Validate checks the options: every enumerated option holds one of its values (a misspelt
// bindinfoSecrets must never fall back to copying Secret data into the output), and
// ManualApproval goes with Pin. The error joins one problem per option (internal/optionspec's
// Error: the option's functionConfig name and flag, the value, why).
func (o Options) Validate() error {
	errs := optionspec.CheckEnums(o, optionList())
	if o.ManualApproval && !o.Pin {
		errs = append(errs, optionError("ManualApproval", "true", "goes with pin (--pin): it makes the pinned version a lock"))
	}
	for _, f := range []struct {
		field string
		set   bool
	}{{"OLMv1ServiceAccount", o.OLMv1ServiceAccount}, {"OLMv1WatchNamespace", o.OLMv1WatchNamespace}, {"OLMv1SelfCertified", o.OLMv1SelfCertified}} {
		if f.set && o.OLM != OLMv1 {
			errs = append(errs, optionError(f.field, "true", "goes with olm v1 (--olm v1): it configures ClusterExtensions"))
		}
	}
	if o.Dependencies == DependenciesSubscriptions && (o.OLM == OLMv1 || o.OLM == OLMNone || o.ODLMNoOLM) {
		errs = append(errs, optionError("Dependencies", string(o.Dependencies), "goes with olm v0: OLM v1 and installs without OLM resolve no dependencies"))
	}
	if o.WebhookCerts != "" && o.OLM != OLMNone {
		errs = append(errs, optionError("WebhookCerts", string(o.WebhookCerts), "goes with olm none (--olm none): it configures the webhooks of operators the render installs"))
	}
	if (o.OLM == OLMv1 || o.OLM == OLMNone) && o.ODLMNoOLM {
		errs = append(errs, optionError("OLM", string(o.OLM), "does not go with odlmNoOLM (--odlm-no-olm): that renders what ODLM in its no-OLM mode creates for operators deployed by other means"))
	}
	if ns := o.GlobalCatalogNamespace; ns != "" && len(apivalidation.ValidateNamespaceName(ns, false)) > 0 {
		errs = append(errs, optionError("GlobalCatalogNamespace", ns, "is not a namespace name"))
	}
	if len(o.ImageMirrors) > 0 && !o.EmitCatalogSources {
		errs = append(errs, optionError("ImageMirrors", strings.Join(o.ImageMirrors, ","), "goes with emit-catalogsources (--emit-catalogsources): it rewrites the images of the CatalogSources the render emits"))
	}
	for _, m := range o.ImageMirrors {
		from, to, ok := strings.Cut(m, "=")
		if !ok || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" || strings.ContainsAny(m, " \t\n") {
			errs = append(errs, optionError("ImageMirrors", m, fmt.Sprintf("%q is not FROM=TO (a registry or repository prefix, then its mirror)", m)))
		}
	}
	if o.DefaultNamespace != "" {
		if msgs := apivalidation.ValidateNamespaceName(o.DefaultNamespace, false); len(msgs) > 0 {
			errs = append(errs, optionError("DefaultNamespace", o.DefaultNamespace, fmt.Sprintf("%q is not a namespace name: %s", o.DefaultNamespace, strings.Join(msgs, "; "))))
		}
	}
	return errors.Join(errs...)
}

// optionError is the problem of the option of field.
func optionError(field, value, msg string) error {
	return optionspec.ErrorOf(optionList(), field, value, msg)
}

// mirrorImage is image with the longest matching FROM of mirrors ("FROM=TO") replaced by its
// TO: a FROM matches a whole registry or repository path prefix (followed by "/", ":", "@" or
// the end), never part of a name.
func mirrorImage(image string, mirrors []string) string {
	best, bestTo := "", ""
	for _, m := range mirrors {
		from, to, ok := strings.Cut(m, "=")
		if !ok || len(from) <= len(best) || !strings.HasPrefix(image, from) {
			continue
		}
		if rest := image[len(from):]; rest != "" && !strings.ContainsAny(rest[:1], "/:@") {
			continue
		}
		best, bestTo = from, to
	}
	if best == "" {
		return image
	}
	return bestTo + image[len(best):]
}
