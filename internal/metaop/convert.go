package metaop

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
)

// Options tune a conversion.
type Options struct {
	// DefaultNamespace is used for Meta CRs without metadata.namespace (the design
	// document's examples have none); without it such a CR is an error.
	DefaultNamespace string
}

// Unit is a Catalog, a Config and a Set of one name and namespace, and what they convert to.
type Unit struct {
	Namespace, Name string
	// the Meta inputs (nil when the inputs hold none of that kind)
	Catalog, Config, Set *manifest.Object
	// the ODLM objects they convert to (nil when not produced)
	Registry, OperandConfig, Request *manifest.Object
	// Operators are the catalog's operators, with the Set's decision
	Operators []Operator
	// Failed is set when an error was reported: the unit produces no ODLM objects.
	Failed bool

	// field mapping: registry entry → catalog entry, registry entry → Set service whose
	// channel it uses, request operand → Set service
	regToCatalog []int
	channelFrom  map[int]int
	operandToSet []int
}

// Operator is one catalog operator as the Set decides it.
type Operator struct {
	Name string
	// Namespace is where its Subscription lives (the catalog's namespace by default, as ODLM)
	Namespace   string
	PackageName string
	Channel     string
	Present     bool
}

// Conversion is the result of Analyze.
type Conversion struct {
	// Units in namespace, name order.
	Units []*Unit
	// Inputs are the Meta Operator inputs, consumed by the conversion.
	Inputs []*manifest.Object
	// Others are the objects that are not Meta Operator inputs, untouched.
	Others  []*manifest.Object
	Results diag.Results

	produced map[manifest.Key]producedObj
}

type producedObj struct {
	unit *Unit
	kind string
}

type unitKey struct{ namespace, name string }

// Convert converts the Meta Operator inputs among objs into ODLM objects. It returns the
// other objects untouched followed by the ODLM objects, sorted (manifest.Sort), and the
// results; when the results hold errors the objects must not be written.
func Convert(objs []*manifest.Object, opts Options) ([]*manifest.Object, diag.Results) {
	c := Analyze(objs, opts)
	out := append(append([]*manifest.Object(nil), c.Others...), c.Objects()...)
	manifest.Sort(out)
	return out, c.Results.Sort()
}

// Analyze groups, checks and converts the Meta Operator inputs among objs.
func Analyze(objs []*manifest.Object, opts Options) *Conversion {
	c := &Conversion{produced: map[manifest.Key]producedObj{}}
	units, odlm := c.group(objs, opts)
	for _, u := range units {
		c.Units = append(c.Units, u)
		c.convert(u)
		c.checkCollisions(u, odlm)
		c.settle(u)
	}
	return c
}

