package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/optionspec"
)

// Rounds (docs/semantics.md, Decided deviations: emitted ODLM objects are reconciled; one look-up order). ODLM's controllers converge by reconciling again whenever
// something they watch changes: an OperandRequest that an OperandConfig resource creates is
// reconciled like any other, and a template that reads a bind-info copy, a Subscription or a
// CatalogSource sees it once it exists. The render reproduces that with rounds: a round
// renders everything from the inputs, plus the ODLM objects the previous round emitted
// (which are reconciled like inputs), and reading what the previous round emitted as
// cluster state. A round whose emitted ODLM objects are the ones it was given, and whose
// every read still gives the same answer against what it emitted, is the steady state.
// Most renders need one round; each level of nesting adds one.

// maxRounds bounds the rounds: a chain of ODLM objects that re-create each other with new
// content never settles.
const maxRounds = 12

// carried is what one round emitted, as the next round sees it.
type carried struct {
	byKey  map[manifest.Key]*manifest.Object
	list   []*manifest.Object
	byKind map[manifest.GroupKind][]*manifest.Object // list by group and kind, made on first use
	// controller holds the keys of what the render made as ODLM's controller
	// (Subscriptions, OperatorGroups, tracking ConfigMaps, CatalogSources): these never count
	// as already existing in the next round's searches
	controller map[manifest.Key]bool
	// odlm are the emitted ODLM objects, reconciled in the next round like inputs
	odlm    []*manifest.Object
	odlmSet map[*manifest.Object]bool
	// producers says where each emitted ODLM object was rendered from
	producers map[manifest.Key]producer
	// references are the ConfigMaps and Secrets templates read, with the reader (docs/semantics.md, Templating)
	references map[manifest.Key]string
}

// producer is the OperandConfig field an emitted object comes from.
type producer struct {
	config *manifest.Object
	field  string // e.g. spec.services[2].resources[0]
	// data is set when field is a resource: the object's fields are under field + ".data"
	data bool
}

// reconciledKinds are the ODLM kinds whose emitted objects ODLM's controllers reconcile.
var reconciledKinds = map[string]bool{
	api.KindOperandRegistry: true, api.KindOperandConfig: true,
	api.KindOperandRequest: true, api.KindOperandBindInfo: true,
}

func isReconciledODLM(o *manifest.Object) bool {
	return o.APIVersion() == api.APIVersion && reconciledKinds[o.Kind()]
}

// Render computes the output for the inputs. It never panics on bad input: problems are
// error results naming the object, the field and the file.
func Render(in Inputs, opts Options) Output {
	if err := opts.Validate(); err != nil {
		var out Output
		for _, oe := range optionspec.Errors(err) {
			out.Results = append(out.Results, diag.Errorf(nil, "", "%v", oe))
		}
		return out
	}
	in, meta := prepareMeta(in, opts) // Meta Operator inputs become ODLM ones (metaoperator.go)
	in.Objects = append([]*manifest.Object(nil), in.Objects...)
	manifest.Sort(in.Objects) // once for every round
	in.sorted = true
	var prev *carried
	seen := map[manifest.Key]map[string]bool{} // emitted ODLM object → the contents it had
	cache := newRenderCache(opts.Sources)      // built once: sources and parsed data do not change between rounds
	for round := 1; ; round++ {
		r := newRun(in, opts, cache, prev)
		r.renderRound()
		out := r.output()
		next := r.carry(out)
		stale := r.staleReads(next)
		if sameODLM(prev, next) && len(stale) == 0 {
			return r.finish(meta, out)
		}
		if round > 1 {
			noteContents(seen, prev, next) // for the message, should the rounds never settle
		}
		if round == maxRounds {
			msg, about, field := describeUnsettled(seen, next, stale)
			r.add(diag.Errorf(about, field, "the render did not settle after %d rounds: %s", maxRounds, msg))
			out.Results = r.pass.results.Sort()
			return r.finish(meta, out)
		}
		prev = next
	}
}

