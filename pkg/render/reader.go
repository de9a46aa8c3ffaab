package render

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
)

// The one look-up order (docs/semantics.md, Decided deviations: one look-up order). Everything the render reads about the cluster comes
// from, in this order: the objects the render emits, the inputs, the snapshot, the live
// cluster (Options.Sources). Two questions are asked of these layers:
//
//   - lookup: "what does this object look like once converged?" (templates, matchExpressions,
//     bind-info sources, installed CSVs): the emitted or input object is the desired state and
//     wins; a snapshot or live copy of it completes it with what only a cluster has.
//   - existing: "which objects of this kind are there already?" (ODLM's searches for
//     Subscriptions, OperatorGroups, tracking ConfigMaps, CatalogSources and operator
//     Deployments): the inputs, what the previous round emitted from OperandConfig
//     resources and alm-examples, then the snapshot and live cluster. What the render makes
//     as ODLM's controller (its Subscriptions, OperatorGroups, trackers, CatalogSources) never
//     counts as already there: it is the answer, not the question.
//
// Every answer is recorded with a fingerprint, so that a round can tell whether anything it
// read changed by the time the round ended (round.go): then the render runs another round.

// readKind tells lookups from lists in the read record.
const (
	readGet  = "get"
	readList = "list"
)

// readRecord is one question a round asked and a fingerprint of its answer.
type readRecord struct {
	op                             string
	apiVersion, kind, namespace, n string
	answer                         string
}

// readKey identifies a question: a get or a list, and what of.
type readKey struct {
	op  string
	key manifest.Key
}

func (k readKey) compare(o readKey) int {
	if c := strings.Compare(k.op, o.op); c != 0 {
		return c
	}
	return k.key.Compare(o.key)
}

func (rr readRecord) key() readKey {
	return readKey{op: rr.op, key: sourceKey(rr.apiVersion, rr.kind, rr.namespace, rr.n)}
}

// record notes an answer (the last answer to a question counts).
func (r *run) record(rr readRecord) {
	if r.pass.reads == nil {
		r.pass.reads = map[readKey]readRecord{}
	}
	r.pass.reads[rr.key()] = rr
}

