package bundleinstall

import (
	"fmt"
	"slices"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
)

// applyConfig applies a Subscription's config (OLM's SubscriptionConfig, as decoded JSON) to
// a Deployment as OLM applies it to the Deployments of a CSV:
//   - env: per container, a variable of the same name is replaced, others appended;
//   - envFrom, tolerations: appended unless an equal one is there;
//   - volumes (pod), volumeMounts (per container): one of the same name replaced, others
//     appended (OLM v0 appends duplicates the API server then refuses; operator-controller
//     replaces, as here);
//   - resources (per container), nodeSelector: replaced;
//   - affinity: {} removes the pod's; each of nodeAffinity, podAffinity, podAntiAffinity
//     given replaces the pod's, and an empty one removes it;
//   - annotations: added to the Deployment and its pod template where the key is not there.
//
// selector is OLM's too but OLM does not apply it; the caller warns about it.
func applyConfig(deployment map[string]any, config map[string]any) error {
	if len(config) == 0 {
		return nil
	}
	spec := manifest.EnsureMap(deployment, "spec")
	pod := manifest.EnsureMap(manifest.EnsureMap(spec, "template"), "spec")
	containers, _ := pod["containers"].([]any)
	for _, c := range containers {
		cm, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("a container of the pod template is not a mapping")
		}
		mergeByName(cm, "env", list(config["env"]))
		appendDistinct(cm, "envFrom", list(config["envFrom"]))
		mergeByName(cm, "volumeMounts", list(config["volumeMounts"]))
		if r, ok := config["resources"]; ok && r != nil {
			cm["resources"] = merge.DeepCopy(r)
		}
	}
	mergeByName(pod, "volumes", list(config["volumes"]))
	appendDistinct(pod, "tolerations", list(config["tolerations"]))
	if ns, ok := config["nodeSelector"].(map[string]any); ok {
		if len(ns) == 0 {
			delete(pod, "nodeSelector")
		} else {
			pod["nodeSelector"] = merge.DeepCopy(ns)
		}
	}
	if a, ok := config["affinity"].(map[string]any); ok {
		applyAffinity(pod, a)
	}
	if ann, ok := config["annotations"].(map[string]any); ok {
		addAnnotations(manifest.EnsureMap(deployment, "metadata"), ann)
		addAnnotations(manifest.EnsureMap(manifest.EnsureMap(spec, "template"), "metadata"), ann)
	}
	return nil
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// mergeByName replaces the element of m[key] with each item's name, or appends the item.
func mergeByName(m map[string]any, key string, items []any) {
	if len(items) == 0 {
		return
	}
	current, _ := m[key].([]any)
	current = slices.Clone(current)
	for _, item := range items {
		name := manifest.Get(item, "name")
		i := slices.IndexFunc(current, func(c any) bool { return manifest.Get(c, "name") == name })
		if i >= 0 {
			current[i] = merge.DeepCopy(item)
		} else {
			current = append(current, merge.DeepCopy(item))
		}
	}
	m[key] = current
}

// appendDistinct appends each item not already in m[key].
func appendDistinct(m map[string]any, key string, items []any) {
	if len(items) == 0 {
		return
	}
	current, _ := m[key].([]any)
	current = slices.Clone(current)
	for _, item := range items {
		if !slices.ContainsFunc(current, func(c any) bool { return merge.Equal(c, item) }) {
			current = append(current, merge.DeepCopy(item))
		}
	}
	m[key] = current
}

var affinityKinds = []string{"nodeAffinity", "podAffinity", "podAntiAffinity"}

// applyAffinity applies a config's affinity to a pod spec (see applyConfig).
func applyAffinity(pod map[string]any, config map[string]any) {
	given := false
	for _, k := range affinityKinds {
		if config[k] != nil {
			given = true
		}
	}
	if !given {
		delete(pod, "affinity")
		return
	}
	affinity, _ := pod["affinity"].(map[string]any)
	affinity = mapsClone(affinity)
	for _, k := range affinityKinds {
		v, ok := config[k].(map[string]any)
		switch {
		case !ok:
		case affinityEmpty(k, v):
			delete(affinity, k)
		default:
			affinity[k] = merge.DeepCopy(v)
		}
	}
	for _, k := range affinityKinds {
		if v, ok := affinity[k].(map[string]any); ok && affinityEmpty(k, v) {
			delete(affinity, k)
		}
	}
	if len(affinity) == 0 {
		delete(pod, "affinity")
		return
	}
	pod["affinity"] = affinity
}

// affinityEmpty reports an affinity of kind k that constrains nothing.
func affinityEmpty(k string, v map[string]any) bool {
	if k == "nodeAffinity" {
		terms := list(manifest.Get(v, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
		return len(terms) == 0 && len(list(v["preferredDuringSchedulingIgnoredDuringExecution"])) == 0
	}
	return len(list(v["requiredDuringSchedulingIgnoredDuringExecution"])) == 0 && len(list(v["preferredDuringSchedulingIgnoredDuringExecution"])) == 0
}

func mapsClone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// addAnnotations adds annotations to metadata without replacing keys that are there.
func addAnnotations(meta map[string]any, ann map[string]any) {
	current := manifest.EnsureMap(meta, "annotations")
	for k, v := range ann {
		if _, ok := current[k]; !ok {
			current[k] = v
		}
	}
}
