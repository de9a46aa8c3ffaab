package crd

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The API server's limits on the estimated cost of a CRD's x-kubernetes-validations rules
// when it reads the CRD (k8s.io/apiextensions-apiserver's validation package names them
// StaticEstimatedCostLimit and StaticEstimatedCRDCostLimit). That package is not linked here:
// it would add 18 MB to the KRM function, which links this package; the walk below is the
// server's, and a test compares the two on every CRD it has.
const (
	ruleCostLimit  = 10_000_000
	totalCostLimit = 100_000_000
)

// RulesRefusedError is a version whose CEL rules the API server refuses when it reads the
// CRD: the CRD is never created, so no object of it is.
type RulesRefusedError struct {
	CRD, Version string
	Problems     []Problem
}

func (e *RulesRefusedError) Error() string {
	return fmt.Sprintf("the API server refuses CRD %s, version %s: %s", e.CRD, e.Version, e.Reasons())
}

// Reasons are the server's words for the refusal, one problem after another.
func (e *RulesRefusedError) Reasons() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// CheckRules reads every served version's schema as the API server does when it creates the
// CRD, CEL rules included (their compilation and estimated cost): the first version it
// refuses is the error, named.
func (d *Definition) CheckRules() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the API server's validation code failed on this CRD (%s)", panicKind(p))
		}
	}()
	for _, name := range d.servedOrder {
		if err := d.buildVersion(name); err != nil {
			return err
		}
	}
	return nil
}

