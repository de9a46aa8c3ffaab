package render

import (
	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/objpath"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// resourceRender renders one OperandConfig service's resources (docs/semantics.md,
// OperandConfig resources): created, or updated when ODLM labels an existing one, with their
// templates resolved and optional fields applied. It is made for one service, and holds what
// it found.
type resourceRender struct {
	r     *run
	found diag.Results
}

// renderResources renders the `resources` of one OperandConfig service in r's operand pass,
// and returns what it found.
func renderResources(r *run, cfg *operandConfig, svc *api.ConfigService, si int) diag.Results {
	rs := &resourceRender{r: r}
	for ri := range svc.Resources {
		rs.renderResource(cfg, &svc.Resources[ri], manifest.Field("spec.services", si, "resources", ri))
	}
	return rs.found
}

// add notes a result of the service's resources.
func (rs *resourceRender) add(res diag.Result) { rs.found = append(rs.found, res) }

func (rs *resourceRender) renderResource(cfg *operandConfig, res *api.ConfigResource, field string) {
	in, ok := rs.prepare(cfg, res, field)
	if !ok {
		return
	}
	if len(res.OwnerReferences) > 0 {
		rs.add(diag.Infof(cfg.obj, field+".ownerReferences", "not rendered: an owner reference needs the owner's uid, which exists only in a cluster; GitOps tools track ownership themselves"))
	}
	if existing, exists := rs.r.inputs.byRef[in.ref.Key()]; exists {
		rs.r.cache.markSecret(rs.updateResource(configResource{cfg, res, field}, existing, in), in.marks)
		return
	}
	rs.r.operands.replaceRequestCR(in.ref, schemaAnchor{about: cfg.obj, field: field, data: true}) // samename.go
	if _, dup := rs.r.pass.rendered[in.ref.Key()]; dup {
		rs.add(diag.Warnf(cfg.obj, field, "%s is already rendered from another OperandConfig resource; the first one wins", in.ref))
		return
	}
	if rs.leftAlone(cfg, res, field, in.ref) {
		return
	}
	obj, ok := rs.newObject(cfg, res, field, in)
	if !ok {
		return
	}
	rs.finishResource(configResource{cfg, res, field}, obj, in, true)
	if !rs.applicable(cfg, field, obj) {
		return
	}
	facts := rs.r.facts.of(obj)
	facts.producer = &producer{config: cfg.obj, field: field, data: true}
	facts.anchor = &schemaAnchor{about: cfg.obj, field: field, data: true}
	rs.r.cache.markSecret(obj, in.marks)
	rs.r.emit(obj)
}

// resourceInput is a resource's object as its OperandConfig gives it: where it goes, its
// data with templates resolved, the Secret values in it, and ODLM's hash annotations.
type resourceInput struct {
	ref             manifest.Ref
	namespace       string
	data            map[string]any
	marks           secret.Fields
	hash, routeHash string
}

// prepare reads a resource's data and resolves its templates; false when the resource is not
// rendered (reported).
func (rs *resourceRender) prepare(cfg *operandConfig, res *api.ConfigResource, field string) (resourceInput, bool) {
	var in resourceInput
	if res.Name == "" || res.Kind == "" || res.APIVersion == "" {
		return in, false // reported while loading
	}
	in.namespace = res.Namespace
	if in.namespace == "" {
		in.namespace = cfg.key.Namespace
	}
	if !res.Data.IsNull() {
		m, ok := res.Data.Value.(map[string]any)
		if !ok {
			rs.add(diag.Errorf(cfg.obj, field+".data", "must be a mapping of the object's top-level fields"))
			return in, false
		}
		in.data = m
	}
	in.ref = manifest.Ref{APIVersion: res.APIVersion, Kind: res.Kind, Namespace: in.namespace, Name: res.Name}
	if rs.r.kinds.clusterScoped(res.APIVersion, res.Kind) {
		in.ref.Namespace = ""
	}
	templated := in.data != nil && containsTemplate(in.data)
	// data's fields are the object's: marks in data mark the same paths of the object
	in.marks = rs.r.cache.secretFieldsUnder(cfg.obj, field+".data")
	if templated {
		resolved, m, ok := rs.r.templates.resolve(site{config: cfg, field: field + ".data", what: in.ref.String(), outputs: []manifest.Ref{in.ref}, secretsAllowed: secret.IsKind(res.APIVersion, res.Kind)}, in.data)
		if !ok {
			return in, false
		}
		in.data, _ = resolved.(map[string]any)
		in.marks = m
	}
	var ok bool
	in.hash, in.routeHash, ok = rs.cachedResourceHashes(cfg, res, in.data, field, templated || in.data == nil)
	return in, ok
}

// leftAlone reports a resource whose object exists in the cluster and that ODLM leaves
// unchanged: it updates an existing object only with force and its label (or the resource's
// labels adopting it); one with the label is what this render emitted before.
func (rs *resourceRender) leftAlone(cfg *operandConfig, res *api.ConfigResource, field string, ref manifest.Ref) bool {
	o := rs.r.clusterObject(ref, cfg.obj, field)
	if o == nil {
		return false
	}
	_, odlm := o.Labels()[naming.ControlLabel]
	switch {
	case !odlm && res.Labels[naming.ControlLabel] != "true":
		rs.add(diag.Infof(cfg.obj, field, "%s exists in the %s without ODLM's label: ODLM leaves it unchanged, so it is not rendered", ref, rs.r.lookups.originOf[o]))
		return true
	case !odlm && res.Force != nil && !*res.Force:
		rs.add(diag.Infof(cfg.obj, field+".force", "%s exists in the %s and force is false: ODLM leaves it unchanged, so it is not rendered", ref, rs.r.lookups.originOf[o]))
		return true
	}
	return false
}

// newObject is the object a resource creates: its data's fields under the resource's
// apiVersion, kind, name and namespace (data.metadata replaces the metadata).
func (rs *resourceRender) newObject(cfg *operandConfig, res *api.ConfigResource, field string, in resourceInput) (*manifest.Object, bool) {
	obj := manifest.New(map[string]any{
		"apiVersion": res.APIVersion,
		"kind":       res.Kind,
		"metadata":   map[string]any{"name": res.Name, "namespace": in.namespace},
	})
	for k, v := range in.data {
		// what the render changes afterwards is copied (metadata; any field optionalFields
		// may remove); the rest is shared with the input, which nothing modifies
		if k == "metadata" || len(res.OptionalFields) > 0 {
			v = merge.DeepCopy(v)
		}
		obj.Map[k] = v
	}
	if _, ok := obj.Map["metadata"].(map[string]any); !ok {
		rs.add(diag.Errorf(cfg.obj, field+".data.metadata", "must be a mapping"))
		return nil, false
	}
	if obj.Name() == "" {
		rs.add(diag.Errorf(cfg.obj, field+".data.metadata", "replaces the object's metadata but has no name"))
		return nil, false
	}
	if rs.r.kinds.clusterScoped(obj.APIVersion(), obj.Kind()) {
		delete(obj.Map["metadata"].(map[string]any), "namespace")
	}
	return obj, true
}

// applicable rejects an object the API server would refuse (docs/semantics.md, Decided deviations: nothing invalid, nothing silent): no name (optionalFields
// may remove .metadata), or no kind or apiVersion left.
func (rs *resourceRender) applicable(cfg *operandConfig, field string, obj *manifest.Object) bool {
	for _, f := range []struct{ name, value string }{{"apiVersion", obj.APIVersion()}, {"kind", obj.Kind()}, {"metadata.name", obj.Name()}} {
		if f.value == "" {
			rs.add(diag.Errorf(cfg.obj, field, "renders an object without %s (data or optionalFields removed it): the API server refuses it, and so does ODLM", f.name))
			return false
		}
	}
	return true
}

// resourceHashes computes the hash annotations ODLM writes (before optional fields apply).
func (rs *resourceRender) resourceHashes(cfg *operandConfig, res *api.ConfigResource, data map[string]any, field string) (string, string, bool) {
	if data == nil {
		return "", "", true
	}
	hash, err := naming.DataHash(data)
	if err != nil {
		rs.add(diag.Errorf(cfg.obj, field+".data", "%v", err))
		return "", "", false
	}
	routeHash := ""
	if res.Kind == "Route" {
		spec, ok := data["spec"].(map[string]any)
		if !ok {
			rs.add(diag.Errorf(cfg.obj, field+".data.spec", "a Route resource needs a spec mapping (the controller crashes without one)"))
			return "", "", false
		}
		if host, ok := spec["host"].(string); ok {
			routeHash = naming.TextHash(host)
		}
	}
	return hash, routeHash, true
}

// configResource is one resource of an OperandConfig service, at its field.
type configResource struct {
	cfg   *operandConfig
	res   *api.ConfigResource
	field string
}

// finishResource applies optional fields, labels, annotations (steps 4 and 5 of the
// create path; the update path shares it without re-adding ODLM's label), and the hash
// annotations of in.
func (rs *resourceRender) finishResource(cr configResource, obj *manifest.Object, in resourceInput, create bool) {
	cfg, res, field := cr.cfg, cr.res, cr.field
	hash, routeHash := in.hash, in.routeHash
	rs.applyOptionalFields(cfg, res, field, obj)
	// metadata.labels or .annotations that are not mappings: ODLM's own replace them (a
	// warning), or the API server refuses the object (an error)
	for _, f := range []struct {
		name     string
		replaced bool
	}{
		{"labels", create || len(res.Labels) > 0},
		{"annotations", len(res.Annotations) > 0 || hash != "" || routeHash != ""},
	} {
		if v := manifest.Get(obj.Map, "metadata", f.name); v != nil {
			if _, ok := v.(map[string]any); !ok {
				if f.replaced {
					rs.add(diag.Warnf(cfg.obj, field, "%s: metadata.%s is not a mapping: it is replaced by ODLM's %s", obj.Ref(), f.name, f.name))
				} else {
					rs.add(diag.Errorf(cfg.obj, field, "%s: metadata.%s is not a mapping: the API server refuses the object", obj.Ref(), f.name))
				}
			}
		}
	}
	if create {
		obj.SetMetadataString("labels", naming.ControlLabel, "true")
	}
	for _, k := range manifest.SortedKeys(res.Labels) {
		obj.SetMetadataString("labels", k, res.Labels[k])
	}
	for _, k := range manifest.SortedKeys(res.Annotations) {
		obj.SetMetadataString("annotations", k, res.Annotations[k])
	}
	if hash != "" {
		obj.SetMetadataString("annotations", naming.HashedDataAnnotation, hash)
	}
	if routeHash != "" {
		obj.SetMetadataString("annotations", naming.RouteHashAnnotation, routeHash)
	}
}

// updateResource is what ODLM does to a resource that already exists (here: among the
// inputs), with the resource's data and hashes (resource). It returns the updated object,
// nil when ODLM leaves the input unchanged.
func (rs *resourceRender) updateResource(cr configResource, in *manifest.Object, resource resourceInput) *manifest.Object {
	cfg, res, field := cr.cfg, cr.res, cr.field
	data, hash := resource.data, resource.hash
	if res.Force != nil && !*res.Force {
		rs.add(diag.Infof(cfg.obj, field+".force", "%s exists among the inputs and force is false: ODLM leaves it unchanged", in.Ref()))
		return nil
	}
	_, odlm := in.Labels()[naming.ControlLabel]
	if !odlm && res.Labels[naming.ControlLabel] != "true" {
		rs.add(diag.Infof(cfg.obj, field, "%s exists among the inputs without ODLM's label: ODLM leaves it unchanged", in.Ref()))
		return nil
	}
	obj := manifest.New(merge.DeepCopy(in.Map).(map[string]any))
	obj.Source = in.Source
	if data != nil {
		if in.Annotations()[naming.HashedDataAnnotation] != hash {
			for k, v := range data {
				obj.Map[k] = merge.DeepCopy(v)
			}
		} else {
			merged, err := merge.Merge(obj.Map, data)
			if err != nil {
				rs.add(diag.Errorf(cfg.obj, field+".data", "%v", err))
				return nil
			}
			obj.Map = merged.(map[string]any)
		}
	}
	rs.finishResource(cr, obj, resource, false)
	if !rs.applicable(cfg, field, obj) {
		return nil
	}
	rs.r.facts.of(obj).producer = &producer{config: cfg.obj, field: field, data: true}
	rs.r.pass.replaced[in] = obj
	rs.r.pass.rendered[in.Ref().Key()] = obj
	return obj
}

// applyOptionalFields runs optionalFields with operation remove (the only one ODLM
// implements), gated by matchExpressions read through the one look-up order (docs/semantics.md, Decided deviations: one look-up order).
func (rs *resourceRender) applyOptionalFields(cfg *operandConfig, res *api.ConfigResource, field string, obj *manifest.Object) {
	for i, of := range res.OptionalFields {
		ofField := manifest.Field(field+".optionalFields", i)
		value, err := objpath.Evaluate(of.Path, obj.Map)
		if err != nil {
			rs.add(diag.Warnf(cfg.obj, ofField+".path", "%q cannot be evaluated on %s, so this optional field is skipped (as in ODLM): %v", of.Path, obj.Ref(), err))
			continue
		}
		if value == "" {
			continue
		}
		if of.MatchExpressions != nil && !rs.matchExpressions(cfg, ofField, of.MatchExpressions) {
			continue
		}
		switch of.Operation {
		case "remove":
			objpath.Remove(obj.Map, of.Path)
		default:
			rs.add(diag.Warnf(cfg.obj, ofField+".operation", "operation %q is not implemented by ODLM (only remove): no effect", of.Operation))
		}
	}
}

// matchExpressions is ODLM's findMatchExpressions: order-dependent, skipping invalid
// expressions and objects that cannot be found.
func (rs *resourceRender) matchExpressions(cfg *operandConfig, field string, exprs []api.MatchExpression) bool {
	matched := false
	for j, ex := range exprs {
		exField := manifest.Field(field+".matchExpressions", j)
		if ex.Key == "" || ex.Operator == "" || ex.ObjectRef == nil {
			rs.add(diag.Warnf(cfg.obj, exField, "needs key, operator and objectRef: ODLM skips this expression"))
			continue
		}
		ref := ex.ObjectRef
		if err := secret.CheckAPIVersion(ref.APIVersion); err != nil {
			rs.add(diag.Warnf(cfg.obj, exField+".objectRef.apiVersion", "%v: reading %s fails, so this expression is skipped (as ODLM skips objects it cannot get)", err, manifest.Ref{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}))
			continue
		}
		obj, _, found, err := rs.r.lookup(ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
		if err != nil {
			rs.add(diag.Warnf(cfg.obj, exField+".objectRef", "reading %s failed, so this expression is skipped (as ODLM skips objects it cannot get): %v", manifest.Ref{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}, err))
			continue
		}
		if !found {
			continue
		}
		value, err := objpath.Evaluate(ex.Key, obj)
		if err != nil {
			rs.add(diag.Warnf(cfg.obj, exField+".key", "%q cannot be evaluated on %s, so it reads as empty (as in ODLM): %v", ex.Key, manifest.Ref{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}, err))
			value = ""
		}
		switch ex.Operator {
		case "In":
			for _, v := range ex.Values {
				if v == value {
					return true
				}
			}
		case "NotIn":
			for _, v := range ex.Values {
				if v == value {
					return false
				}
			}
			matched = true
		case "Exists":
			if value != "" {
				return true
			}
		case "DoesNotExist":
			if value != "" {
				return false
			}
			matched = true
		default:
			rs.add(diag.Warnf(cfg.obj, exField+".operator", "unknown operator %q (In, NotIn, Exists, DoesNotExist): ODLM ignores this expression", ex.Operator))
		}
	}
	return matched
}
