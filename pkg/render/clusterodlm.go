package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// Registries and configs from the cluster (docs/semantics.md, Decided deviations: one look-up order). In the common layout the common-services
// operator creates the OperandRegistry and OperandConfig in the cluster, and the repository
// holds only OperandRequests. So a registry or config the inputs lack is read from the
// snapshot, then the live cluster. It is used read-only: it is not an input, so it is never
// emitted, and results about it name it without a file.

// registryAt returns the OperandRegistry of a key: an input's, else the cluster's. present
// is false when none exists; reg is nil when it exists but does not decode (errors say why).
func (in *roundInputs) registryAt(k key) (reg *registry, present bool) {
	if reg, ok := in.registries[k]; ok {
		return reg, true
	}
	if in.brokenInputs[odlmKey(api.KindOperandRegistry, k.Namespace, k.Name)] {
		return nil, false // the input wins, and its errors say why it is unusable
	}
	o := in.clusterODLM(api.KindOperandRegistry, k)
	if o == nil {
		return nil, false
	}
	if in.undecodable[o] {
		return nil, true
	}
	if reg = in.decodeRegistry(o); reg == nil {
		in.undecodable[o] = true // its errors are given once
	}
	return reg, true
}

// configAt returns the OperandConfig of a key: an input's, else the cluster's; nil when
// there is none or it does not decode.
func (in *roundInputs) configAt(k key) *operandConfig {
	if c, ok := in.configs[k]; ok {
		return c
	}
	if in.brokenInputs[odlmKey(api.KindOperandConfig, k.Namespace, k.Name)] {
		return nil
	}
	o := in.clusterODLM(api.KindOperandConfig, k)
	if o == nil || in.undecodable[o] {
		return nil
	}
	c := in.decodeConfig(o)
	if c == nil {
		in.undecodable[o] = true // its errors are given once
	}
	return c
}

// noteBrokenInput records an input registry or config whose spec does not decode: the
// cluster's copy does not stand in for it (the input comes first), and no hint sends the
// user to the cluster for it.
func (in *roundInputs) noteBrokenInput(o *manifest.Object) {
	if in.brokenInputs == nil {
		in.brokenInputs = map[manifest.Key]bool{}
	}
	in.brokenInputs[odlmKey(o.Kind(), o.Namespace(), o.Name())] = true
}

// clusterODLM reads an ODLM object from the snapshot and the live cluster, once per round:
// nil when absent, not served, or unreadable (a warning once per kind says so).
func (in *roundInputs) clusterODLM(kind string, k key) *manifest.Object {
	ck := odlmKey(kind, k.Namespace, k.Name)
	if o, done := in.clusterODLMObjects[ck]; done {
		return o
	}
	if in.clusterODLMObjects == nil {
		in.clusterODLMObjects = map[manifest.Key]*manifest.Object{}
		in.undecodable = map[*manifest.Object]bool{}
	}
	in.clusterODLMObjects[ck] = nil
	if len(in.r.opts.Sources) == 0 {
		return nil
	}
	c := in.r.cache.sourceRead(api.APIVersion, kind, k.Namespace, k.Name)
	switch {
	case c.err != nil && !errors.Is(c.err, cluster.ErrNotServed):
		in.r.warnOnce(onceKey{topic: "read-odlm", name: kind}, diag.Warnf(nil, "", "reading %s %s from the cluster failed, so no %s is read from there (an %s the inputs lack is then missing): %v", kind, k, kind, kind, c.err))
		return nil
	case c.err != nil || !c.found:
		return nil
	}
	o := manifest.New(c.obj)
	in.r.lookups.originOf[o] = c.origin
	in.clusterODLMObjects[ck] = o
	return o
}

// fromCluster says, for messages, that an ODLM object was read from the cluster.
func (l *lookups) fromCluster(o *manifest.Object) string {
	if origin, ok := l.originOf[o]; ok {
		return fmt.Sprintf(" (read from the %s)", placeName(origin))
	}
	return ""
}