// finish is the output of the last round: ordering annotations on what it generated (only
// now: they are not ODLM's, so a template must not read them, and adding them every round
// made a template that reads a rendered object see it change after the read, so that IBM's
// foundational-services configuration never settled with --ordering argocd), then the Meta
// Operator's view of it (metaoperator.go), with no text of a Secret's value in any result
// and the marked fields of every object (secrets.go).
func (r *run) finish(meta *metaRun, out Output) Output {
	r.orderer().order(out.Objects, out.Generated)
	out.Installs = r.installList()
	out.CatalogSources = r.knownCatalogSourceList()
	out = r.finishMeta(meta, out)
	out.SecretFields = r.cache.secretFieldsOfOutput(out.Objects)
	out.Results = redactSecrets(out.Results, r.cache.secretTexts)
	return out
}

// renderRound is one round of the pipeline: inputs, install objects, operands (passes to a
// fixed point), bind info, then what marks the round's output.
func (r *run) renderRound() {
	r.inputs.readInputs()
	inst := r.installer()
	r.operators.subscriptions = inst.plan()
	inst.build(r.operators.subscriptions)
	r.pass = r.operands.settle(r.pass)
	r.pass.results = append(r.pass.results, r.bind.renderBindInfos()...)
	inst.afterOperands()
	r.templates.markReferenced()
	labelEmittedODLM(r.pass.renderedList)
	r.pass.results = append(r.pass.results, r.inputs.inputResults...)
	if r.lookups.carried != nil {
		r.pass.results = placeResultsOfCarried(r.pass.results, r.lookups.carried.producers)
	}
}

// installer writes what installs the operators a round's requests use. OLM v1 is OLM v0's
// objects converted at output (olmv1.go).
type installer interface {
	// plan finds or plans the object that installs each operator the requests use (a
	// Subscription, a tracking ConfigMap), before the operands, which wait for them
	plan() []*subscriptionPlan
	// build writes the planned objects, and what goes with them
	build(plans []*subscriptionPlan)
	// afterOperands writes what depends on the operands' output
	afterOperands()
}

func (r *run) installer() installer {
	if r.opts.ODLMNoOLM {
		return r.trackers
	}
	return r.olm
}

// carry records what a round emitted for the next round.
func (r *run) carry(out Output) *carried {
	c := &carried{byKey: map[manifest.Key]*manifest.Object{}, controller: map[manifest.Key]bool{}, producers: map[manifest.Key]producer{}, references: r.pass.references, odlmSet: map[*manifest.Object]bool{}}
	for _, o := range out.Objects {
		if !out.Generated[o] || r.plainInstalled(o) {
			continue
		}
		k := o.Ref().Key()
		c.byKey[k] = o
		c.list = append(c.list, o)
		if r.facts.is(o, madeAsController) {
			c.controller[k] = true
		}
		if isReconciledODLM(o) {
			c.odlm = append(c.odlm, o)
			c.odlmSet[o] = true
			if p, ok := r.facts.producerOf(o); ok {
				c.producers[k] = p
			}
		}
	}
	return c
}

// plainInstalled reports an object of an operator the render installs without OLM
// (plain.go): the next round reads the cluster as with OLM, where such objects are OLM's
// doing, not the render's (its CRDs, above all, are the installed bundles', which the render
// knows already).
func (r *run) plainInstalled(o *manifest.Object) bool {
	return r.opts.OLM == OLMNone && r.facts.is(o, installerObject|workloadObject)
}

// sameODLM reports whether a round emitted the ODLM objects it was given (none, in the
// first round).
func sameODLM(prev, next *carried) bool {
	var before []*manifest.Object
	if prev != nil {
		before = prev.odlm
	}
	if len(before) != len(next.odlm) {
		return false
	}
	for i, o := range next.odlm {
		if before[i].Ref().Key() != o.Ref().Key() || !merge.Equal(before[i].Map, o.Map) {
			return false
		}
	}
	return true
}

