package render

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// localConfigAnnotation marks objects meant for client-side tools only.
const localConfigAnnotation = "config.kubernetes.io/local-config"

// key identifies a namespaced object by namespace and name.
type key struct{ Namespace, Name string }

func (k key) String() string { return k.Namespace + "/" + k.Name }

func (r *run) add(res diag.Result) { r.pass.results = append(r.pass.results, res) }

// add notes a result of the inputs step.
func (in *roundInputs) add(res diag.Result) { in.inputResults = append(in.inputResults, res) }

func isODLM(o *manifest.Object) bool { return o.Group() == api.Group }

// classify checks metadata of every input and indexes them.
// readInputs is the inputs step: the inputs classified, then the registries, configs and
// requests decoded, with ODLM's defaults and checks.
func (in *roundInputs) readInputs() {
	in.classify()
	in.loadRegistries()
	in.loadConfigs()
	in.loadRequests()
}

func (in *roundInputs) classify() {
	defaulted := false
	for i, o := range in.objects {
		if isODLM(o) && o.Namespace() == "" && o.Name() != "" && in.r.opts.DefaultNamespace != "" {
			// default a copy: the caller's inputs are never modified (docs/semantics.md, Decided deviations: inputs are not modified)
			cp := manifest.New(merge.DeepCopy(o.Map).(map[string]any))
			cp.Source = o.Source
			manifest.EnsureMap(cp.Map, "metadata")["namespace"] = in.r.opts.DefaultNamespace
			in.objects[i] = cp
			defaulted = true
		}
	}
	// defaulted namespaces change the canonical order
	if defaulted {
		manifest.Sort(in.objects)
	}
	for _, o := range in.objects {
		in.checkKindTypo(o)
		k := o.Ref().Key()
		if prev, dup := in.byRef[k]; dup {
			in.add(diag.Warnf(o, "metadata.name", "the same object is also defined in %s; both are passed through", where(prev)))
			continue
		}
		in.byRef[k] = o
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
func (in *roundInputs) odlmInputs(kind string) []*manifest.Object {
	var out []*manifest.Object
	fed := in.r.lookups.fedODLM(kind)
	fedKeys := map[manifest.Key]bool{}
	for _, o := range fed {
		fedKeys[o.Ref().Key()] = true
	}
	for _, o := range in.objects {
		if !isODLM(o) || o.Kind() != kind {
			continue
		}
		if fedKeys[o.Ref().Key()] {
			continue // an OperandConfig resource updates this input: its rendered form counts
		}
		if o.APIVersion() != api.APIVersion {
			in.add(diag.Errorf(o, "apiVersion", "%s is not served by ODLM (want %s)", o.APIVersion(), api.APIVersion))
			continue
		}
		if o.Name() == "" {
			in.add(diag.Errorf(o, "metadata.name", "is required"))
			continue
		}
		if o.Namespace() == "" {
			in.add(diag.Errorf(o, "metadata.namespace", "is required: %s is namespaced (or give a default namespace)", kind))
			continue
		}
		// a local-config input (kpt keeps ODLM inputs that way) is never removed: in
		// `kpt fn render` removing an item deletes it from the user's files
		if !in.r.opts.KeepInputs && o.Annotations()[localConfigAnnotation] != "true" {
			in.consumed[o] = true
		}
		out = append(out, o)
	}
	// what the previous round emitted is reconciled too (docs/semantics.md, Decided deviations: emitted ODLM objects are reconciled); it stays in the output
	// because this round emits it again
	return append(out, fed...)
}

// decoded is an input's decoded spec, kept across rounds (the inputs do not change).
type decoded struct {
	value  reflect.Value // the decoded struct
	issues []api.FieldIssue
	err    error
}

// decodeSpec decodes an ODLM input's spec, turning unknown fields into warnings. The decoded
// value is shared with later rounds: callers copy what they change.
func (r *run) decodeSpec(o *manifest.Object, out any) bool {
	d, ok := r.cache.decodeCache[o]
	if !ok || d.value.Type() != reflect.TypeOf(out).Elem() {
		d = decoded{}
		d.issues, d.err = api.DecodeSpec(o, out)
		d.value = reflect.ValueOf(out).Elem()
		if r.cache.decodeCache != nil {
			r.cache.decodeCache[o] = d
		}
	} else {
		reflect.ValueOf(out).Elem().Set(d.value)
	}
	issues, err := d.issues, d.err
	if err != nil {
		var fe *api.FieldError
		if errors.As(err, &fe) {
			r.add(diag.Errorf(o, fe.Path, "%s", fe.Msg))
		} else {
			r.add(diag.Errorf(o, "spec", "%v", err))
		}
		return false
	}
	for _, is := range issues {
		near := ""
		if is.Near != "" {
			near = fmt.Sprintf(" (did you mean %q?)", is.Near)
		}
		if is.Strict {
			owner := "OLM's SubscriptionConfig"
			if is.Type != "SubscriptionConfig" {
				owner = fmt.Sprintf("a %s (in OLM's SubscriptionConfig)", is.Type)
			}
			r.add(diag.Errorf(o, is.Path, "unknown field%s: %s has no such field, so the API server would drop it and the operator would run without it", near, owner))
			continue
		}
		r.add(diag.Warnf(o, is.Path, "unknown field%s: the API server prunes it or ODLM ignores it, so it has no effect", near))
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

// updatedCopy is the object ODLM writes when it updates an existing one: a copy of it, and
// of an object read from a cluster, without what the cluster added (status, uid…).
func (r *run) updatedCopy(existing *manifest.Object) *manifest.Object {
	m := merge.DeepCopy(existing.Map).(map[string]any)
	if !r.lookups.isInput(existing) {
		m = cleanClusterFields(m)
	}
	obj := manifest.New(m)
	obj.Source = existing.Source
	return obj
}

// updated records that obj is what ODLM makes of an existing object: an input is replaced
// in the output; an object already in a cluster is emitted (the render owns it now).
func (r *run) updated(existing, obj *manifest.Object) {
	if r.lookups.isInput(existing) {
		r.pass.replaced[existing] = obj
		return
	}
	r.operators.updatedElsewhere = append(r.operators.updatedElsewhere, obj)
}

// madeAsController records an object the render makes as ODLM's controller (a Subscription,
// an OperatorGroup, a tracking ConfigMap, a CatalogSource), which templates read.
func (r *run) madeAsController(o *manifest.Object) *manifest.Object {
	r.operators.made[o.Ref().Key()] = o
	r.facts.of(o).roles |= madeAsController
	r.markIfMadeFromSecrets(o)
	return o
}

// markIfMadeFromSecrets marks all of an object ODLM's controller makes when an ODLM object it
// is made from may hold a Secret's value (secrets.go).
func (r *run) markIfMadeFromSecrets(o *manifest.Object) {
	if r.odlmCarriesSecrets() {
		r.cache.markSecretWhole(o)
	}
}

// madeByController records the object a plan writes as made by ODLM's controller, unless it
// updates an object an OperandConfig resource or alm-example emits (that one stays the
// resource's: the next round finds it again as existing).
func (r *run) madeByController(p *subscriptionPlan, obj *manifest.Object) *manifest.Object {
	if p.existing != nil && r.lookups.originOf[p.existing] == OriginRendered {
		r.operators.made[obj.Ref().Key()] = obj
		r.markIfMadeFromSecrets(obj)
		return obj
	}
	return r.madeAsController(obj)
}

// hashKey names an untemplated OperandConfig resource of an input (whose data is the same
// in every round).
type hashKey struct {
	config *manifest.Object
	field  string
}

type hashes struct{ data, route string }

// cachedResourceHashes is resourceHashes, computed once per render for the untemplated
// resources of input OperandConfigs.
func (rs *resourceRender) cachedResourceHashes(cfg *operandConfig, res *api.ConfigResource, data map[string]any, field string, templated bool) (string, string, bool) {
	r := rs.r
	cacheable := !templated && r.cache.hashCache != nil && r.lookups.isInput(cfg.obj) && !r.lookups.fedFromCarried(cfg.obj)
	k := hashKey{cfg.obj, field}
	if cacheable {
		if h, ok := r.cache.hashCache[k]; ok {
			return h.data, h.route, true
		}
	}
	hash, route, ok := rs.resourceHashes(cfg, res, data, field)
	if ok && cacheable {
		r.cache.hashCache[k] = hashes{hash, route}
	}
	return hash, route, ok
}

// fedFromCarried reports whether o is an ODLM object the previous round emitted.
func (l *lookups) fedFromCarried(o *manifest.Object) bool {
	return l.carried != nil && l.carried.odlmSet[o]
}

// odlmKinds are the kinds of ODLM's API, for typo checks.
var odlmKinds = []string{api.KindOperandRegistry, api.KindOperandConfig, api.KindOperandRequest, api.KindOperandBindInfo, api.KindOperatorConfig}

// checkKindTypo reports an object that is almost an ODLM input (docs/semantics.md, Decided deviations: nothing invalid, nothing silent): a kind one or two
// edits from an ODLM kind (any case) in ODLM's group, or an ODLM kind in a group one or two
// edits from ODLM's. ODLM would never see it, and everything it should render would be
// silently missing.
func (in *roundInputs) checkKindTypo(o *manifest.Object) {
	kind, group := o.Kind(), o.Group()
	if group == api.Group {
		if slices.Contains(odlmKinds, kind) {
			return
		}
		if near, ok := suggest.Closest(kind, odlmKinds); ok {
			in.add(diag.Errorf(o, "kind", "%s is not a kind of ODLM's API (did you mean %q?): ODLM would never read this object", kind, near))
		}
		return
	}
	for _, k := range odlmKinds {
		if strings.EqualFold(k, kind) {
			if _, ok := suggest.Closest(group, []string{api.Group}); ok {
				in.add(diag.Errorf(o, "apiVersion", "%s is not ODLM's API group (did you mean %q?): ODLM would never read this %s", o.APIVersion(), api.APIVersion, kind))
			}
			return
		}
	}
}