// ruleRefusals are what the API server says of the CEL rules of a version's schema when it
// reads the CRD (on create): a rule or messageExpression that does not compile, one whose
// estimated cost (times the number of times it can run, from the maxItems and maxProperties
// above it) is over the per-rule limit, and a total over the CRD's limit. Fields are relative
// to the schema (openAPIV3Schema...). Rules the server would refuse are never run: their cost
// is what the limit exists to refuse.
func ruleRefusals(schema *apiextensions.JSONSchemaProps) (problems []Problem) {
	root := field.NewPath("openAPIV3Schema")
	w := costWalk{envSet: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	one := uint64(1)
	w.visit(&celScope{schema: schema, within: len(schema.XValidations) > 0, cardinality: &one}, root)
	for _, e := range w.errs {
		problems = append(problems, Problem{Field: e.Field, Reason: Reason(e)})
	}
	if w.total > totalCostLimit {
		for _, r := range w.expensive {
			problems = append(problems, Problem{Field: r.path, Reason: Reason(field.Forbidden(nil, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))})
		}
		problems = append(problems, Problem{Field: root.String(), Reason: Reason(field.Forbidden(nil, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", w.total, totalCostLimit)))})
	}
	return problems
}

// costWalk visits a schema as the server's CRD validation does, compiling the rules of
// each node with the types and the cardinality of its place.
type costWalk struct {
	envSet    *environment.EnvSet
	errs      field.ErrorList
	total     uint64
	expensive []ruleCost
}

type ruleCost struct {
	path string
	cost uint64
}

// celScope is a schema node as the server's CEL context sees it: whether a rule at or above
// it applies (within), how many times a rule here can run at most (cardinality, nil for no
// bound), and how to find its CEL types from its parent's.
type celScope struct {
	parent      *celScope
	schema      *apiextensions.JSONSchemaProps
	within      bool
	cardinality *uint64
	// access finds this node's types in its parent's; nil at the root
	access func(parent *celTypes) *celTypes
	types  *celTypes
	err    error
	done   bool
}

type celTypes struct {
	structural *structuralschema.Structural
	decl       *apiservercel.DeclType
}

// typesOf are the node's CEL types: its parent's, narrowed, when the parent has some; else
// its own schema's, read as a resource at the root and for embedded resources.
func (s *celScope) typesOf() (*celTypes, error) {
	if !s.within {
		return nil, nil
	}
	if s.done {
		return s.types, s.err
	}
	s.done = true
	if s.parent != nil {
		pt, err := s.parent.typesOf()
		if err != nil {
			s.err = err
			return nil, err
		}
		if pt != nil {
			if s.types = s.access(pt); s.types != nil {
				return s.types, nil
			}
		}
	}
	st, err := structuralschema.NewStructural(s.schema)
	if err != nil {
		s.err = err
		return nil, err
	}
	decl := model.SchemaDeclType(st, s.parent == nil || s.schema.XEmbeddedResource)
	if decl == nil {
		s.err = fmt.Errorf("unable to convert structural schema to CEL declarations")
		return nil, s.err
	}
	s.types = &celTypes{structural: st, decl: decl}
	return s.types, nil
}

// child is the scope of a property, the items or the additional properties of s.
func (s *celScope) child(schema *apiextensions.JSONSchemaProps, access func(*celTypes) *celTypes) *celScope {
	c := &celScope{parent: s, schema: schema, within: s.within || len(schema.XValidations) > 0, access: access}
	if s.cardinality == nil {
		return c
	}
	if n := maxElements(s.schema); n != nil {
		c.cardinality = new(timesOrMax(*s.cardinality, *n))
	}
	return c
}

// maxElements is how many children a node of the schema can have: one for an object with
// properties or a scalar, maxItems or maxProperties for a list or a map (nil without one).
func maxElements(s *apiextensions.JSONSchemaProps) *uint64 {
	switch {
	case s.Type == "object" && s.AdditionalProperties != nil:
		if s.MaxProperties == nil {
			return nil
		}
		return new(uint64(max(*s.MaxProperties, 0)))
	case s.Type == "array":
		if s.MaxItems == nil {
			return nil
		}
		return new(uint64(max(*s.MaxItems, 0)))
	}
	return new(uint64(1))
}

func (w *costWalk) visit(s *celScope, path *field.Path) {
	if ap := s.schema.AdditionalProperties; ap != nil && ap.Schema != nil {
		w.visit(s.child(ap.Schema, func(p *celTypes) *celTypes {
			if p.structural.AdditionalProperties == nil {
				return nil
			}
			return &celTypes{structural: p.structural.AdditionalProperties.Structural, decl: p.decl.ElemType}
		}), path.Child("additionalProperties"))
	}
	for _, name := range slices.Sorted(maps.Keys(s.schema.Properties)) {
		prop := s.schema.Properties[name]
		w.visit(s.child(&prop, func(p *celTypes) *celTypes {
			if p.structural.Properties == nil {
				return nil
			}
			ps := p.structural.Properties[name]
			escaped, ok := apiservercel.Escape(name)
			if !ok {
				return nil
			}
			f, ok := p.decl.Fields[escaped]
			if !ok {
				return nil
			}
			return &celTypes{structural: &ps, decl: f.Type}
		}), path.Child("properties").Key(name))
	}
	if s.schema.Items != nil && s.schema.Items.Schema != nil {
		w.visit(s.child(s.schema.Items.Schema, func(p *celTypes) *celTypes {
			if p.structural.Items == nil {
				return nil
			}
			return &celTypes{structural: p.structural.Items, decl: p.decl.ElemType}
		}), path.Child("items"))
	}
	if len(s.schema.XValidations) > 0 {
		w.compile(s, path.Child("x-kubernetes-validations"))
	}
}

// compile compiles the rules of one node as the server does on create, and counts their cost.
func (w *costWalk) compile(s *celScope, path *field.Path) {
	t, err := s.typesOf()
	if err != nil {
		w.errs = append(w.errs, field.InternalError(path, fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %w", err)))
		return
	}
	if t == nil {
		w.errs = append(w.errs, field.InternalError(path, fmt.Errorf("internal error: failed to retrieve type information for x-kubernetes-validations")))
		return
	}
	results, err := cel.Compile(t.structural, t.decl, celconfig.PerCallLimit, w.envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		w.errs = append(w.errs, field.InternalError(path, err))
		return
	}
	for i, r := range results {
		rule := path.Index(i).Child("rule")
		cost := r.MaxCost
		if s.cardinality != nil {
			cost = timesOrMax(cost, *s.cardinality)
		} else {
			cost = timesOrMax(cost, r.MaxCardinality)
		}
		if cost > ruleCostLimit {
			w.errs = append(w.errs, field.Forbidden(rule, costMessage("estimated rule cost", cost, ruleCostLimit)))
		}
		w.observe(rule, cost)
		if r.Error != nil {
			if r.Error.Type == apiservercel.ErrorTypeRequired {
				w.errs = append(w.errs, field.Required(rule, r.Error.Detail))
			} else {
				w.errs = append(w.errs, field.Invalid(rule, nil, r.Error.Detail))
			}
		}
		msg := path.Index(i).Child("messageExpression")
		switch {
		case r.MessageExpressionError != nil:
			w.errs = append(w.errs, field.Invalid(msg, nil, r.MessageExpressionError.Detail))
		case r.MessageExpression != nil:
			if r.MessageExpressionMaxCost > ruleCostLimit {
				w.errs = append(w.errs, field.Forbidden(msg, costMessage("estimated messageExpression cost", r.MessageExpressionMaxCost, ruleCostLimit)))
			}
			w.observe(msg, r.MessageExpressionMaxCost)
		}
	}
}

// observe adds a rule's cost to the total, and keeps the four costliest that count (at
// least a hundredth of the limit), as the server names them.
func (w *costWalk) observe(path *field.Path, cost uint64) {
	if math.MaxUint64-w.total < cost {
		w.total = math.MaxUint64
	} else {
		w.total += cost
	}
	if cost < totalCostLimit/100 {
		return
	}
	w.expensive = append(w.expensive, ruleCost{path: path.String(), cost: cost})
	slices.SortStableFunc(w.expensive, func(a, b ruleCost) int { return cmp.Compare(b.cost, a.cost) })
	if len(w.expensive) > 4 {
		w.expensive = w.expensive[:4]
	}
}

// timesOrMax is a*b, or the largest uint64 where that overflows.
func timesOrMax(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

// costMessage is the server's message for a cost over its limit.
func costMessage(what string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var by string
	switch {
	case factor > 100:
		by = "more than 100x"
	case factor < 1.5:
		by = fmt.Sprintf("%fx", factor)
	default:
		by = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, by)
}
