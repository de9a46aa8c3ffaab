package render

import (
	"fmt"
	"sort"

	"github.com/odlm-render/odlm-render/pkg/api"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/diag"
	"github.com/odlm-render/odlm-render/pkg/manifest"
	"github.com/odlm-render/odlm-render/pkg/merge"
)

// localConfigAnnotation marks objects meant for client-side tools only.
const localConfigAnnotation = "config.kubernetes.io/local-config"

// key identifies a namespaced object by namespace and name.
type key struct{ Namespace, Name string }

func (k key) String() string { return k.Namespace + "/" + k.Name }

// run holds the state of one render.
type run struct {
	opts    Options
	catalog *catalog.Catalog
	results diag.Results

	// inputs in a canonical order, and the consumed ones
	objects  []*manifest.Object
	consumed map[*manifest.Object]bool
	// replaced maps an input object to the object that takes its place in the output
	// (an ODLM-labelled Subscription or CR that the controller would update)
	replaced map[*manifest.Object]*manifest.Object
	// byRef indexes every input object by manifest.Ref.Key()
	byRef map[string]*manifest.Object

	registries map[key]*registry
	configs    map[key]*operandConfig
	requests   []*operandRequest

	subscriptions  []*subscriptionPlan
	inputSubs      []*manifest.Object // the input Subscriptions, indexed once
	operatorGroups []*manifest.Object
	// rendered holds operand CRs and resources by manifest.Ref.Key(), in creation order
	rendered     map[string]*manifest.Object
	renderedList []*manifest.Object

	// templating state (templating.go): the previous pass's objects, the values waiting
	// for run time, reads from Options.Sources, and what the render installs
	previous          map[string]*manifest.Object
	pending           []pendingValue
	sourceCache       map[string]cachedRead
	providedKinds     map[string]bool
	installNamespaces map[string]bool

	// CatalogSources from the inputs and snapshots (catalogsource.go), listed once
	knownCatalogSources []*catalogSource

	// ordering (ordering.go): the Subscription whose operands are being rendered, the
	// Subscription each operand object waits for, and the bind-info copies
	installing *subscriptionPlan
	operatorOf map[*manifest.Object]*subscriptionPlan
	copies     map[*manifest.Object]bool
}

func newRun(in Inputs, opts Options) *run {
	objs := append([]*manifest.Object(nil), in.Objects...)
	manifest.Sort(objs)
	return &run{
		opts:        opts,
		catalog:     in.Catalog,
		objects:     objs,
		consumed:    map[*manifest.Object]bool{},
		replaced:    map[*manifest.Object]*manifest.Object{},
		byRef:       map[string]*manifest.Object{},
		registries:  map[key]*registry{},
		configs:     map[key]*operandConfig{},
		rendered:    map[string]*manifest.Object{},
		sourceCache: map[string]cachedRead{},
		operatorOf:  map[*manifest.Object]*subscriptionPlan{},
		copies:      map[*manifest.Object]bool{},
	}
}

func (r *run) add(res diag.Result) { r.results = append(r.results, res) }

func isODLM(o *manifest.Object) bool { return o.Group() == api.Group }

// classify checks metadata of every input and indexes them.
func (r *run) classify() {
	for i, o := range r.objects {
		if isODLM(o) && o.Namespace() == "" && o.Name() != "" && r.opts.DefaultNamespace != "" {
			// default a copy: the caller's inputs are never modified (15.7)
			cp := manifest.New(merge.DeepCopy(o.Map).(map[string]any))
			cp.Source = o.Source
			manifest.EnsureMap(cp.Map, "metadata")["namespace"] = r.opts.DefaultNamespace
			r.objects[i] = cp
		}
	}
	// defaulted namespaces change the canonical order
	manifest.Sort(r.objects)
	for _, o := range r.objects {
		k := o.Ref().Key()
		if prev, dup := r.byRef[k]; dup {
			r.add(diag.Warnf(o, "metadata.name", "the same object is also defined in %s; both are passed through", where(prev)))
			continue
		}
		r.byRef[k] = o
	}
}

// where describes an object's source for messages.
func where(o *manifest.Object) string {
	if o.Source.File == "" {
		return "the rendered output"
	}
	if o.Source.Line > 0 {
		return fmt.Sprintf("%s:%d", o.Source.File, o.Source.Line)
	}
	return o.Source.File
}

// odlmInputs returns the inputs of one ODLM kind, checking that each has a name and a
// namespace.
func (r *run) odlmInputs(kind string) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range r.objects {
		if !isODLM(o) || o.Kind() != kind {
			continue
		}
		if o.APIVersion() != api.APIVersion {
			r.add(diag.Errorf(o, "apiVersion", "%s is not served by ODLM (want %s)", o.APIVersion(), api.APIVersion))
			continue
		}
		if o.Name() == "" {
			r.add(diag.Errorf(o, "metadata.name", "is required"))
			continue
		}
		if o.Namespace() == "" {
			r.add(diag.Errorf(o, "metadata.namespace", "is required: %s is namespaced (or give a default namespace)", kind))
			continue
		}
		// a local-config input (kpt keeps ODLM inputs that way) is never removed: in
		// `kpt fn render` removing an item deletes it from the user's files
		if !r.opts.KeepInputs && o.Annotations()[localConfigAnnotation] != "true" {
			r.consumed[o] = true
		}
		out = append(out, o)
	}
	return out
}

// decodeSpec decodes an ODLM input's spec, turning unknown fields into warnings.
func (r *run) decodeSpec(o *manifest.Object, out any) bool {
	issues, err := api.DecodeSpec(o, out)
	if err != nil {
		if fe, ok := err.(*api.FieldError); ok {
			r.add(diag.Errorf(o, fe.Path, "%s", fe.Msg))
		} else {
			r.add(diag.Errorf(o, "spec", "%v", err))
		}
		return false
	}
	for _, is := range issues {
		r.add(diag.Warnf(o, is.Path, "unknown field: the API server prunes it or ODLM ignores it, so it has no effect"))
	}
	return true
}

// sortedKeys returns map keys sorted by namespace, then name.
func sortedKeys[V any](m map[key]V) []key {
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Namespace != keys[j].Namespace {
			return keys[i].Namespace < keys[j].Namespace
		}
		return keys[i].Name < keys[j].Name
	})
	return keys
}

// input returns the input object with the given identity, if any.
func (r *run) input(apiVersion, kind, namespace, name string) *manifest.Object {
	return r.byRef[manifest.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name}.Key()]
}