// fingerprint identifies an answer's content.
func fingerprint(objs ...map[string]any) string {
	var b strings.Builder
	for _, o := range objs {
		if o == nil {
			b.WriteString("∅\n")
			continue
		}
		j, err := manifest.MarshalJSON(o)
		if err != nil {
			b.WriteString("!" + err.Error())
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// lookup finds an object through the layers (see above). A namespaced reference also finds
// a cluster-scoped object of that name (API clients ignore the namespace of cluster-scoped
// kinds).
func (r *run) lookup(apiVersion, kind, namespace, name string) (map[string]any, cluster.Origin, bool, error) {
	if r.pass.readKeys == nil {
		r.pass.readKeys = map[manifest.Key]bool{}
	}
	// the identities desired looks at: a rendered object answers under either
	r.pass.readKeys[sourceKey(apiVersion, kind, namespace, name)] = true
	r.pass.readKeys[sourceKey(apiVersion, kind, "", name)] = true
	obj, origin, found, err := r.lookupUnrecorded(apiVersion, kind, namespace, name)
	if err == nil {
		var answer map[string]any
		if found {
			answer = obj
		}
		r.record(readRecord{op: readGet, apiVersion: apiVersion, kind: kind, namespace: namespace, n: name, answer: fingerprint(answer)})
	}
	return obj, origin, found, err
}

func (r *run) lookupUnrecorded(apiVersion, kind, namespace, name string) (map[string]any, cluster.Origin, bool, error) {
	if r.kinds.clusterScoped(apiVersion, kind) {
		namespace = "" // a cluster-scoped kind ignores the namespace a reference defaults to
	}
	desired, origin := r.desired(apiVersion, kind, namespace, name)
	if len(r.opts.Sources) == 0 {
		return desired, origin, desired != nil, nil
	}
	c := r.cache.sourceRead(apiVersion, kind, namespace, name)
	switch {
	case desired == nil:
		if errors.Is(c.err, cluster.ErrNotServed) {
			return nil, "", false, nil
		}
		return c.obj, c.origin, c.found, c.err
	case c.err != nil && !errors.Is(c.err, cluster.ErrNotServed):
		// the desired state is known; what the cluster would add to it is not
		r.warnOnce(onceKey{topic: "read", object: sourceKey(apiVersion, kind, namespace, name)}, diag.Warnf(nil, "", "reading %s from the cluster to complete the rendered object failed, so fields only a cluster fills in (status, a Service's clusterIP, a Route's host) are missing: %v", manifest.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name}, c.err))
		return desired, origin, true, nil
	case !c.found || c.err != nil:
		return desired, origin, true, nil
	}
	completed, err := merge.Merge(c.obj, desired)
	if err != nil {
		r.warnOnce(onceKey{topic: "merge", object: sourceKey(apiVersion, kind, namespace, name)}, diag.Warnf(nil, "", "completing %s with its %s copy failed, so the rendered object is read as it is: %v", manifest.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name}, c.origin, err))
		return desired, origin, true, nil
	}
	m, _ := completed.(map[string]any)
	return m, origin + "+" + c.origin, true, nil
}

// sourceRead reads Options.Sources once per object and render.
func (c *renderCache) sourceRead(apiVersion, kind, namespace, name string) cachedRead {
	k := sourceKey(apiVersion, kind, namespace, name)
	read, ok := c.sourceCache[k]
	if !ok {
		read.obj, read.origin, read.found, read.err = c.sources.GetWithOrigin(apiVersion, kind, namespace, name)
		c.sourceCache[k] = read
	}
	return read
}

// onceKey is what a result is given once for: a topic, and the names, kind or object it is
// about.
type onceKey struct {
	topic        string
	name, detail string
	kind         manifest.GroupKind
	object       manifest.Key
}

// warnOnce adds a result once per key and round.
func (r *run) warnOnce(key onceKey, res diag.Result) {
	if r.pass.warned[key] {
		return
	}
	r.pass.warned[key] = true
	r.add(res)
}

// desired returns the emitted or input object, if any: this pass's operand objects, the
// previous pass's, the Subscriptions and OperatorGroups of this round, what the previous
// round emitted, then the inputs (an input the render updates reads as updated).
func (r *run) desired(apiVersion, kind, namespace, name string) (map[string]any, cluster.Origin) {
	for _, ns := range []string{namespace, ""} {
		k := sourceKey(apiVersion, kind, ns, name)
		if o, ok := r.pass.rendered[k]; ok {
			return o.Map, OriginRendered
		}
		if o, ok := r.pass.previous[k]; ok {
			return o.Map, OriginRendered
		}
		if o, ok := r.operators.made[k]; ok {
			return o.Map, OriginRendered
		}
		if o, ok := r.kinds.bundleState[k]; ok {
			return o.Map, originBundle
		}
		if r.lookups.carried != nil {
			if o, ok := r.lookups.carried.byKey[k]; ok {
				return o.Map, OriginRendered
			}
		}
		if o, ok := r.inputs.byRef[k]; ok {
			if repl, replaced := r.pass.replaced[o]; replaced && repl != nil {
				return repl.Map, OriginRendered
			}
			return o.Map, cluster.OriginInputs
		}
		if namespace == "" {
			break
		}
	}
	return nil, ""
}

// existing lists the objects of a kind already there in a namespace ("" for all): inputs,
// what the previous round emitted from resources and alm-examples, the snapshot, the live
// cluster; the first layer that has an object wins. Objects that are not inputs are new
// *manifest.Object values whose origin r.lookups.originOf says. A failed list is an error result (ODLM
// cannot search either), and the answer is then what the other layers hold.
func (r *run) existing(apiVersion, kind, namespace string) []*manifest.Object {
	return r.existingOr(apiVersion, kind, namespace, nil)
}

// existingOr is existing with the result a failed list gives: failed, when not nil, makes
// it (for reads ODLM does not make, whose failure is no error).
func (r *run) existingOr(apiVersion, kind, namespace string, failed func(origin cluster.Origin, err error) diag.Result) []*manifest.Object {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		group = ""
	}
	cacheKey := listKey{group: group, kind: kind, namespace: namespace}
	if objs, ok := r.lookups.existingCache[cacheKey]; ok {
		return objs
	}
	l := &listing{group: group, kind: kind, namespace: namespace, seen: map[manifest.Key]bool{}, originOf: r.lookups.originOf}
	l.addMatching(r.inputs.ofKind(group, kind), cluster.OriginInputs, nil)
	if r.lookups.carried != nil {
		l.addMatching(r.lookups.carried.ofKind(group, kind), OriginRendered, r.lookups.carried.controller)
	}
	for i, s := range r.opts.Sources {
		objs, err := r.cache.sourceList(i, s, apiVersion, kind, namespace, cacheKey)
		switch {
		case errors.Is(err, cluster.ErrNotServed):
		case err != nil:
			where := "in namespace " + namespace
			if namespace == "" {
				where = "in all namespaces"
			}
			res := diag.Errorf(nil, "", "listing %s %s %s (%s) failed, and ODLM searches them before it creates anything: %v", apiVersion, kind, where, s.Origin, err)
			if failed != nil {
				res = failed(s.Origin, err)
			}
			r.warnOnce(onceKey{topic: "list", kind: manifest.GroupKind{Group: group, Kind: kind}, name: namespace, detail: string(s.Origin)}, res)
		default:
			for _, m := range objs {
				l.add(manifest.New(m), s.Origin)
			}
		}
	}
	manifest.Sort(l.out)
	r.lookups.existingCache[cacheKey] = l.out
	maps := make([]map[string]any, len(l.out))
	for i, o := range l.out {
		maps[i] = o.Map
	}
	r.record(readRecord{op: readList, apiVersion: apiVersion, kind: kind, namespace: namespace, answer: fingerprint(maps...)})
	return l.out
}