// fedODLM returns the ODLM objects of a kind the previous round emitted, as inputs of this
// one: results about them point at the OperandConfig field they come from.
func (l *lookups) fedODLM(kind string) []*manifest.Object {
	if l.carried == nil {
		return nil
	}
	var out []*manifest.Object
	for _, o := range l.carried.odlm {
		if o.Kind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// labelEmittedODLM writes the labels ODLM's controllers put on the ODLM objects they
// reconcile (docs/semantics.md, Decided deviations: inputs are not modified): an OperandRequest gets <registry ns>.<registry name>/registry and
// /config for every registry it uses, an OperandBindInfo the /registry label of its registry.
func labelEmittedODLM(objs []*manifest.Object) {
	for _, o := range objs {
		if !isReconciledODLM(o) {
			continue
		}
		switch o.Kind() {
		case api.KindOperandRequest:
			blocks, _ := manifest.Get(o.Map, "spec", "requests").([]any)
			for _, b := range blocks {
				m, _ := b.(map[string]any)
				reg, _ := m["registry"].(string)
				if reg == "" {
					continue
				}
				ns, _ := m["registryNamespace"].(string)
				if ns == "" {
					ns = o.Namespace()
				}
				o.SetMetadataString("labels", naming.RegistryAnnotation(ns, reg), "true")
				o.SetMetadataString("labels", naming.ConfigAnnotation(ns, reg), "true")
			}
		case api.KindOperandBindInfo:
			reg := o.String("spec", "registry")
			if reg == "" {
				continue
			}
			ns := o.String("spec", "registryNamespace")
			if ns == "" {
				ns = o.Namespace()
			}
			o.SetMetadataString("labels", naming.RegistryAnnotation(ns, reg), "true")
		}
	}
}

// placeResultsOfCarried makes results about an ODLM object the previous round emitted
// point at the OperandConfig field it is rendered from (producers), with a note saying so.
func placeResultsOfCarried(results diag.Results, producers map[manifest.Key]producer) diag.Results {
	if len(producers) == 0 {
		return results
	}
	for i, res := range results {
		if res.Object == nil || res.File != "" {
			continue
		}
		p, ok := producers[res.Object.Key()]
		if !ok {
			continue
		}
		at := p.field
		if p.data && res.Field != "" {
			at = p.field + ".data." + res.Field
		}
		res.File = p.config.Source.File
		res.Index = p.config.Source.Index
		res.Line = p.config.Source.LineOf(at)
		res.At = &diag.Anchor{Object: p.config.Ref(), Field: at}
		res.Message += fmt.Sprintf(" (%s %s is rendered from OperandConfig %s/%s %s)", res.Object.Kind, res.Object.Namespace+"/"+res.Object.Name, p.config.Namespace(), p.config.Name(), p.field)
		results[i] = res
	}
	return results
}

// noteContents records the contents each emitted ODLM object had in a round (absent too).
func noteContents(seen map[manifest.Key]map[string]bool, prev, next *carried) {
	note := func(k manifest.Key, content string) {
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		seen[k][content] = true
	}
	now := map[manifest.Key]bool{}
	for _, o := range next.odlm {
		k := o.Ref().Key()
		now[k] = true
		note(k, fingerprint(o.Map))
	}
	if prev != nil {
		for _, o := range prev.odlm {
			if k := o.Ref().Key(); !now[k] {
				note(k, "absent")
			}
		}
	}
}

// describeUnsettled names what kept changing over the rounds: the emitted ODLM objects whose
// content varied, with the OperandConfig field each comes from, and the objects templates
// read that changed after they were read.
func describeUnsettled(seen map[manifest.Key]map[string]bool, last *carried, stale []string) (string, *manifest.Object, string) {
	var parts []string
	var about *manifest.Object
	var field string
	for _, k := range slices.SortedFunc(maps.Keys(seen), manifest.Key.Compare) {
		if len(seen[k]) < 2 {
			continue
		}
		var what string
		if o, ok := last.byKey[k]; ok {
			what = o.Ref().String()
		} else {
			what = manifest.Ref{APIVersion: api.APIVersion, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}.String()
		}
		if p, ok := last.producers[k]; ok {
			what += fmt.Sprintf(" (rendered from OperandConfig %s/%s %s)", p.config.Namespace(), p.config.Name(), p.field)
			if about == nil {
				about, field = p.config, p.field
			}
		}
		parts = append(parts, what+" changes from round to round")
	}
	if len(stale) > 0 {
		parts = append(parts, "templates read "+strings.Join(stale, ", ")+", which changes after it is read")
	}
	if len(parts) == 0 {
		parts = append(parts, "the emitted objects keep changing")
	}
	return strings.Join(parts, "; ") + ": ODLM objects or templates that re-create each other with new content never converge", about, field
}
