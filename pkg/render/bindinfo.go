package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/objpath"
	"github.com/odlm-render/odlm-render/internal/suggest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// bindInfoStep renders the OperandBindInfos after the operands: the copies of Secrets and
// ConfigMaps (or ExternalSecrets and the Roles that let them read), and the results about
// sources that are missing (bindinfo_missing.go).
type bindInfoStep struct {
	r *run
	// grantRoles are the Roles the external-secrets mode writes, by key
	grantRoles map[manifest.Key]*manifest.Object
	// found are the results of the step, which renderBindInfos returns
	found diag.Results
}

var bindingKeyRe = regexp.MustCompile(`^(public|private|protected)`)

// operandBindInfo is a decoded OperandBindInfo.
type operandBindInfo struct {
	obj  *manifest.Object
	key  key
	spec api.OperandBindInfoSpec
	// missing are the sources not found, reported together (bindinfo_missing.go)
	missing []missingSource
}

// renderBindInfos renders the copies ODLM makes for every OperandBindInfo (docs/semantics.md, OperandBindInfo): into
// the namespace of every OperandRequest that names the bind info's operand under its
// registry, from the registry namespace. It returns what it found (a round runs it once).
func (bs *bindInfoStep) renderBindInfos() diag.Results {
	for _, o := range bs.r.inputs.odlmInputs(api.KindOperandBindInfo) {
		bi := &operandBindInfo{obj: o, key: key{o.Namespace(), o.Name()}}
		if !bs.r.decodeSpec(o, &bi.spec) {
			continue
		}
		bs.renderBindInfo(bi)
	}
	return bs.found
}

// add notes a result of the step.
func (bs *bindInfoStep) add(res diag.Result) { bs.found = append(bs.found, res) }

func (bs *bindInfoStep) renderBindInfo(bi *operandBindInfo) {
	o := bi.obj
	if bi.spec.Operand == "" || bi.spec.Registry == "" {
		for _, f := range [][2]string{{"operand", bi.spec.Operand}, {"registry", bi.spec.Registry}} {
			if f[1] == "" {
				bs.add(diag.Errorf(o, "spec."+f[0], "is required"))
			}
		}
		return
	}
	regNs := bi.spec.RegistryNamespace
	if regNs == "" {
		regNs = bi.key.Namespace
	}
	reg, present := bs.r.inputs.registryAt(key{regNs, bi.spec.Registry})
	if !present {
		bs.add(diag.Errorf(o, "spec.registry", "OperandRegistry %s/%s not found %s%s%s", regNs, bi.spec.Registry, bs.r.inputs.lookedIn(), suggest.DidYouMean(bi.spec.Registry, bs.r.inputs.registryNames(regNs)), bs.r.inputs.registryHint(bi.spec.Registry, regNs)))
	}
	if reg == nil {
		return
	}
	if _, ok := reg.byName[bi.spec.Operand]; !ok {
		bs.add(diag.Errorf(o, "spec.operand", "operator %q is not in OperandRegistry %s%s%s", bi.spec.Operand, reg.key, bs.r.lookups.fromCluster(reg.obj), suggest.DidYouMean(bi.spec.Operand, reg.names())))
		return
	}
	keys := manifest.SortedKeys(bi.spec.Bindings)
	for _, k := range keys {
		if !bindingKeyRe.MatchString(k) {
			bs.add(diag.Warnf(o, manifest.Field("spec.bindings", k), "ignored: ODLM only copies bindings whose key starts with public, private or protected"))
		}
	}
	for _, req := range bs.r.inputs.requestsOf(reg.key, bi.spec.Operand) {
		for _, k := range keys {
			if bindingKeyRe.MatchString(k) {
				bs.copyBinding(bi, reg, req, k)
			}
		}
	}
	bs.reportMissingSources(bi)
}

// requestsOf lists the OperandRequests with a block for the registry that names the operand
// (ODLM's registry status; scope, no-op and userManaged do not matter here).
func (in *roundInputs) requestsOf(reg key, operand string) []*operandRequest {
	var out []*operandRequest
	for _, req := range in.requests {
		for _, w := range req.wants {
			if w.registry.key == reg && w.operand.Name == operand {
				out = append(out, req)
				break
			}
		}
	}
	return out
}

