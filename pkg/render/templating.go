package render

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/template"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// templating resolves templatingValueFrom for the operands step, and keeps what resolving
// needs beyond one value: the values pending until run time, the objects templates
// referenced (marked on output), and the kinds and namespaces the render installs.
type templating struct{ r *run }

// OriginRendered names objects the render itself produces, in explanations.
const OriginRendered cluster.Origin = "rendered"

// maxPasses bounds the fixed-point evaluation of templates that read rendered objects.
const maxPasses = 20

// site is one place templates are evaluated: a service spec (all its CRs wait together) or
// one resource's data.
type site struct {
	config *operandConfig
	field  string // field of the template root, e.g. spec.services[0].spec
	what   string // "the CRs of service x" or "ConfigMap ns/name"
	// outputs are the objects the site renders once its templates resolve
	outputs []manifest.Ref
	// secretsAllowed is set for a Secret resource, which may carry Secret values
	secretsAllowed bool
}

// pendingValue is a site waiting for a required value that does not exist yet.
type pendingValue struct {
	site site
	err  *template.Error
}

// templateReader reads what templates refer to: the objects this render produces (this
// pass, then the previous one), the inputs, then Options.Sources (snapshot, live).
type templateReader struct {
	r       *run
	origins map[manifest.Key]cluster.Origin // by Source key, for explanations
}

// Get reads an object with the marks of the fields where the render wrote a Secret's value
// (secrets.go), found by the object's own identity (a namespaced reference may find a
// cluster-scoped object).
func (tr *templateReader) Get(apiVersion, kind, namespace, name string) (template.Read, error) {
	obj, origin, found, err := tr.r.lookup(apiVersion, kind, namespace, name)
	if err != nil || !found || obj == nil {
		return template.Read{}, err
	}
	tr.origins[sourceKey(apiVersion, kind, namespace, name)] = origin
	return template.Read{Object: obj, Secret: tr.r.cache.secretFieldsOf(manifest.New(obj))}, nil
}

func sourceKey(apiVersion, kind, namespace, name string) manifest.Key {
	return manifest.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name}.Key()
}

type cachedRead struct {
	obj    map[string]any
	origin cluster.Origin
	found  bool
	err    error
}

// resolve evaluates the templates under value for a site. ok is false when the site must not
// be rendered: an error was reported, or the site waits for a pending value. marks are the
// fields of the result that hold a Secret's value, relative to value: the templates that
// resolved from one, and the fields the config itself carries marked (an OperandConfig the
// previous round emitted).
func (tp *templating) resolve(s site, value any) (out any, marks secret.Fields, ok bool) {
	marks = tp.r.cache.secretFieldsUnder(s.config.obj, s.field)
	if !containsTemplate(value) {
		return value, marks, true
	}
	tr := &templateReader{r: tp.r, origins: map[manifest.Key]cluster.Origin{}}
	out, uses, err := template.Resolve(value, template.Context{Namespace: s.config.key.Namespace, Reader: tr})
	if err != nil {
		tp.templateFailed(s, err)
		return nil, marks, false
	}
	ok = true
	for _, u := range uses {
		tp.noteReferences(s.config, u)
		if u.Secret {
			marks.Add(u.Steps)
			tp.r.cache.noteSecretValue(out, u.Steps)
		}
		field := joinField(s.field, u.Path)
		if u.Secret && tp.r.opts.Secrets == SecretsForbid && !s.secretsAllowed {
			tp.r.add(diag.Errorf(s.config.obj, field, "takes a value from a Secret into %s: not allowed with --secrets forbid", s.what))
			ok = false
			continue
		}
		if tp.r.opts.Explain {
			tp.r.add(diag.Infof(s.config.obj, field, "%s", explainUse(u, tr.origins)))
		}
	}
	return out, marks, ok
}

