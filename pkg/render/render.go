// Package render is the engine: a pure function from ODLM inputs, catalog data and the
// objects already known to the manifests the ODLM controller would have created once
// converged, plus diagnostics.
//
// It never reads files, flags, the environment or the network: everything arrives in
// Inputs and Options. Front doors (the CLI, the KRM function) print its Output.
package render

import (
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/cluster"
	"github.com/odlm-render/odlm-render/pkg/diag"
	"github.com/odlm-render/odlm-render/pkg/manifest"
)

// Inputs is everything a render reads.
type Inputs struct {
	// Objects are the input objects: ODLM custom resources, and any other object, which
	// counts as cluster state (an existing Subscription, OperatorGroup or CR changes what
	// is rendered) and passes through to the output unchanged.
	Objects []*manifest.Object
	// Catalog holds the OLM catalog data; nil renders without one (registry values are then
	// used verbatim and operand CRs from alm-examples cannot be rendered).
	Catalog *catalog.Catalog

	sorted bool // Objects are in manifest.Sort order (set between rounds)
}

// Options tune a render.
type Options struct {
	// KeepInputs keeps the consumed ODLM inputs in the output. Inputs annotated
	// config.kubernetes.io/local-config: "true" are always kept.
	KeepInputs bool
	// DefaultNamespace is used for namespaced ODLM inputs that have no metadata.namespace.
	DefaultNamespace string
	// Sources are read by templates after the inputs and the rendered objects (in order: a
	// snapshot, then a live cluster).
	Sources cluster.Chain
	// Pending is PendingWarn (default) or PendingError.
	Pending string
	// Secrets is SecretsInline (default) or SecretsForbid.
	Secrets string
	// Explain adds an info result for every resolved template, naming its sources.
	Explain bool
	// BindInfoSecrets is what an OperandBindInfo copy of a Secret becomes: BindInfoCopy
	// (default), BindInfoExternalSecrets or BindInfoSkip.
	BindInfoSecrets string

	// Pin sets each Subscription's startingCSV to the head of its channel; ManualApproval
	// then also sets installPlanApproval: Manual (a reproducible version lock).
	Pin, ManualApproval bool
	// CheckPins reports startingCSVs that are no longer heads, or that OLM cannot reach from
	// the installed CSV (a Subscription's status in the inputs or a snapshot).
	CheckPins bool
	// FailOnDeprecated turns olm.deprecations warnings into errors.
	FailOnDeprecated bool
	// EmitCatalogSources writes the CatalogSources the Subscriptions use (from the inputs or
	// snapshots), their olm.catalogImageTemplate resolved for KubeVersion.
	EmitCatalogSources bool
	// KubeVersion is the cluster's Kubernetes version (1.28.3), for image templates.
	KubeVersion string
	// Ordering is "" (none), OrderingArgoCD or OrderingKpt.
	Ordering string
	// NoOLM renders what ODLM's no-OLM controller creates: tracking ConfigMaps instead of
	// Subscriptions and OperatorGroups, alm-examples from the operator Deployment.
	NoOLM bool
}

// Output is the result of a render. When Results has errors, Objects must not be written.
type Output struct {
	// Objects are the pass-through inputs and the rendered objects, sorted.
	Objects []*manifest.Object
	// Generated reports, for each object in Objects, whether the render made it.
	Generated map[*manifest.Object]bool
	Results   diag.Results
}