// requestTargets returns the target names a request gives for a binding key: its blocks
// whose registry name equals the bind info's (ODLM does not compare the namespace) and
// operands named like the bind info's operand; later entries override earlier ones.
func requestTargets(req *operandRequest, bi *operandBindInfo, bindingKey string) (secret, configmap string) {
	for _, w := range req.wants {
		if w.registry.key.Name != bi.spec.Registry || w.operand.Name != bi.spec.Operand {
			continue
		}
		if b, ok := w.operand.Bindings[bindingKey]; ok {
			if b.Secret != "" {
				secret = b.Secret
			}
			if b.Configmap != "" {
				configmap = b.Configmap
			}
		}
	}
	return secret, configmap
}

func (bs *bindInfoStep) copyBinding(bi *operandBindInfo, reg *registry, req *operandRequest, bindingKey string) {
	b := bi.spec.Bindings[bindingKey]
	sourceNs, targetNs := reg.key.Namespace, req.key.Namespace
	if strings.HasPrefix(bindingKey, "private") && targetNs != sourceNs {
		return
	}
	public := strings.HasPrefix(bindingKey, "public")
	secretTarget, configmapTarget := requestTargets(req, bi, bindingKey)
	field := manifest.Field("spec.bindings", bindingKey)
	for _, c := range []struct {
		kind, source, target, field string
	}{
		{"Secret", b.Secret, secretTarget, field + ".secret"},
		{"ConfigMap", b.Configmap, configmapTarget, field + ".configmap"},
	} {
		if c.source == "" {
			continue
		}
		target := c.target
		if target == "" {
			if !public {
				continue // private and protected bindings need a name from the request
			}
			target = bi.key.Name + "-" + c.source
		}
		if target == c.source && targetNs == sourceNs {
			continue
		}
		bs.copyObject(binding{bi: bi, req: req, field: c.field, source: manifest.Ref{APIVersion: "v1", Kind: c.kind, Namespace: sourceNs, Name: c.source}}, key{Namespace: targetNs, Name: target})
	}
	if !public {
		return
	}
	if b.Route != nil && b.Route.Name != "" {
		bs.fieldConfigMap(binding{bi: bi, req: req, field: field + ".route", source: manifest.Ref{APIVersion: "route.openshift.io/v1", Kind: "Route", Namespace: sourceNs, Name: b.Route.Name}}, b.Route.Data)
	}
	if b.Service != nil && b.Service.Name != "" {
		bs.fieldConfigMap(binding{bi: bi, req: req, field: field + ".service", source: manifest.Ref{APIVersion: "v1", Kind: "Service", Namespace: sourceNs, Name: b.Service.Name}}, b.Service.Data)
	}
}

// bindInfoLabels are the source's labels with ODLM's copy labels on top.
func bindInfoLabels(bi *operandBindInfo, source map[string]any, watched bool) map[string]any {
	labels := map[string]any{}
	if l, ok := manifest.Get(source, "metadata", "labels").(map[string]any); ok {
		for k, v := range l {
			labels[k] = v
		}
	}
	labels[bi.key.Namespace+"."+bi.key.Name+"/bindinfo"] = "true"
	labels[naming.ManagedByOpbiLabel] = "copy"
	if watched {
		labels[naming.WatchedByODLMLabel] = "true"
	}
	return labels
}

// binding is one object a binding of an OperandBindInfo reads for a request: its source, at
// a field of the OperandBindInfo.
type binding struct {
	bi     *operandBindInfo
	req    *operandRequest
	field  string
	source manifest.Ref
}

