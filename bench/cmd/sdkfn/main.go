// Command sdkfn is odlm-render-fn's engine behind the KRM functions SDK
// (github.com/kptdev/krm-functions-sdk/go/fn, the kpt function catalog's convention) instead of
// the project's own ResourceList reader and writer (internal/krm). It exists to measure what the
// SDK would cost the function (scripts/bench.sh, section sdk): it renders the same inputs with
// the same options and answers the same objects and results; it leaves out what the real
// function adds on top (path annotations of rendered objects, local items, functionConfig
// ConfigMaps).
package main

import (
	"fmt"
	"os"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

func main() {
	if err := fn.AsMain(fn.ResourceListProcessorFunc(process)); err != nil {
		os.Exit(1)
	}
}

func process(rl *fn.ResourceList) (bool, error) {
	var objs []*manifest.Object
	for i, it := range rl.Items {
		docs, err := manifest.Decode(fmt.Sprintf("item %d", i), []byte(it.String()))
		if err != nil {
			return false, err
		}
		objs = append(objs, docs...)
	}
	set, err := inputs.Classify(objs)
	if err != nil {
		return false, err
	}
	var catalogs []string
	if rl.FunctionConfig != nil {
		catalogs, _, _ = rl.FunctionConfig.NestedStringSlice("spec", "catalogs")
	}
	cat, err := inputs.LoadCatalog(catalogs, set.CatalogBlobs)
	if err != nil {
		return false, err
	}
	out := render.Render(render.Inputs{Objects: set.Resources, Catalog: cat}, render.Options{})
	for _, r := range out.Results {
		sev := fn.Info
		switch r.Severity {
		case diag.Error:
			sev = fn.Error
		case diag.Warning:
			sev = fn.Warning
		}
		rl.Results = append(rl.Results, &fn.Result{Message: r.String(), Severity: sev})
	}
	if out.Results.HasErrors() {
		return false, nil
	}
	items := make(fn.KubeObjects, 0, len(out.Objects))
	for _, o := range out.Objects {
		b, err := manifest.MarshalYAML(o.Map)
		if err != nil {
			return false, err
		}
		ko, err := fn.ParseKubeObject(b)
		if err != nil {
			return false, err
		}
		items = append(items, ko)
	}
	rl.Items = items
	return true, nil
}