// templateFailed reports a template error, or records the site as waiting for a required
// value that may exist only at run time.
func (tp *templating) templateFailed(s site, err error) {
	var te *template.Error
	if errors.As(err, &te) && te.Required && te.Ref != nil {
		tp.r.pass.pending = append(tp.r.pass.pending, pendingValue{site: s, err: te})
		return
	}
	field := s.field
	if te != nil && te.Path != "" {
		field = joinField(s.field, te.Path)
	}
	msg := err.Error()
	if te != nil {
		msg = te.Msg
	}
	tp.r.add(diag.Errorf(s.config.obj, field, "templatingValueFrom: %s", msg))
}

func joinField(base, sub string) string {
	if sub == "" {
		return base
	}
	if strings.HasPrefix(sub, "[") {
		return base + sub
	}
	return base + "." + sub
}

// explainUse says where a value came from, never showing a Secret's value.
func explainUse(u template.Use, origins map[manifest.Key]cluster.Origin) string {
	var from []string
	for _, s := range u.Sources {
		desc := s.String()
		var notes []string
		if !s.Found {
			notes = append(notes, "not found")
		} else if o, ok := origins[sourceKey(s.APIVersion, s.Kind, s.Namespace, s.Name)]; ok {
			notes = append(notes, string(o))
		}
		if s.Tainted {
			notes = append(notes, "holds a value from a Secret")
		}
		if len(notes) > 0 {
			desc += " (" + strings.Join(notes, "; ") + ")"
		}
		from = append(from, desc)
	}
	value := fmt.Sprintf("%q", u.Value)
	if u.Secret {
		value = "a value from a Secret (not shown)"
	}
	if len(from) == 0 {
		return "templatingValueFrom resolved to " + value + " (no object read)"
	}
	return "templatingValueFrom resolved to " + value + " from " + strings.Join(from, ", ")
}

// containsTemplate reports whether a value holds a templatingValueFrom key anywhere.
func containsTemplate(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[template.Key]; ok {
			return true
		}
		for _, e := range v {
			if containsTemplate(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if containsTemplate(e) {
				return true
			}
		}
	}
	return false
}

// reportPending turns the pending values of the final pass into results: a warning when
// the value will exist at run time (the referenced object is rendered, or is of a kind an
// operator being installed creates), an error otherwise, for a reference cycle, or with
// --pending error.
func (tp *templating) reportPending() {
	if cycle := tp.pendingCycle(); cycle != "" {
		p := tp.r.pass.pending[0]
		tp.r.add(diag.Errorf(p.site.config.obj, p.site.field, "templatingValueFrom reference cycle: %s", cycle))
		return
	}
	for _, p := range tp.r.pass.pending {
		field := joinField(p.site.field, p.err.Path)
		ref := p.err.Ref.String()
		switch {
		case !tp.producedAtRuntime(p):
			tp.r.add(diag.Errorf(p.site.config.obj, field, "templatingValueFrom: required value from %s is empty, and nothing the render installs produces it", ref))
		case tp.r.opts.Pending == PendingError:
			tp.r.add(diag.Errorf(p.site.config.obj, field, "templatingValueFrom: required value from %s exists only once the rendered objects are applied (--pending error)", ref))
		default:
			tp.r.add(diag.Warnf(p.site.config.obj, field, "templatingValueFrom: %s is left out until %s has this value (it exists only once the rendered objects are applied); render again with --snapshot or --live to complete it", p.site.what, ref))
		}
	}
}

// producedAtRuntime reports whether the object a pending value waits for is one the render
// emits (or would emit once another pending value resolves), one of a kind a bundle being
// installed provides, or a Secret, ConfigMap, Service or Route in a namespace the render
// installs operators or operands into (operators create those).
func (tp *templating) producedAtRuntime(p pendingValue) bool {
	src := p.err.Ref
	k := sourceKey(src.APIVersion, src.Kind, src.Namespace, src.Name)
	if _, ok := tp.r.pass.rendered[k]; ok {
		return true
	}
	for _, q := range tp.r.pass.pending {
		for _, out := range q.site.outputs {
			if out.Key() == k {
				return true
			}
		}
	}
	group, _, found := strings.Cut(src.APIVersion, "/")
	if !found {
		group = ""
	}
	if tp.r.kinds.providedKinds[manifest.GroupKind{Group: group, Kind: src.Kind}] {
		return true
	}
	switch src.Kind {
	case "Secret", "ConfigMap", "Service", "Route":
		return tp.r.kinds.installNamespaces[src.Namespace]
	}
	return false
}