// copyObject copies a Secret or ConfigMap from the registry namespace into the requester's.
func (bs *bindInfoStep) copyObject(b binding, target key) {
	src, _, found, err := bs.r.lookup("v1", b.source.Kind, b.source.Namespace, b.source.Name)
	if err != nil {
		bs.add(diag.Errorf(b.bi.obj, b.field, "reading %s %s/%s: %v", b.source.Kind, b.source.Namespace, b.source.Name, err))
		return
	}
	if !found {
		b.bi.missing = append(b.bi.missing, missingSource{field: b.field, kind: b.source.Kind, ref: b.source.Namespace + "/" + b.source.Name, request: b.req.key,
			msg: fmt.Sprintf("%s %s/%s not found (inputs, snapshot or cluster): no copy into namespace %s for OperandRequest %s", b.source.Kind, b.source.Namespace, b.source.Name, target.Namespace, b.req.key)})
		return
	}
	isSecret := secret.IsKind("v1", b.source.Kind)
	if isSecret {
		switch bs.r.opts.BindInfoSecrets {
		case BindInfoSkip:
			bs.add(diag.Infof(b.bi.obj, b.field, "Secret %s/%s is not copied to %s/%s (--bindinfo-secrets skip)", b.source.Namespace, b.source.Name, target.Namespace, target.Name))
			return
		case BindInfoExternalSecrets:
			bs.externalSecret(b, src, target)
			return
		}
	}
	obj := manifest.New(map[string]any{
		"apiVersion": "v1",
		"kind":       b.source.Kind,
		"metadata": map[string]any{
			"name":      target.Name,
			"namespace": target.Namespace,
			"labels":    bindInfoLabels(b.bi, src, true),
		},
	})
	fields := []string{"data", "binaryData"}
	if isSecret {
		fields = []string{"type", "data", "stringData"}
	}
	for _, f := range fields {
		if v, ok := src[f]; ok {
			obj.Map[f] = merge.DeepCopy(v)
		}
	}
	// the copy's fields are at the source's paths: its marks are the source's
	marks := bs.copyMarks(b.bi, b.req)
	marks.AddAll(bs.r.cache.secretFieldsOf(manifest.New(src)))
	bs.r.cache.markSecret(obj, marks)
	bs.emitCopy(b.bi, b.field, obj)
}

// copyMarks are the marks every copy for a request gets: all of it when the OperandBindInfo
// or the OperandRequest (an ODLM object the previous round emitted) holds a Secret's value,
// since their fields name the copies and what goes into them.
func (bs *bindInfoStep) copyMarks(bi *operandBindInfo, req *operandRequest) secret.Fields {
	var marks secret.Fields
	if !bs.r.cache.secretFieldsOf(bi.obj).Empty() || !bs.r.cache.secretFieldsOf(req.obj).Empty() {
		marks.Add(nil)
	}
	return marks
}

// emitCopy adds a bind-info copy, replacing an input of the same identity (ODLM overwrites
// an existing target) and keeping the first of two different copies to one target.
func (bs *bindInfoStep) emitCopy(bi *operandBindInfo, field string, obj *manifest.Object) {
	bs.r.facts.of(obj).roles |= bindInfoCopy
	k := obj.Ref().Key()
	if prev, ok := bs.r.pass.rendered[k]; ok {
		if !merge.Equal(prev.Map, obj.Map) {
			bs.add(diag.Warnf(bi.obj, field, "%s is also rendered from another source; the first one is kept", obj.Ref()))
		}
		return
	}
	if in, ok := bs.r.inputs.byRef[k]; ok {
		obj.Source = in.Source
		bs.r.pass.replaced[in] = obj
		bs.r.pass.rendered[k] = obj
		return
	}
	bs.r.emit(obj)
}

