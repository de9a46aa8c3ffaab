package main

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/odlm-render/odlm-render/pkg/cluster"
	"github.com/odlm-render/odlm-render/pkg/diag"
	"github.com/odlm-render/odlm-render/pkg/inputs"
	"github.com/odlm-render/odlm-render/pkg/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// GeneratedDir is the folder (relative to the package) where kpt and `kustomize fn run`
// write the objects the function creates.
const GeneratedDir = "odlm-rendered"

// processor renders the ResourceList: ODLM inputs and catalog blobs in, rendered objects
// out; Kptfiles and local-config items are left exactly as they came.
type processor struct{}

// item pairs an input node with its decoded form.
type item struct {
	node *yaml.RNode
	obj  *manifest.Object
}

func (processor) Process(rl *framework.ResourceList) error {
	cfg, err := parseConfig(rl.FunctionConfig)
	if err != nil {
		return resultsError(rl, framework.Result{Severity: framework.Error, Message: err.Error()})
	}
	var local, resources, blobs []item
	for i, n := range rl.Items {
		obj, err := toObject(n)
		if err != nil {
			return resultsError(rl, framework.Result{Severity: framework.Error, Message: fmt.Sprintf("items[%d]: %v", i, err)})
		}
		it := item{node: n, obj: obj}
		switch {
		case inputs.IsCatalogBlob(obj):
			blobs = append(blobs, it)
		case inputs.IsLocal(obj) || obj.APIVersion() == "" || obj.Kind() == "":
			local = append(local, it)
		default:
			resources = append(resources, it)
		}
	}
	var blobObjs, resObjs []*manifest.Object
	for _, b := range blobs {
		blobObjs = append(blobObjs, b.obj)
	}
	for _, r := range resources {
		resObjs = append(resObjs, r.obj)
	}
	// inputs read from files: what a kustomize generator (which gets no items) renders
	if len(cfg.Inputs) > 0 {
		docs, err := inputs.ReadPaths(cfg.Inputs, nil)
		if err != nil {
			return resultsError(rl, framework.Result{Severity: framework.Error, Message: "inputs: " + err.Error()})
		}
		set, err := inputs.Classify(docs)
		if err != nil {
			return resultsError(rl, framework.Result{Severity: framework.Error, Message: "inputs: " + err.Error()})
		}
		resObjs = append(resObjs, set.Resources...)
		blobObjs = append(blobObjs, set.CatalogBlobs...)
	}
	cat, err := inputs.LoadCatalog(cfg.Catalogs, blobObjs)
	if err != nil {
		return resultsError(rl, framework.Result{Severity: framework.Error, Message: err.Error()})
	}
	var sources cluster.Chain
	if len(cfg.Snapshots) > 0 {
		snap, err := cluster.LoadSnapshot(cfg.Snapshots...)
		if err != nil {
			return resultsError(rl, framework.Result{Severity: framework.Error, Message: "snapshots: " + err.Error()})
		}
		sources = cluster.Chain{{Origin: cluster.OriginSnapshot, Reader: snap}}
	}
	out := render.Render(render.Inputs{Objects: resObjs, Catalog: cat}, render.Options{
		KeepInputs:         cfg.KeepInputs,
		DefaultNamespace:   cfg.Namespace,
		Sources:            sources,
		Pending:            cfg.Pending,
		Secrets:            cfg.Secrets,
		Explain:            cfg.Explain,
		BindInfoSecrets:    cfg.BindInfoSecrets,
		Pin:                cfg.Pin,
		ManualApproval:     cfg.ManualApproval,
		CheckPins:          cfg.CheckPins,
		FailOnDeprecated:   cfg.FailOnDeprecated,
		EmitCatalogSources: cfg.EmitCatalogSources,
		KubeVersion:        cfg.KubeVersion,
		Ordering:           cfg.Ordering,
		NoOLM:              cfg.NoOLM,
	})
	rl.Results = toResults(out.Results)
	if out.Results.HasErrors() {
		return rl.Results // items stay as they came: no partial output
	}
	nodes := map[*manifest.Object]*yaml.RNode{}
	for _, r := range resources {
		nodes[r.obj] = r.node
	}
	items := make([]*yaml.RNode, 0, len(local)+len(out.Objects)+len(blobs))
	for _, l := range local {
		items = append(items, l.node)
	}
	for _, o := range out.Objects {
		if n, passthrough := nodes[o]; passthrough {
			items = append(items, n)
			continue
		}
		n, err := toNode(o)
		if err != nil {
			return resultsError(rl, framework.Result{Severity: framework.Error, Message: err.Error()})
		}
		items = append(items, n)
	}
	if cfg.KeepInputs {
		for _, b := range blobs {
			items = append(items, b.node)
		}
	}
	rl.Items = items
	return nil
}

func resultsError(rl *framework.ResourceList, r framework.Result) error {
	rl.Results = append(rl.Results, &r)
	return rl.Results
}

// toObject decodes an item, keeping its file path and index for diagnostics.
func toObject(n *yaml.RNode) (*manifest.Object, error) {
	v, err := manifest.NodeValue(n.YNode())
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a mapping")
	}
	src := manifest.Source{}
	annotations := n.GetAnnotations()
	src.File = annotations[kioutil.PathAnnotation]
	if src.File == "" {
		src.File = annotations[kioutil.LegacyPathAnnotation]
	}
	idx := annotations[kioutil.IndexAnnotation]
	if idx == "" {
		idx = annotations[kioutil.LegacyIndexAnnotation]
	}
	src.Index, _ = strconv.Atoi(idx)
	return &manifest.Object{Map: m, Source: src}, nil
}

// toNode encodes a rendered object and gives it a stable file path: an object that took
// an input's place keeps that input's path.
func toNode(o *manifest.Object) (*yaml.RNode, error) {
	node, err := manifest.ValueNode(o.Map)
	if err != nil {
		return nil, err
	}
	n := yaml.NewRNode(node)
	if o.Source.File != "" {
		if err := n.PipeE(yaml.SetAnnotation(kioutil.PathAnnotation, o.Source.File)); err != nil {
			return nil, err
		}
		return n, n.PipeE(yaml.SetAnnotation(kioutil.IndexAnnotation, strconv.Itoa(o.Source.Index)))
	}
	return n, n.PipeE(yaml.SetAnnotation(kioutil.PathAnnotation, generatedPath(o)))
}

// generatedPath is odlm-rendered/<namespace or _cluster>/<kind>_<name>.yaml.
func generatedPath(o *manifest.Object) string {
	ns := o.Namespace()
	if ns == "" {
		ns = "_cluster"
	}
	return fmt.Sprintf("%s/%s/%s_%s.yaml", GeneratedDir, ns, strings.ToLower(o.Kind()), o.Name())
}

func toResults(rs diag.Results) framework.Results {
	out := make(framework.Results, 0, len(rs))
	for _, r := range rs {
		fr := &framework.Result{Severity: framework.Severity(r.Severity), Message: r.Message}
		if r.Object != nil {
			fr.ResourceRef = &yaml.ResourceIdentifier{
				TypeMeta: yaml.TypeMeta{APIVersion: r.Object.APIVersion, Kind: r.Object.Kind},
				NameMeta: yaml.NameMeta{Name: r.Object.Name, Namespace: r.Object.Namespace},
			}
			if r.Field != "" {
				fr.Field = &framework.Field{Path: r.Field}
			}
		}
		if r.File != "" {
			fr.File = &framework.File{Path: r.File, Index: r.Index}
		}
		out = append(out, fr)
	}
	return out
}