// sourceList is what the i-th source lists of a kind (nothing for a source that cannot
// list): a source is listed once per render, whatever the rounds.
func (c *renderCache) sourceList(i int, s cluster.Source, apiVersion, kind, namespace string, cacheKey listKey) ([]map[string]any, error) {
	l, ok := s.Reader.(cluster.Lister)
	if !ok {
		return nil, cluster.ErrNotServed
	}
	lk := sourceListKey{source: i, list: cacheKey}
	listed, done := c.sourceLists[lk]
	if !done {
		listed.objs, listed.err = l.List(apiVersion, kind, namespace)
		c.sourceLists[lk] = listed
	}
	return listed.objs, listed.err
}

// listing gathers the objects of a kind in a namespace (and the cluster-scoped ones), each
// identity once, in look-up order, noting the origin of those that are not inputs.
type listing struct {
	group, kind, namespace string
	out                    []*manifest.Object
	seen                   map[manifest.Key]bool
	originOf               map[*manifest.Object]cluster.Origin
}

func (l *listing) add(o *manifest.Object, origin cluster.Origin) {
	k := o.Ref().Key()
	if l.seen[k] {
		return
	}
	l.seen[k] = true
	l.out = append(l.out, o)
	if origin != cluster.OriginInputs {
		l.originOf[o] = origin
	}
}

// addMatching adds the objects of the listing's kind and namespace, except those whose key
// is in skip.
func (l *listing) addMatching(objs []*manifest.Object, origin cluster.Origin, skip map[manifest.Key]bool) {
	for _, o := range objs {
		if o.Kind() == l.kind && o.Group() == l.group && (l.namespace == "" || o.Namespace() == l.namespace || o.Namespace() == "") &&
			(skip == nil || !skip[o.Ref().Key()]) {
			l.add(o, origin)
		}
	}
}

// isInput reports whether an object is one of the render's inputs (not a snapshot, live or
// previously emitted object).
func (l *lookups) isInput(o *manifest.Object) bool {
	_, other := l.originOf[o]
	return o != nil && !other
}