// fieldConfigMap is a route or service binding: a ConfigMap named <bindinfo>-<name> whose
// data maps each key to a field of the Route's or Service's spec.
func (bs *bindInfoStep) fieldConfigMap(b binding, data map[string]string) {
	src, _, found, err := bs.r.lookup(b.source.APIVersion, b.source.Kind, b.source.Namespace, b.source.Name)
	if err != nil {
		bs.add(diag.Errorf(b.bi.obj, b.field, "reading %s %s/%s: %v", b.source.Kind, b.source.Namespace, b.source.Name, err))
		return
	}
	if !found {
		b.bi.missing = append(b.bi.missing, missingSource{field: b.field, kind: b.source.Kind, ref: b.source.Namespace + "/" + b.source.Name, request: b.req.key,
			msg: fmt.Sprintf("%s %s/%s not found (inputs, snapshot or cluster): no ConfigMap of its fields in namespace %s for OperandRequest %s", b.source.Kind, b.source.Namespace, b.source.Name, b.req.key.Namespace, b.req.key)})
		return
	}
	out := map[string]any{}
	srcMarks := bs.r.cache.secretFieldsOf(manifest.New(src))
	marks := bs.copyMarks(b.bi, b.req)
	marks.AddAll(srcMarks.Under(labelsPath).Prefixed(labelsPath))
	for _, k := range manifest.SortedKeys(data) {
		var v string
		var err error
		if b.source.Kind == "Route" {
			v, err = routeField(src, data[k])
		} else {
			v, err = objpath.Evaluate(data[k], src)
			if err == nil && v == "" {
				err = fmt.Errorf("path %q is empty: one of its JSONPath parts (every part that starts with \".\", literals like \".svc\" too) finds no field, which empties the whole path", data[k])
			}
		}
		if err != nil {
			bs.add(diag.Errorf(b.bi.obj, manifest.Field(b.field+".data", k), "%s %s/%s: %v", b.source.Kind, b.source.Namespace, b.source.Name, err))
			return
		}
		out[k] = v
		if readsMarked(srcMarks, b.source.Kind, data[k]) {
			marks.Add([]manifest.PathStep{{Key: "data"}, {Key: k}})
		}
	}
	obj := manifest.New(map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      b.bi.key.Name + "-" + b.source.Name,
			"namespace": b.req.key.Namespace,
			"labels":    bindInfoLabels(b.bi, src, false),
		},
		"data": out,
	})
	bs.r.cache.markSecret(obj, marks)
	bs.emitCopy(b.bi, b.field, obj)
}

// readsMarked reports whether a route or service binding's path reads a marked field of its
// source: a Route's path is dotted keys (routeField), a Service's an objpath path.
func readsMarked(marks secret.Fields, kind, path string) bool {
	if kind != "Route" {
		return marks.ReadBy(path)
	}
	var steps []manifest.PathStep
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		steps = append(steps, manifest.PathStep{Key: k})
	}
	return marks.Overlaps(steps)
}

// labelsPath is metadata.labels, which bind-info copies take from their source.
var labelsPath = []manifest.PathStep{{Key: "metadata"}, {Key: "labels"}}

// routeField reads a dotted path that must start with .spec. from a Route, printing basic
// types as ODLM does (integers %d, floats %f, booleans true/false).
func routeField(route map[string]any, path string) (string, error) {
	if !strings.HasPrefix(path, ".spec.") {
		return "", fmt.Errorf("path %q must start with .spec.", path) //nolint:staticcheck // ST1005: the final period is the prefix's
	}
	var cur any = route
	for _, part := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", fmt.Errorf("no field %s", path)
		}
		if cur, ok = m[part]; !ok {
			return "", fmt.Errorf("no field %s", path)
		}
	}
	switch v := cur.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
		f, err := v.Float64()
		if err != nil {
			return "", fmt.Errorf("field %s: %w", path, err)
		}
		return strconv.FormatFloat(f, 'f', 6, 64), nil
	}
	return "", fmt.Errorf("field %s is not a string, number or boolean", path)
}

