package render

import (
	"fmt"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// registry is a decoded OperandRegistry with ODLM's defaults applied.
type registry struct {
	obj     *manifest.Object
	key     key
	entries []*entry
	byName  map[string]*entry
}

// entry is one operator entry of a registry, defaulted.
type entry struct {
	api.Operator
	registry *registry
	index    int
}

func (e *entry) field(sub string) string {
	return manifest.Field("spec.operators", e.index) + "." + sub
}

// installNamespace is where the Subscription lives (ODLM: openshift-operators for
// installMode cluster, the entry namespace otherwise).
func (e *entry) installNamespace() string {
	if e.InstallMode == api.InstallModeCluster {
		return clusterInstallNamespace
	}
	return e.Namespace
}

// serviceName is the OperandConfig service name the entry reads.
func (e *entry) serviceName() string {
	if e.ConfigName != "" {
		return e.ConfigName
	}
	return e.Name
}

func (in *roundInputs) loadRegistries() {
	for _, o := range in.odlmInputs(api.KindOperandRegistry) {
		if in.decodeRegistry(o) == nil {
			in.noteBrokenInput(o)
		}
		in.warnIfClusterDiffers(o)
	}
}

// decodeRegistry decodes an OperandRegistry (an input, or one read from the cluster) with
// ODLM's defaults and records it; nil when its spec does not decode.
func (in *roundInputs) decodeRegistry(o *manifest.Object) *registry {
	var spec api.OperandRegistrySpec
	if !in.r.decodeSpec(o, &spec) {
		return nil
	}
	reg := &registry{obj: o, key: key{o.Namespace(), o.Name()}, byName: map[string]*entry{}}
	for i, op := range spec.Operators {
		e := &entry{Operator: op, registry: reg, index: i}
		if !in.checkEntry(e) {
			continue
		}
		if first, dup := reg.byName[e.Name]; dup {
			in.add(diag.Errorf(o, e.field("name"), "duplicate operator name %q (also spec.operators[%d]); ODLM would silently use the first", e.Name, first.index))
			continue
		}
		applyEntryDefaults(e, reg.key.Namespace)
		reg.entries = append(reg.entries, e)
		reg.byName[e.Name] = e
	}
	in.registries[reg.key] = reg
	return reg
}

// applyEntryDefaults sets ODLM's defaults (scope private, installMode namespace,
// installPlanApproval Automatic, namespace = the registry's).
func applyEntryDefaults(e *entry, registryNamespace string) {
	if e.Scope == "" {
		e.Scope = api.ScopePrivate
	}
	if e.InstallMode == "" {
		e.InstallMode = api.InstallModeNamespace
	}
	if e.InstallPlanApproval == "" {
		e.InstallPlanApproval = "Automatic"
	}
	if e.Namespace == "" {
		e.Namespace = registryNamespace
	}
}

// checkEntry applies the CRD's validation of an entry and warns where ODLM is lenient.
func (in *roundInputs) checkEntry(e *entry) bool {
	o := e.registry.obj
	ok := true
	for _, f := range [][2]string{{"name", e.Name}, {"packageName", e.PackageName}} {
		if f[1] == "" {
			in.add(diag.Errorf(o, e.field(f[0]), "is required"))
			ok = false
		}
	}
	// the CRD requires the key, not a value: channel: "" follows the package's default
	// channel (docs/semantics.md, Decided deviations: empty channel)
	raw, _ := manifest.Get(o.Map, "spec", "operators").([]any)
	if e.index < len(raw) {
		if m, isMap := raw[e.index].(map[string]any); isMap {
			if _, present := m["channel"]; !present {
				hint := `write channel: "" to follow the package's default channel`
				for _, k := range manifest.SortedKeys(m) {
					if near, typo := suggest.Closest(k, []string{"channel"}); typo && near == "channel" {
						hint = fmt.Sprintf("%q is not a field: did you mean \"channel\"?", k)
						break
					}
				}
				in.add(diag.Errorf(o, e.field("channel"), "is required (%s)", hint))
				ok = false
			}
		}
	}
	switch e.Scope {
	case "", api.ScopePublic, api.ScopePrivate:
	default:
		in.add(diag.Errorf(o, e.field("scope"), "must be public or private, not %q", e.Scope))
		ok = false
	}
	switch e.InstallMode {
	case "", api.InstallModeNamespace, api.InstallModeCluster, api.InstallModeNoOp:
	default:
		in.add(diag.Warnf(o, e.field("installMode"), "unknown installMode %q: ODLM treats it as %q", e.InstallMode, api.InstallModeNamespace))
	}
	switch e.InstallPlanApproval {
	case "", "Automatic", "Manual":
	default:
		in.add(diag.Errorf(o, e.field("installPlanApproval"), "must be Automatic or Manual, not %q (OLM rejects the Subscription)", e.InstallPlanApproval))
		ok = false
	}
	if e.UserManaged && e.SubscriptionConfig != nil {
		in.add(diag.Warnf(o, e.field("subscriptionConfig"), "has no effect: the operator is userManaged, ODLM creates no Subscription"))
	}
	return ok
}

// names lists the registry's operator names, in order, for suggestions.
func (reg *registry) names() []string {
	out := make([]string, len(reg.entries))
	for i, e := range reg.entries {
		out[i] = e.Name
	}
	return out
}