// lookedIn names where an ODLM object was looked for: the inputs and the given sources.
func (in *roundInputs) lookedIn() string {
	places := []string{"the inputs"}
	for _, s := range in.r.opts.Sources {
		if p := "the " + placeName(s.Origin); !slices.Contains(places, p) {
			places = append(places, p)
		}
	}
	if len(places) == 1 {
		return "among " + places[0]
	}
	return "among " + strings.Join(places[:len(places)-1], ", ") + " or " + places[len(places)-1]
}

// registryHint says how to give a registry the inputs lack, when no cluster source is read
// and the name is no likely typo of an input registry's.
func (in *roundInputs) registryHint(name, namespace string) string {
	if len(in.r.opts.Sources) > 0 || suggest.DidYouMean(name, in.registryNames(namespace)) != "" ||
		in.brokenInputs[odlmKey(api.KindOperandRegistry, namespace, name)] {
		return ""
	}
	return " (where an operator creates the registry in the cluster, as IBM's common-services operator does, give a --snapshot holding it or read the cluster with --live)"
}

func placeName(o cluster.Origin) string {
	if o == cluster.OriginLive {
		return "live cluster"
	}
	return string(o)
}

// warnIfClusterDiffers warns when an input OperandRegistry or OperandConfig and the
// cluster's copy of it differ: the render uses the input, while ODLM in the cluster reads
// the cluster's. Only field paths are named, never values.
func (in *roundInputs) warnIfClusterDiffers(o *manifest.Object) {
	if len(in.r.opts.Sources) == 0 || in.r.lookups.fedFromCarried(o) || !in.r.lookups.isInput(o) {
		return
	}
	c := in.clusterODLM(o.Kind(), key{o.Namespace(), o.Name()})
	if c == nil {
		return
	}
	mine, theirs := decidingFields(o), decidingFields(c)
	path, differs := firstDifference(mine, theirs, "")
	if !differs {
		return
	}
	in.add(diag.Warnf(o, path, "the %s of this name in the %s differs, first at this field: the render uses this input, while ODLM in the cluster reads the cluster's", o.Kind(), placeName(in.r.lookups.originOf[c])))
}

// decidingFields is what decides the render in an ODLM object: its spec, and a registry's
// excluded-catalogsource annotation. An OperandConfig resource without force has the CRD's
// default, true, as the API server stores it.
func decidingFields(o *manifest.Object) map[string]any {
	out := map[string]any{}
	if spec, ok := o.Map["spec"]; ok {
		out["spec"] = merge.DeepCopy(spec)
	}
	if o.Kind() == api.KindOperandRegistry {
		if a, ok := o.Annotations()[excludedCatalogSourceAnnotation]; ok {
			out["metadata"] = map[string]any{"annotations": map[string]any{excludedCatalogSourceAnnotation: a}}
		}
	}
	if o.Kind() == api.KindOperandConfig {
		services, _ := manifest.Get(out, "spec", "services").([]any)
		for _, s := range services {
			resources, _ := manifest.Get(s, "resources").([]any)
			for _, res := range resources {
				if m, ok := res.(map[string]any); ok {
					if _, set := m["force"]; !set {
						m["force"] = true
					}
				}
			}
		}
	}
	return out
}

// firstDifference is the path of the first place (in key order) where two value trees
// differ.
func firstDifference(a, b any, path string) (string, bool) {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return path, true
		}
		keys := manifest.SortedKeys(a)
		for _, k := range manifest.SortedKeys(bm) {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p, ok := firstDifference(a[k], bm[k], manifest.Field(path, k)); ok {
				return p, true
			}
		}
		return "", false
	case []any:
		bl, ok := b.([]any)
		if !ok {
			return path, true
		}
		for i := range min(len(a), len(bl)) {
			if p, ok := firstDifference(a[i], bl[i], manifest.Field(path, i)); ok {
				return p, true
			}
		}
		if len(a) != len(bl) {
			return manifest.Field(path, min(len(a), len(bl))), true
		}
		return "", false
	}
	return path, !merge.Equal(a, b)
}

// odlmKey identifies an ODLM object of a kind.
func odlmKey(kind, namespace, name string) manifest.Key {
	return manifest.Ref{APIVersion: api.APIVersion, Kind: kind, Namespace: namespace, Name: name}.Key()
}