// pendingCycle finds pending sites that wait for each other and describes the cycle.
func (tp *templating) pendingCycle() string {
	waitsFor := map[int][]int{}
	for i, p := range tp.r.pass.pending {
		k := sourceKey(p.err.Ref.APIVersion, p.err.Ref.Kind, p.err.Ref.Namespace, p.err.Ref.Name)
		for j, q := range tp.r.pass.pending {
			for _, out := range q.site.outputs {
				if out.Key() == k {
					waitsFor[i] = append(waitsFor[i], j)
				}
			}
		}
	}
	state := make([]int, len(tp.r.pass.pending)) // 0 new, 1 on stack, 2 done
	var stack []int
	var cycle []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = 1
		stack = append(stack, i)
		for _, j := range waitsFor[i] {
			if state[j] == 1 {
				for s := len(stack) - 1; s >= 0; s-- {
					cycle = append([]int{stack[s]}, cycle...)
					if stack[s] == j {
						break
					}
				}
				return true
			}
			if state[j] == 0 && visit(j) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = 2
		return false
	}
	for i := range tp.r.pass.pending {
		if state[i] == 0 && visit(i) {
			break
		}
	}
	if len(cycle) == 0 {
		return ""
	}
	var parts []string
	for _, i := range append(cycle, cycle[0]) {
		p := tp.r.pass.pending[i]
		parts = append(parts, fmt.Sprintf("%s (%s)", p.site.what, joinField(p.site.field, p.err.Path)))
	}
	return strings.Join(parts, " waits for ")
}

// renderedFingerprint identifies the operand objects of a pass, to detect the fixed point.
func renderedFingerprint(objs []*manifest.Object) string {
	var parts []string
	for _, o := range objs {
		b, _ := manifest.MarshalJSON(o.Map)
		parts = append(parts, string(b))
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// noteReferences records the ConfigMaps and Secrets a template read through configMapKeyRef
// or secretKeyRef: ODLM marks each as watched and referenced by the reading OperandConfig
// (docs/semantics.md, Templating: look-ups), and the render shows that mark on the ones it emits (docs/semantics.md, Decided deviations: inputs are not modified).
func (tp *templating) noteReferences(cfg *operandConfig, u template.Use) {
	for _, src := range u.Sources {
		if !src.Found || (src.Ref != "configMapKeyRef" && src.Ref != "secretKeyRef") {
			continue
		}
		if tp.r.pass.references == nil {
			tp.r.pass.references = map[manifest.Key]string{}
		}
		tp.r.pass.references[sourceKey(src.APIVersion, src.Kind, src.Namespace, src.Name)] = "OperandConfig." + cfg.key.Namespace + "." + cfg.key.Name
	}
}

// markReferenced writes ODLM's marks on the emitted ConfigMaps and Secrets templates read.
func (tp *templating) markReferenced() {
	for _, k := range slices.SortedFunc(maps.Keys(tp.r.pass.references), manifest.Key.Compare) {
		o, ok := tp.r.pass.rendered[k]
		if !ok {
			o, ok = tp.r.operators.made[k]
		}
		if ok {
			markReference(o, tp.r.pass.references[k])
		}
	}
}

// markCarriedReference marks an object as it is emitted when the previous round's templates
// read it, so that this round's reads already see the mark (round.go).
func (tp *templating) markCarriedReference(o *manifest.Object) {
	if tp.r.lookups.carried == nil || len(tp.r.lookups.carried.references) == 0 {
		return
	}
	if by, ok := tp.r.lookups.carried.references[o.Ref().Key()]; ok {
		markReference(o, by)
	}
}

func markReference(o *manifest.Object, by string) {
	o.SetMetadataString("labels", naming.WatchedByODLMLabel, "true")
	o.SetMetadataString("annotations", naming.ReferencedByAnnotation, by)
}