// group sorts objs (in manifest.Sort order) into Inputs, grouped into units, and Others; it
// returns the units in namespace, name order and the ODLM inputs among the others.
func (c *Conversion) group(objs []*manifest.Object, opts Options) ([]*Unit, []*manifest.Object) {
	sorted := append([]*manifest.Object(nil), objs...)
	manifest.Sort(sorted)
	units := map[unitKey]*Unit{}
	var odlm []*manifest.Object
	for _, o := range sorted {
		switch {
		case o.Group() == Group && KindTypo(o) != "":
			c.reportKindTypo(o)
			c.Others = append(c.Others, o)
		case !IsInput(o):
			if o.Group() == api.Group {
				odlm = append(odlm, o)
			}
			c.Others = append(c.Others, o)
		default:
			c.Inputs = append(c.Inputs, o)
			if k, ok := c.unitOf(o, opts); ok {
				c.place(units, k, o)
			}
		}
	}
	out := slices.Collect(maps.Values(units))
	slices.SortFunc(out, func(a, b *Unit) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return out, odlm
}

// reportKindTypo reports a Meta CR written with Kind: (capital K), naming the kind it meant.
func (c *Conversion) reportKindTypo(o *manifest.Object) {
	kind := KindTypo(o)
	res := diag.Errorf(o, "Kind", "the field is spelled kind (lower case): the API server rejects a %s written with Kind: (a typo of the Meta Operator's design document); write kind: %s", kind, kind)
	ref := *res.Object
	ref.Kind = kind
	res.Object = &ref
	c.add(res)
}

// unitOf is the unit a Meta input belongs to (its name, and its namespace or the default);
// false, with the error reported, when it has no valid one.
func (c *Conversion) unitOf(o *manifest.Object, opts Options) (unitKey, bool) {
	if o.APIVersion() != APIVersion {
		c.add(diag.Errorf(o, "apiVersion", "%s is not served by the Meta Operator (want %s)", o.APIVersion(), APIVersion))
		return unitKey{}, false
	}
	if o.Name() == "" {
		c.add(diag.Errorf(o, "metadata.name", "is required"))
		return unitKey{}, false
	}
	ns := o.Namespace()
	if ns == "" {
		if opts.DefaultNamespace == "" {
			c.add(diag.Errorf(o, "metadata.namespace", "is required: %s is namespaced (or give a default namespace, --namespace)", o.Kind()))
			return unitKey{}, false
		}
		ns = opts.DefaultNamespace
	}
	return unitKey{ns, o.Name()}, true
}

// place puts a Meta input in its unit's slot for its kind; a second input of the same kind
// fails the unit.
func (c *Conversion) place(units map[unitKey]*Unit, k unitKey, o *manifest.Object) {
	u := units[k]
	if u == nil {
		u = &Unit{Namespace: k.namespace, Name: k.name, channelFrom: map[int]int{}}
		units[k] = u
	}
	slot := map[string]**manifest.Object{KindCatalog: &u.Catalog, KindConfig: &u.Config, KindSet: &u.Set}[o.Kind()]
	if *slot != nil {
		c.add(diag.Errorf(o, "metadata.name", "%s %s/%s is defined more than once", o.Kind(), k.namespace, k.name))
		u.Failed = true
		return
	}
	*slot = o
}

// settle drops the ODLM objects of a failed unit, and records those of a converted one.
func (c *Conversion) settle(u *Unit) {
	if u.Failed {
		u.Registry, u.OperandConfig, u.Request = nil, nil, nil
		return
	}
	for _, p := range []struct {
		kind string
		o    *manifest.Object
	}{{api.KindOperandRegistry, u.Registry}, {api.KindOperandConfig, u.OperandConfig}, {api.KindOperandRequest, u.Request}} {
		if p.o != nil {
			c.produced[p.o.Ref().Key()] = producedObj{unit: u, kind: p.kind}
		}
	}
}

// Objects returns the ODLM objects of every unit that converted without error.
func (c *Conversion) Objects() []*manifest.Object {
	var out []*manifest.Object
	for _, u := range c.Units {
		for _, o := range []*manifest.Object{u.Registry, u.OperandConfig, u.Request} {
			if o != nil {
				out = append(out, o)
			}
		}
	}
	return out
}

func (c *Conversion) add(r diag.Result) { c.Results = append(c.Results, r) }

func (c *Conversion) errorf(u *Unit, o *manifest.Object, field, format string, args ...any) {
	c.add(diag.Errorf(o, field, format, args...))
	u.Failed = true
}

func (u *Unit) key() string { return u.Namespace + "/" + u.Name }

// decode decodes a Meta input's spec, turning unknown fields into warnings.
func (c *Conversion) decode(u *Unit, o *manifest.Object, out any) bool {
	issues, err := api.DecodeSpec(o, out)
	if err != nil {
		var fe *api.FieldError
		if errors.As(err, &fe) {
			c.errorf(u, o, fe.Path, "%s", fe.Msg)
		} else {
			c.errorf(u, o, "spec", "%v", err)
		}
		return false
	}
	for _, is := range issues {
		c.add(diag.Warnf(o, is.Path, "unknown field: the API server prunes it or the Meta Operator ignores it, so it has no effect"))
	}
	return true
}

// convert decodes and checks a unit's Meta inputs and builds its ODLM objects.
func (c *Conversion) convert(u *Unit) {
	var cat CatalogSpec
	var cfg ConfigSpec
	var set SetSpec
	if !c.decodeInput(u, u.Catalog, &cat) || !c.decodeInput(u, u.Config, &cfg) || !c.decodeInput(u, u.Set, &set) {
		return
	}
	if !c.checkPairing(u) {
		return
	}
	ops := c.checkCatalog(u, cat)
	setBy := c.checkSet(u, set, ops)
	c.checkConfig(u, cfg, ops)
	// build even after an error, to report the errors building finds; Analyze drops the
	// objects of a failed unit
	if u.Catalog != nil {
		c.buildRegistry(u, cat, set, setBy)
	}
	if u.Config != nil {
		u.OperandConfig = c.buildConfig(u)
	}
	if u.Set != nil {
		u.Request = c.buildRequest(u, set)
	}
}

// decodeInput decodes the spec of a unit's input, when the unit has one.
func (c *Conversion) decodeInput(u *Unit, o *manifest.Object, out any) bool {
	return o == nil || c.decode(u, o, out)
}

// checkPairing reports a Set or Config without a Catalog and a Catalog without a Set; false
// when the unit cannot convert (a Set without a Catalog).
func (c *Conversion) checkPairing(u *Unit) bool {
	switch {
	case u.Set != nil && u.Catalog == nil:
		c.errorf(u, u.Set, "metadata.name", "no MetaOperatorCatalog %s among the inputs: a MetaOperatorSet installs operators of the MetaOperatorCatalog (and MetaOperatorConfig) of the same name and namespace", u.key())
		return false
	case u.Config != nil && u.Catalog == nil:
		c.add(diag.Warnf(u.Config, "metadata.name", "no MetaOperatorCatalog %s among the inputs: the Meta Operator only reads a MetaOperatorConfig with the same name and namespace as its catalog", u.key()))
	case u.Catalog != nil && u.Set == nil:
		c.add(diag.Infof(u.Catalog, "metadata.name", "no MetaOperatorSet %s among the inputs: none of its operators is installed (only a Set's state: present installs one)", u.key()))
	}
	return true
}

// catalogIndex finds a catalog's operators by name.
type catalogIndex struct {
	byName map[string]int // index in spec.operators
	names  []string       // in catalog order
}

func (ix catalogIndex) has(name string) bool {
	_, ok := ix.byName[name]
	return ok
}

// checkCatalog checks the catalog's operators (names present and unique, a package name, no
// state) and indexes them.
func (c *Conversion) checkCatalog(u *Unit, cat CatalogSpec) catalogIndex {
	ix := catalogIndex{byName: map[string]int{}}
	for i, op := range cat.Operators {
		f := manifest.Field("spec.operators", i)
		if op.Name == "" {
			c.errorf(u, u.Catalog, f+".name", "is required")
			continue
		}
		if first, dup := ix.byName[op.Name]; dup {
			c.errorf(u, u.Catalog, f+".name", "duplicate operator name %q (also spec.operators[%d])", op.Name, first)
			continue
		}
		ix.byName[op.Name] = i
		ix.names = append(ix.names, op.Name)
		if op.PackageName == "" {
			c.errorf(u, u.Catalog, f+".packageName", "is required")
		}
		if op.State != "" {
			c.add(diag.Warnf(u.Catalog, f+".state", "has no effect: the MetaOperatorSet decides whether operator %q is present", op.Name))
		}
	}
	return ix
}

// checkSet checks the Set's services (names present, unique and in the catalog, a known
// state) and returns the index of each name in spec.services.
func (c *Conversion) checkSet(u *Unit, set SetSpec, ops catalogIndex) map[string]int {
	setBy := map[string]int{}
	for j, s := range set.Services {
		f := manifest.Field("spec.services", j)
		if s.Name == "" {
			c.errorf(u, u.Set, f+".name", "is required")
			continue
		}
		if first, dup := setBy[s.Name]; dup {
			c.errorf(u, u.Set, f+".name", "duplicate service %q (also spec.services[%d])", s.Name, first)
			continue
		}
		setBy[s.Name] = j
		if !ops.has(s.Name) {
			c.errorf(u, u.Set, f+".name", "operator %q is not in MetaOperatorCatalog %s (operators: %s)", s.Name, u.key(), strings.Join(ops.names, ", "))
		}
		switch s.State {
		case StatePresent, StateAbsent:
		case "":
			c.add(diag.Warnf(u.Set, f+".state", "is not set: the Meta Operator installs only services whose state is %s, so %q is absent", StatePresent, s.Name))
		default:
			c.errorf(u, u.Set, f+".state", "must be %s or %s, not %q", StatePresent, StateAbsent, s.State)
		}
	}
	return setBy
}

// checkConfig checks the Config's services: a name, of a catalog operator.
func (c *Conversion) checkConfig(u *Unit, cfg ConfigSpec, ops catalogIndex) {
	for k, s := range cfg.Services {
		f := manifest.Field("spec.services", k)
		if s.Name == "" {
			c.errorf(u, u.Config, f+".name", "is required")
			continue
		}
		if !ops.has(s.Name) && u.Catalog != nil {
			c.add(diag.Warnf(u.Config, f+".name", "operator %q is not in MetaOperatorCatalog %s: nothing reads this service", s.Name, u.key()))
		}
	}
}

func (c *Conversion) buildRegistry(u *Unit, cat CatalogSpec, set SetSpec, setBy map[string]int) {
	var entries []any
	for i, op := range cat.Operators {
		channel, from, present := op.Channel, -1, false
		if j, ok := setBy[op.Name]; ok {
			s := set.Services[j]
			if s.Channel != "" {
				channel, from = s.Channel, j
			}
			present = s.State == StatePresent
		}
		ns := op.Namespace
		if ns == "" {
			ns = u.Namespace
		}
		u.Operators = append(u.Operators, Operator{Name: op.Name, Namespace: ns, PackageName: op.PackageName, Channel: channel, Present: present})
		if channel == "" {
			f := manifest.Field("spec.operators", i, "channel")
			if present {
				c.errorf(u, u.Catalog, f, "is required: operator %q is present in MetaOperatorSet %s, which gives no channel either", op.Name, u.key())
			} else {
				c.add(diag.Warnf(u.Catalog, f, "is not set: ODLM requires a channel, so operator %q (absent) is left out of the OperandRegistry", op.Name))
			}
			continue
		}
		entry := map[string]any{
			"name":        op.Name,
			"packageName": op.PackageName,
			"channel":     channel,
		}
		for k, v := range map[string]string{"namespace": op.Namespace, "sourceName": op.SourceName, "sourceNamespace": op.SourceNamespace, "installPlanApproval": op.InstallPlanApproval} {
			if v != "" {
				entry[k] = v
			}
		}
		targets := []any{}
		for _, t := range op.TargetNamespaces {
			targets = append(targets, t)
		}
		entry["targetNamespaces"] = targets
		if from >= 0 {
			u.channelFrom[len(entries)] = from
		}
		u.regToCatalog = append(u.regToCatalog, i)
		entries = append(entries, entry)
	}
	if entries == nil {
		entries = []any{}
	}
	u.Registry = newODLM(u, u.Catalog, api.KindOperandRegistry, map[string]any{"operators": entries})
}

func (c *Conversion) buildConfig(u *Unit) *manifest.Object {
	services := []any{}
	raw, _ := manifest.Get(u.Config.Map, "spec", "services").([]any)
	for _, s := range raw {
		m, _ := s.(map[string]any)
		svc := map[string]any{"name": m["name"]}
		if spec, ok := m["spec"]; ok {
			svc["spec"] = merge.DeepCopy(spec)
		}
		services = append(services, svc)
	}
	return newODLM(u, u.Config, api.KindOperandConfig, map[string]any{"services": services})
}

func (c *Conversion) buildRequest(u *Unit, set SetSpec) *manifest.Object {
	operands := []any{}
	for j, s := range set.Services {
		if s.State != StatePresent {
			continue
		}
		operands = append(operands, map[string]any{"name": s.Name})
		u.operandToSet = append(u.operandToSet, j)
	}
	return newODLM(u, u.Set, api.KindOperandRequest, map[string]any{
		"requests": []any{map[string]any{"registry": u.Name, "operands": operands}},
	})
}

// newODLM builds an ODLM object of the unit's name and namespace from a Meta input: its
// labels and annotations copied, its source kept (results about it point at the input).
func newODLM(u *Unit, from *manifest.Object, kind string, spec map[string]any) *manifest.Object {
	md := map[string]any{"name": u.Name, "namespace": u.Namespace}
	for _, field := range []string{"labels", "annotations"} {
		m, _ := manifest.Get(from.Map, "metadata", field).(map[string]any)
		cp := map[string]any{}
		for k, v := range m {
			if k != lastApplied {
				cp[k] = merge.DeepCopy(v)
			}
		}
		if len(cp) > 0 {
			md[field] = cp
		}
	}
	o := manifest.New(map[string]any{
		"apiVersion": api.APIVersion,
		"kind":       kind,
		"metadata":   md,
		"spec":       spec,
	})
	o.Source = from.Source
	return o
}

// checkCollisions reports ODLM inputs that a unit's ODLM objects would be read together
// with: an OperandRegistry or OperandConfig of the unit's name and namespace (ODLM pairs
// them by name), or an OperandRequest named like the converted Set.
func (c *Conversion) checkCollisions(u *Unit, odlm []*manifest.Object) {
	for _, o := range odlm {
		if o.Name() != u.Name || o.Namespace() != u.Namespace {
			continue
		}
		var meta *manifest.Object
		switch o.Kind() {
		case api.KindOperandRegistry, api.KindOperandConfig:
			meta = u.Catalog
			if meta == nil {
				meta = u.Config
			}
		case api.KindOperandRequest:
			meta = u.Set
		}
		if meta == nil {
			continue
		}
		c.errorf(u, meta, "metadata.name", "%s %s is also among the inputs: the Meta Operator CRs of %s convert into ODLM objects of the same name and namespace, which ODLM would read together with it; rename one", o.Kind(), u.key(), u.key())
	}
}