// externalSecret emits, instead of a copy with data, an External Secrets Operator
// ExternalSecret that reads the source Secret at run time through a SecretStore of ESO's
// kubernetes provider, with the least RBAC it needs: a ServiceAccount in the target
// namespace allowed to get exactly the source Secrets in the source namespace. Its template
// holds the Secret's labels and type, so it is marked as holding a Secret's value.
func (bs *bindInfoStep) externalSecret(b binding, src map[string]any, target key) {
	store := "odlm-bindinfo-" + b.source.Namespace
	template := map[string]any{
		"metadata": map[string]any{"labels": bindInfoLabels(b.bi, src, true)},
	}
	if t, ok := src["type"].(string); ok && t != "" {
		template["type"] = t
	}
	es := manifest.New(map[string]any{
		"apiVersion": "external-secrets.io/v1",
		"kind":       "ExternalSecret",
		"metadata":   map[string]any{"name": target.Name, "namespace": target.Namespace},
		"spec": map[string]any{
			"refreshInterval": "1h",
			"secretStoreRef":  map[string]any{"kind": "SecretStore", "name": store},
			"target": map[string]any{
				"name":           target.Name,
				"creationPolicy": "Owner",
				"template":       template,
			},
			"dataFrom": []any{map[string]any{"extract": map[string]any{"key": b.source.Name}}},
		},
	})
	marks := bs.copyMarks(b.bi, b.req)
	marks.Add([]manifest.PathStep{{Key: "spec"}, {Key: "target"}, {Key: "template"}})
	bs.r.cache.markSecret(es, marks)
	bs.emitCopy(b.bi, "", es)
	bs.emitBindInfoObject(manifest.New(map[string]any{
		"apiVersion": "external-secrets.io/v1",
		"kind":       "SecretStore",
		"metadata":   map[string]any{"name": store, "namespace": target.Namespace},
		"spec": map[string]any{
			"provider": map[string]any{
				"kubernetes": map[string]any{
					"remoteNamespace": b.source.Namespace,
					"server": map[string]any{
						"caProvider": map[string]any{"type": "ConfigMap", "name": "kube-root-ca.crt", "key": "ca.crt"},
					},
					"auth": map[string]any{"serviceAccount": map[string]any{"name": store}},
				},
			},
		},
	}))
	bs.emitBindInfoObject(manifest.New(map[string]any{
		"apiVersion": "v1",
		"kind":       "ServiceAccount",
		"metadata":   map[string]any{"name": store, "namespace": target.Namespace},
	}))
	bs.grantSecretRead(b.bi, b.source.Namespace, target.Namespace, store, b.source.Name)
}

// emitBindInfoObject emits an object that belongs to bind-info output (for ordering).
func (bs *bindInfoStep) emitBindInfoObject(o *manifest.Object) {
	bs.r.facts.of(o).roles |= bindInfoCopy
	bs.r.emit(o)
}

// grantSecretRead adds source to the Role in sourceNs that lets the target namespace's
// ServiceAccount get exactly the Secrets copied to it.
func (bs *bindInfoStep) grantSecretRead(bi *operandBindInfo, sourceNs, targetNs, serviceAccount, source string) {
	name := "odlm-bindinfo-" + targetNs
	role := manifest.Ref{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role", Namespace: sourceNs, Name: name}
	obj, ok := bs.grantRoles[role.Key()]
	if !ok {
		// the name is the render's: another object under it would be merged into or hidden
		// behind the Role that lets the ExternalSecret read the source
		for _, taken := range []*manifest.Object{bs.r.pass.rendered[role.Key()], bs.r.inputs.byRef[role.Key()]} {
			if taken != nil {
				by := where(taken)
				if p, ok := bs.r.facts.producerOf(taken); ok {
					by = fmt.Sprintf("OperandConfig %s/%s %s", p.config.Namespace(), p.config.Name(), p.field)
				}
				bs.add(diag.Errorf(bi.obj, "spec.bindings", "--bindinfo-secrets external-secrets needs %s for reading the copied Secrets, but %s already defines it: rename that object", role, by))
				return
			}
		}
		if bs.grantRoles == nil {
			bs.grantRoles = map[manifest.Key]*manifest.Object{}
		}
		obj = manifest.New(map[string]any{
			"apiVersion": role.APIVersion,
			"kind":       "Role",
			"metadata":   map[string]any{"name": name, "namespace": sourceNs},
			"rules": []any{map[string]any{
				"apiGroups":     []any{""},
				"resources":     []any{"secrets"},
				"verbs":         []any{"get"},
				"resourceNames": []any{},
			}},
		})
		bs.grantRoles[role.Key()] = obj
		bs.emitBindInfoObject(obj)
		bs.emitBindInfoObject(manifest.New(map[string]any{
			"apiVersion": role.APIVersion,
			"kind":       "RoleBinding",
			"metadata":   map[string]any{"name": name, "namespace": sourceNs},
			"roleRef":    map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
			"subjects":   []any{map[string]any{"kind": "ServiceAccount", "name": serviceAccount, "namespace": targetNs}},
		}))
	}
	rule := obj.Map["rules"].([]any)[0].(map[string]any)
	names := rule["resourceNames"].([]any)
	for _, n := range names {
		if n == source {
			return
		}
	}
	names = append(names, source)
	sort.Slice(names, func(i, j int) bool { return names[i].(string) < names[j].(string) })
	rule["resourceNames"] = names
}
