package krm

import "github.com/odlm-render/odlm-render/internal/manifest"

// annotationFormat says which of the two annotation families the orchestrator used.
type annotationFormat struct{ internal, legacy bool }

// annotationPairs are the (internal, legacy) keys that carry the same fact.
var annotationPairs = [][2]string{
	{PathAnnotation, LegacyPathAnnotation},
	{IndexAnnotation, LegacyIndexAnnotation},
	{IDAnnotation, LegacyIDAnnotation},
}

// formatOf is the format of the input items, as kyaml decides it: with no items, both
// families (a generator's output is read by either kind of orchestrator); otherwise the
// families any item carries; items that carry neither do not count.
func formatOf(items []*Item) annotationFormat {
	if len(items) == 0 {
		return annotationFormat{internal: true, legacy: true}
	}
	var f annotationFormat
	for _, it := range items {
		a, _ := manifest.Get(it.Object.Map, "metadata", "annotations").(map[string]any)
		for _, pair := range annotationPairs {
			if _, ok := a[pair[0]]; ok {
				f.internal = true
			}
			if _, ok := a[pair[1]]; ok {
				f.legacy = true
			}
		}
	}
	return f
}

// reconcile makes an output object's file annotations follow the format: a fact set under
// one family only is copied to the other, and a family the orchestrator did not use is
// removed. An annotations map left empty is removed.
func (f annotationFormat) reconcile(obj *manifest.Object) {
	meta, ok := obj.Map["metadata"].(map[string]any)
	if !ok {
		return
	}
	annotations, ok := meta["annotations"].(map[string]any)
	if !ok {
		return
	}
	for _, pair := range annotationPairs {
		internal, _ := annotations[pair[0]].(string)
		legacy, _ := annotations[pair[1]].(string)
		switch {
		case internal == "" && legacy != "":
			annotations[pair[0]] = legacy
		case legacy == "" && internal != "":
			annotations[pair[1]] = internal
		}
		if !f.internal {
			delete(annotations, pair[0])
		}
		if !f.legacy {
			delete(annotations, pair[1])
		}
	}
	if len(annotations) == 0 {
		delete(meta, "annotations")
	}
}
