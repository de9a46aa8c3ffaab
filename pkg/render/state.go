package render

import (
	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// The state of a render, by lifetime. Render builds one renderCache; each round builds one
// run from the inputs and what the round before emitted; each pass over the operands starts
// a new operandPass from the one the operands step began with. Nothing is reset by hand: a
// value that must start afresh is a new value.

// renderCache is what stays true for the whole render, shared by its rounds and passes:
// decoded inputs, parsed catalog data and CRDs, answers of the snapshot and live sources
// (they do not change while the render runs), and the Secret values the render wrote (a mark
// never disappears: secrets.go).
type renderCache struct {
	sources       cluster.Chain
	decodeCache   map[*manifest.Object]decoded
	hashCache     map[hashKey]hashes
	examplesCache map[*catalog.Bundle]parsedExamples
	crdCache      map[crdCacheKey]parsedCRD
	sourceCache   map[manifest.Key]cachedRead
	sourceLists   map[sourceListKey]listed
	secretMarks   secretMarks
	secretTexts   map[string]bool
}

func newRenderCache(sources cluster.Chain) *renderCache {
	return &renderCache{
		sources:       sources,
		decodeCache:   map[*manifest.Object]decoded{},
		hashCache:     map[hashKey]hashes{},
		examplesCache: map[*catalog.Bundle]parsedExamples{},
		crdCache:      map[crdCacheKey]parsedCRD{},
		sourceCache:   map[manifest.Key]cachedRead{},
		sourceLists:   map[sourceListKey]listed{},
		secretMarks:   secretMarks{},
		secretTexts:   map[string]bool{},
	}
}

// run is one round. It holds the round's data by lifetime (the render's cache, the inputs
// step's values, the look-up layers, the operator objects, the served kinds, the operand pass
// being written, the facts of emitted objects) and the steps, each a value with its own
// state that reads the others through it (renderRound, round.go, composes them):
//
//	inputs (r.inputs) → installer plan and build (olm or trackers) →
//	operands settle (r.pass; resources, templates) → bind info → marks
//
// What is left as methods of run are the services every step uses: results (add,
// warnOnce), the one look-up order (reader.go), emitting and replacing objects (emit,
// updated), and the round's assembly (output, carry, finish).
type run struct {
	opts     Options
	catalogs catalog.Set
	// cache is the render's: what stays true for all its rounds
	cache *renderCache
	// inputs are the inputs step's values: the inputs classified, registries, configs, requests
	inputs *roundInputs
	// lookups are the look-up layers of the round (reader.go)
	lookups lookups
	// operators are what installs the operators: Subscriptions (or trackers), OperatorGroups
	operators operatorObjects
	kinds     *servedIndex
	// pass is the operand pass being written (the last one once settled)
	pass *operandPass
	// facts are what the round knows of each object it emits
	facts factBook

	olm       *olmInstall
	trackers  *trackerInstaller
	operands  *operandsStep
	templates *templating
	bind      *bindInfoStep
}

// roundInputs is the inputs step and what it produces: the round's inputs classified, and
// the registries, configs and requests decoded, with ODLM's defaults and checks (inputs.go,
// registry.go, config.go, request.go; clusterodlm.go for those read from a cluster).
type roundInputs struct {
	r *run
	// objects are the inputs in a canonical order; consumed the ODLM ones the render used
	objects  []*manifest.Object
	consumed map[*manifest.Object]bool
	// byRef indexes every input by manifest.Ref.Key(); inputsByKind by group|kind (made on
	// first use, after classify)
	byRef        map[manifest.Key]*manifest.Object
	inputsByKind map[manifest.GroupKind][]*manifest.Object

	registries map[key]*registry
	configs    map[key]*operandConfig
	requests   []*operandRequest
	// clusterODLMObjects are the registries and configs read from the cluster, by
	// kind|namespace/name; nil for one that is not there (clusterodlm.go), and those whose
	// spec does not decode
	clusterODLMObjects map[manifest.Key]*manifest.Object
	undecodable        map[*manifest.Object]bool
	// brokenInputs are the input registries and configs whose spec does not decode
	brokenInputs map[manifest.Key]bool
	// inputResults are the step's results: what the inputs say, whenever they are read (a
	// registry or config read from a cluster is read on first use); the round takes them once
	inputResults diag.Results
}

// lookups are the look-up layers of a round (reader.go): what the previous round emitted,
// the lists already made from the sources, and the origin of objects that are not inputs.
type lookups struct {
	carried       *carried
	existingCache map[listKey][]*manifest.Object
	originOf      map[*manifest.Object]cluster.Origin
}

// operatorObjects are what installs the operators (subscription.go, catalogsource.go, noolm.go,
// olmv1.go): the Subscriptions (or trackers) and OperatorGroups, the CatalogSources known,
// the objects made as ODLM's controller, and the objects updated in place.
type operatorObjects struct {
	subscriptions  []*subscriptionPlan
	operatorGroups []*manifest.Object
	// subscriptionListsFailed are the sources whose list of all Subscriptions failed
	subscriptionListsFailed []cluster.Origin
	// made are the objects made as ODLM's controller, by key
	made map[manifest.Key]*manifest.Object
	// updatedElsewhere are objects ODLM updates that exist in a snapshot or the live
	// cluster, or that the previous round emitted: they are emitted
	updatedElsewhere []*manifest.Object
	// convertedTo is what each Subscription became when OLM v0 does not install it: its
	// ClusterExtension (olmv1.go), or the operator's Deployments (plain.go); operands wait
	// for them
	convertedTo map[*manifest.Object][]*manifest.Object
}

// servedIndex is what serves each kind (schemas.go, templating.go): the bundles the
// Subscriptions install, their CSVs and CRDs as reads see them, the served kinds, and the
// kinds and namespaces the render installs.
type servedIndex struct {
	r                 *run
	subscribed        []subscribedBundle
	unknownInstalls   []unknownInstall
	bundleState       map[manifest.Key]*manifest.Object
	served            map[manifest.GroupKind]*servedKind
	providedKinds     map[manifest.GroupKind]bool
	installNamespaces map[string]bool
}

// operandPass is what the round has written so far. The operands step runs passes to a
// fixed point (operands.go): each pass starts from the state the step began with and reads
// the objects of the pass before it (previous).
type operandPass struct {
	results diag.Results
	// reads are the questions asked of the look-up layers, warned the results given once
	reads  map[readKey]readRecord
	warned map[onceKey]bool
	// replaced maps an input object to the object that takes its place in the output
	// (an ODLM-labelled Subscription or CR that the controller would update)
	replaced map[*manifest.Object]*manifest.Object
	// rendered holds operand CRs and resources by manifest.Ref.Key(), in creation order
	rendered     map[manifest.Key]*manifest.Object
	renderedList []*manifest.Object
	previous     map[manifest.Key]*manifest.Object
	// pending are the template values waiting for run time, references the ConfigMaps and
	// Secrets templates read (by key, with the reader), and readKeys the identities this
	// pass looked up (reader.go)
	pending    []pendingValue
	references map[manifest.Key]string
	readKeys   map[manifest.Key]bool
}

// readPassOutput reports whether a look-up of this pass asked for an object that this pass
// or the one before rendered: only then can the next pass read other answers.
func (p *operandPass) readPassOutput() bool {
	for k := range p.readKeys {
		if _, ok := p.rendered[k]; ok {
			return true
		}
		if _, ok := p.previous[k]; ok {
			return true
		}
	}
	return false
}

// startPass is a new pass: the state the operands step began with, reading previous.
func (base *operandPass) startPass(previous map[manifest.Key]*manifest.Object) *operandPass {
	replaced := make(map[*manifest.Object]*manifest.Object, len(base.replaced))
	for k, v := range base.replaced {
		replaced[k] = v
	}
	reads := make(map[readKey]readRecord, len(base.reads))
	for k, v := range base.reads {
		reads[k] = v
	}
	warned := make(map[onceKey]bool, len(base.warned))
	for k, v := range base.warned {
		warned[k] = v
	}
	return &operandPass{
		results:      base.results[:len(base.results):len(base.results)],
		reads:        reads,
		warned:       warned,
		replaced:     replaced,
		rendered:     make(map[manifest.Key]*manifest.Object, len(previous)), // a pass renders about what the one before did
		renderedList: make([]*manifest.Object, 0, len(previous)),
		previous:     previous,
	}
}

// objectFacts is what a round knows of an object it emits, besides the object: what the
// object is to the render (roles), the Subscription whose operator it waits for, the
// OperandConfig field it is rendered from, and where its fields come from for the API
// server's messages (anchor). Ordering, carrying to the next round and messages read them.
type objectFacts struct {
	roles    roles
	operator *subscriptionPlan
	producer *producer
	anchor   *schemaAnchor
}

// roles are what an emitted object is to the render, besides an operand or a resource.
type roles uint8

const (
	// madeAsController: made as ODLM's controller (a Subscription, an OperatorGroup, a
	// tracking ConfigMap, a CatalogSource); never taken as existing by the next round
	madeAsController roles = 1 << iota
	// installerObject: what an install needs first (an OLM v1 installer's RBAC, a plain
	// install's CRDs, RBAC and other prerequisites)
	installerObject
	// workloadObject: a plain install's Deployments and webhook configurations
	workloadObject
	// bindInfoCopy: an OperandBindInfo copy, or what the external-secrets mode writes for one
	bindInfoCopy
)

// factBook holds the facts of a round's emitted objects, one record per object.
type factBook map[*manifest.Object]*objectFacts

// of returns o's record, made on first use.
func (b factBook) of(o *manifest.Object) *objectFacts {
	f, ok := b[o]
	if !ok {
		f = &objectFacts{}
		b[o] = f
	}
	return f
}

// is reports whether o has one of the roles.
func (b factBook) is(o *manifest.Object, r roles) bool {
	f := b[o]
	return f != nil && f.roles&r != 0
}

// operatorOf is the Subscription whose operator o waits for, if any.
func (b factBook) operatorOf(o *manifest.Object) (*subscriptionPlan, bool) {
	f := b[o]
	if f == nil || f.operator == nil {
		return nil, false
	}
	return f.operator, true
}

// producerOf is the OperandConfig field o is rendered from, if any.
func (b factBook) producerOf(o *manifest.Object) (producer, bool) {
	f := b[o]
	if f == nil || f.producer == nil {
		return producer{}, false
	}
	return *f.producer, true
}

// anchorOf is where o's fields come from, if the render rendered o from an input field.
func (b factBook) anchorOf(o *manifest.Object) (schemaAnchor, bool) {
	f := b[o]
	if f == nil || f.anchor == nil {
		return schemaAnchor{}, false
	}
	return *f.anchor, true
}

// forget drops what o's record says of it as an operand (a request CR an OperandConfig
// object replaces).
func (b factBook) forget(o *manifest.Object) {
	if f := b[o]; f != nil {
		f.operator, f.anchor = nil, nil
	}
}

func newRun(in Inputs, opts Options, cache *renderCache, prev *carried) *run {
	r := newRoundState(in, opts, cache, prev)
	r.olm.r = r
	r.trackers = &trackerInstaller{r: r}
	inputs := r.inputs
	inputs.r = r
	r.kinds = &servedIndex{r: r}
	r.operands = &operandsStep{r: r}
	r.templates = &templating{r: r}
	r.bind = &bindInfoStep{r: r}
	return r
}

func newRoundState(in Inputs, opts Options, cache *renderCache, prev *carried) *run {
	objs := append([]*manifest.Object(nil), in.Objects...)
	if !in.sorted {
		manifest.Sort(objs)
	}
	return &run{
		opts:     opts,
		catalogs: in.Catalogs(),
		cache:    cache,
		inputs: &roundInputs{
			objects:    objs,
			consumed:   make(map[*manifest.Object]bool, len(objs)),
			byRef:      make(map[manifest.Key]*manifest.Object, len(objs)),
			registries: map[key]*registry{},
			configs:    map[key]*operandConfig{},
		},
		lookups: lookups{
			carried:       prev,
			existingCache: map[listKey][]*manifest.Object{},
			originOf:      map[*manifest.Object]cluster.Origin{},
		},
		operators: operatorObjects{
			made: map[manifest.Key]*manifest.Object{},
		},
		pass: &operandPass{
			warned:   map[onceKey]bool{},
			replaced: map[*manifest.Object]*manifest.Object{},
			rendered: map[manifest.Key]*manifest.Object{},
		},
		olm:   &olmInstall{},
		facts: factBook{},
	}
}