// clusterObject reads an object from the snapshot and the live cluster only (the inputs
// and the render's own objects are asked directly): a kind the cluster does not serve is
// no object; a failed read is a warning once per kind, and counts as no object.
func (r *run) clusterObject(ref manifest.Ref, about *manifest.Object, field string) *manifest.Object {
	if len(r.opts.Sources) == 0 {
		return nil
	}
	c := r.cache.sourceRead(ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
	if c.err != nil {
		if !errors.Is(c.err, cluster.ErrNotServed) {
			r.warnOnce(onceKey{topic: "exists", kind: ref.Key().GroupKind()}, diag.Warnf(about, field, "cannot tell whether %s already exists (%s objects of this kind are rendered as if absent): %v", ref, ref.Kind, c.err))
		}
		return nil
	}
	if !c.found {
		return nil
	}
	o := manifest.New(c.obj)
	r.lookups.originOf[o] = c.origin
	return o
}

// staleReads re-asks every recorded question against the round's final state (final: what
// the round emitted) and describes the answers that changed since they were read.
func (r *run) staleReads(final *carried) []string {
	reads := r.pass.reads
	// the round as the next one reads it: what it emitted stands for everything the render
	// wrote; inputs, bundles and sources are the same
	view := *r
	view.lookups = lookups{carried: final, existingCache: map[listKey][]*manifest.Object{}, originOf: r.lookups.originOf}
	view.operators.made = nil
	view.pass = &operandPass{results: r.pass.results, warned: r.pass.warned, replaced: r.pass.replaced, rendered: map[manifest.Key]*manifest.Object{}}
	defer func() { r.pass.results = view.pass.results }()
	return view.staleAnswers(reads)
}

// staleAnswers describes the reads whose answer is not the one recorded.
func (r *run) staleAnswers(reads map[readKey]readRecord) []string {
	var stale []string
	for _, k := range slices.SortedFunc(maps.Keys(reads), readKey.compare) {
		rr := reads[k]
		var now string
		switch rr.op {
		case readGet:
			obj, _, found, err := r.lookupUnrecorded(rr.apiVersion, rr.kind, rr.namespace, rr.n)
			if err != nil {
				continue
			}
			if !found {
				obj = nil
			}
			now = fingerprint(obj)
		case readList:
			objs := r.existing(rr.apiVersion, rr.kind, rr.namespace)
			maps := make([]map[string]any, len(objs))
			for i, o := range objs {
				maps[i] = o.Map
			}
			now = fingerprint(maps...)
		}
		if now != rr.answer {
			stale = append(stale, manifest.Ref{APIVersion: rr.apiVersion, Kind: rr.kind, Namespace: rr.namespace, Name: rr.n}.String())
		}
	}
	return stale
}

// indexByKind groups objects by group and kind.
func indexByKind(objs []*manifest.Object) map[manifest.GroupKind][]*manifest.Object {
	idx := map[manifest.GroupKind][]*manifest.Object{}
	for _, o := range objs {
		k := manifest.GroupKindOf(o)
		idx[k] = append(idx[k], o)
	}
	return idx
}

// listKey identifies a list: a group and kind in a namespace ("" for all).
type listKey struct {
	group, kind, namespace string
}

// sourceListKey identifies a list of one source (by its index in Options.Sources).
type sourceListKey struct {
	source int
	list   listKey
}

// ofKind returns the inputs of a group and kind.
func (in *roundInputs) ofKind(group, kind string) []*manifest.Object {
	if in.inputsByKind == nil {
		in.inputsByKind = indexByKind(in.objects)
	}
	return in.inputsByKind[manifest.GroupKind{Group: group, Kind: kind}]
}

// ofKind returns what the previous round emitted of a group and kind.
func (c *carried) ofKind(group, kind string) []*manifest.Object {
	if c.byKind == nil {
		c.byKind = indexByKind(c.list)
	}
	return c.byKind[manifest.GroupKind{Group: group, Kind: kind}]
}

// listed is one source's answer to a list.
type listed struct {
	objs []map[string]any
	err  error
}
