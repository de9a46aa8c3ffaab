// Package crd owns what the API server does with a custom resource because of its
// CustomResourceDefinition: which group, kind, versions and scope the CRD serves, and how the
// server prunes and validates an object of it on create. It runs
// k8s.io/apiextensions-apiserver's own code for that (structural schema, pruning of unknown
// fields, dropping of nulls, OpenAPI validation, list types, the metadata of embedded
// objects, and x-kubernetes-validations CEL rules), so that a render refuses what the server
// refuses. It reads no files and knows nothing of ODLM.
package crd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Definition is a parsed CustomResourceDefinition.
type Definition struct {
	// Name is metadata.name (plural.group).
	Name          string
	Group, Kind   string
	Plural        string
	Namespaced    bool
	served        map[string]*version
	servedOrder   []string
	preserveAll   bool
	deprecatedMsg map[string]string
	// answers remembers the problems of objects that needed no pruning (see check)
	answers answers
}

// answers are the problems of objects the server keeps as they are, by their content
// without name and namespace (rememberKey): a fleet's objects differ in little else.
type answers struct {
	problems sync.Map
	n        atomic.Int64
}

// maxAnswers bounds what a Definition remembers.
const maxAnswers = 4096

func (a *answers) get(key string) ([]Problem, bool) {
	if key == "" {
		return nil, false
	}
	p, ok := a.problems.Load(key)
	if !ok {
		return nil, false
	}
	return p.([]Problem), true
}

// put remembers the problems of res when the server keeps obj as it is (nothing pruned,
// dropped or defaulted into the answer).
func (a *answers) put(key string, obj map[string]any, res Result) {
	if key == "" || len(res.Pruned) > 0 || !sameMap(res.Object, obj) || a.n.Load() >= maxAnswers {
		return
	}
	a.n.Add(1)
	a.problems.Store(key, res.Problems)
}

// version is what one served version checks with; it is built on first use.
type version struct {
	once       sync.Once
	schema     *apiextensions.JSONSchemaProps
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
	err        error
}

// scheme defaults and converts CRDs as the API server does; it is built on first use (a
// render that reads no CRD, or the KRM function's start, never pays for it).
var scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
})

// Parse reads a CustomResourceDefinition manifest (apiextensions.k8s.io/v1, or the v1beta1
// older bundles carry) as decoded YAML or JSON.
func Parse(obj map[string]any) (*Definition, error) {
	in, err := typed(obj)
	if err != nil {
		return nil, err
	}
	return fromTyped(in)
}

// FromV1 reads a typed CustomResourceDefinition (as operator-framework/api's crds package
// gives OLM's).
func FromV1(in *apiextensionsv1.CustomResourceDefinition) (*Definition, error) {
	return fromTyped(in.DeepCopy())
}

// Internal reads a CustomResourceDefinition manifest (apiextensions.k8s.io/v1 or v1beta1)
// into the API server's internal type, defaulted as the server defaults it.
func Internal(obj map[string]any) (*apiextensions.CustomResourceDefinition, error) {
	in, err := typed(obj)
	if err != nil {
		return nil, err
	}
	return toInternal(in)
}

// typed decodes a manifest into the CRD type of its apiVersion.
func typed(obj map[string]any) (runtime.Object, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	var in runtime.Object
	switch apiVersion {
	case apiextensionsv1.SchemeGroupVersion.String():
		in = &apiextensionsv1.CustomResourceDefinition{}
	case apiextensionsv1beta1.SchemeGroupVersion.String():
		in = &apiextensionsv1beta1.CustomResourceDefinition{}
	default:
		return nil, fmt.Errorf("apiVersion %q is not a CustomResourceDefinition version (apiextensions.k8s.io/v1)", apiVersion)
	}
	if err := json.Unmarshal(raw, in); err != nil {
		return nil, fmt.Errorf("reading the CRD: %w", err)
	}
	return in, nil
}

// toInternal defaults a typed CRD and converts it to the internal type, as the server does.
func toInternal(in runtime.Object) (*apiextensions.CustomResourceDefinition, error) {
	s := scheme()
	s.Default(in)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := s.Convert(in, internal, nil); err != nil {
		return nil, fmt.Errorf("reading the CRD: %w", err)
	}
	return internal, nil
}

func fromTyped(in runtime.Object) (d *Definition, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("the API server's code failed reading this CRD (%s)", panicKind(p))
		}
	}()
	internal, err := toInternal(in)
	if err != nil {
		return nil, err
	}
	return fromInternal(internal)
}

func fromInternal(internal *apiextensions.CustomResourceDefinition) (d *Definition, err error) {
	spec := internal.Spec
	d = &Definition{
		Name:          internal.Name,
		Group:         spec.Group,
		Kind:          spec.Names.Kind,
		Plural:        spec.Names.Plural,
		Namespaced:    spec.Scope == apiextensions.NamespaceScoped,
		served:        map[string]*version{},
		preserveAll:   spec.PreserveUnknownFields != nil && *spec.PreserveUnknownFields,
		deprecatedMsg: map[string]string{},
	}
	if d.Group == "" || d.Kind == "" {
		return nil, errors.New("spec.group and spec.names.kind are required")
	}
	for _, v := range spec.Versions {
		if !v.Served {
			continue
		}
		cv, err := apiextensions.GetSchemaForVersion(internal, v.Name)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		ver := &version{}
		if cv != nil {
			ver.schema = cv.OpenAPIV3Schema
		}
		d.served[v.Name] = ver
		d.servedOrder = append(d.servedOrder, v.Name)
		if v.Deprecated {
			msg := "deprecated"
			if v.DeprecationWarning != nil {
				msg = *v.DeprecationWarning
			}
			d.deprecatedMsg[v.Name] = msg
		}
	}
	return d, nil
}

// Versions returns the served versions, in the CRD's order.
func (d *Definition) Versions() []string { return slices.Clone(d.servedOrder) }

// buildVersion builds a served version; its error names the CRD and the version.
func (d *Definition) buildVersion(ver string) error {
	err := d.served[ver].build()
	if refused := (*RulesRefusedError)(nil); errors.As(err, &refused) {
		return &RulesRefusedError{CRD: d.Name, Version: ver, Problems: refused.Problems}
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", d.Name, ver, err)
	}
	return nil
}

func (v *version) build() error {
	v.once.Do(func() {
		if v.schema == nil {
			return
		}
		s, err := structuralschema.NewStructural(v.schema)
		if err != nil {
			v.err = fmt.Errorf("the schema is not structural: %w", err)
			return
		}
		if errs := structuralschema.ValidateStructural(nil, s); len(errs) > 0 {
			v.err = fmt.Errorf("the schema is not structural: %s", describe(errs))
			return
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			v.err = err
			return
		}
		v.structural = s
		v.validator, _, v.err = apiservervalidation.NewSchemaValidator(v.schema)
		if v.err != nil {
			return
		}
		if hasCELRules(v.schema) {
			if refused := ruleRefusals(v.schema); len(refused) > 0 {
				v.err = &RulesRefusedError{Problems: refused}
				return
			}
			v.cel = cel.NewValidator(withoutMessageExpressions(s.DeepCopy()), true, celconfig.PerCallLimit)
		}
	})
	return v.err
}

func hasCELRules(s *apiextensions.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasCELRules(&p) {
			return true
		}
	}
	if s.Items != nil {
		if hasCELRules(s.Items.Schema) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if hasCELRules(&s.Items.JSONSchemas[i]) {
				return true
			}
		}
	}
	if s.AdditionalProperties != nil && hasCELRules(s.AdditionalProperties.Schema) {
		return true
	}
	for _, l := range [][]apiextensions.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			if hasCELRules(&l[i]) {
				return true
			}
		}
	}
	return false
}

// Problem is a value the server refuses: the field (a path such as spec.weekdays) and why,
// in the server's words but without the value (which may be a secret).
type Problem struct {
	Field  string
	Reason string
}

func (p Problem) String() string { return p.Field + ": " + p.Reason }

// Result is what the server would do with an object on create.
type Result struct {
	// Object is the object as stored: a pruned copy when anything was pruned or dropped, the
	// object given otherwise (which is never modified).
	Object map[string]any
	// Pruned are the paths of the unknown fields the server drops, sorted.
	Pruned []string
	// Problems are the values the server refuses, sorted by field.
	Problems []Problem
	// Deprecated is the version's deprecation warning, if any.
	Deprecated string
}

// ErrVersionNotServed is returned by Check for a version the CRD does not serve.
var ErrVersionNotServed = errors.New("version not served")

// Check runs the server's create path on obj, an object of this CRD's group and kind: the
// version must be served; unknown fields are pruned (metadata's too); the pruned object is
// validated. An error is a CRD the server could not serve (not a problem of obj).
func (d *Definition) Check(obj map[string]any) (res Result, err error) {
	return d.check(obj, false)
}

// CheckDefaulted is Check whose Object also carries the defaults the server writes.
func (d *Definition) CheckDefaulted(obj map[string]any) (res Result, err error) {
	return d.check(obj, true)
}

// check is Check and CheckDefaulted: the object's version must be served; an object like
// one checked before gets the answer remembered for it; any other goes the server's create
// path (createPath).
func (d *Definition) check(obj map[string]any, defaults bool) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{Object: obj}, fmt.Errorf("the API server's validation code failed on this object (%s)", panicKind(p))
		}
	}()
	apiVersion, _ := obj["apiVersion"].(string)
	_, ver, _ := strings.Cut(apiVersion, "/")
	v, ok := d.served[ver]
	if !ok {
		return Result{Object: obj}, fmt.Errorf("%w: %s serves %s", ErrVersionNotServed, d.Name, strings.Join(d.servedOrder, ", "))
	}
	res = Result{Object: obj, Deprecated: d.deprecatedMsg[ver]}
	if err := d.buildVersion(ver); err != nil {
		return res, err
	}
	key := v.rememberKey(ver, obj, defaults)
	if p, ok := d.answers.get(key); ok {
		res.Problems = p
		return res, nil
	}
	if err := d.createPath(v, obj, defaults, &res); err != nil {
		return res, err
	}
	d.answers.put(key, obj, res)
	return res, nil
}

// rememberKey is the key under which the answer for obj is remembered (checkKey), or ""
// when it must not be: defaults are asked for, or root CEL rules may read the name and
// namespace.
func (v *version) rememberKey(ver string, obj map[string]any, defaults bool) string {
	if defaults || (v.schema != nil && len(v.schema.XValidations) > 0) {
		return ""
	}
	return checkKey(ver, obj)
}

// createPath is what the server does with an object of a served version on create: it reads
// the object into the types its code uses, prunes it (prune), validates it with its
// defaults applied (validate), and stores it pruned. res.Object becomes a copy when anything
// was pruned or dropped, or with defaults asked for.
func (d *Definition) createPath(v *version, obj map[string]any, defaults bool, res *Result) error {
	u, err := unstructured(obj)
	if err != nil {
		return err
	}
	um := u.(map[string]any)
	pruned, changed, err := d.prune(v, um)
	if err != nil {
		res.Problems = []Problem{{Field: "metadata", Reason: metadataReason(err)}}
		return nil
	}
	res.Pruned = pruned
	if changed {
		res.Object = restoreNumbers(runtime.DeepCopyJSON(um), obj)
	}
	// the server validates the object with its defaults applied (rules such as Route's
	// "host or a wildcard policy" rely on them); what is returned stays without them
	if v.structural != nil {
		structuraldefaulting.Default(um, v.structural)
		if defaults {
			res.Object = restoreNumbers(runtime.DeepCopyJSON(um), obj)
		}
	}
	res.Problems = problemsOf(v.validate(um))
	return nil
}

// prune drops what the server does not store: metadata's fields that ObjectMeta lacks, the
// fields the schema does not know (unless the CRD preserves them) and the nulls of
// non-nullable fields without a default. It returns the pruned paths, sorted, and whether
// um changed; err is metadata that is not an object's metadata.
func (d *Definition) prune(v *version, um map[string]any) (pruned []string, changed bool, err error) {
	_, _, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(um, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, false, err
	}
	for _, path := range metaUnknown {
		deletePath(um, path)
	}
	pruned = slices.Clone(metaUnknown)
	var nulls bool
	if v.structural != nil && !d.preserveAll {
		pruned = append(pruned, structuralpruning.PruneWithOptions(um, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		before := countNulls(um)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(um, v.structural)
		nulls = countNulls(um) != before
	}
	slices.Sort(pruned)
	pruned = slices.Compact(pruned)
	return pruned, len(pruned) > 0 || nulls, nil
}

// validate runs the server's validation of a pruned object with its defaults: the OpenAPI
// schema, the metadata of embedded objects, list types, and the CEL rules unless an error
// already keeps the server from running them (blocking).
func (v *version) validate(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	if v.validator != nil {
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, v.validator)...)
	}
	if v.structural == nil {
		return errs
	}
	errs = append(errs, schemaobjectmeta.Validate(nil, obj, v.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	if v.cel != nil && !blocking(errs) {
		celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}

// problemsOf are the server's field errors as problems, sorted by field, without repeats.
func problemsOf(errs field.ErrorList) []Problem {
	var out []Problem
	for _, e := range errs {
		out = append(out, Problem{Field: e.Field, Reason: Reason(e)})
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) })
	return slices.Compact(out)
}

// blocking tells errors after which the server does not run CEL rules (a value of the wrong
// type, a required field missing).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Type == field.ErrorTypeTypeInvalid || e.Type == field.ErrorTypeRequired || e.Type == field.ErrorTypeNotSupported {
			return true
		}
	}
	return false
}

// Reason is a field error in the server's words without the value it refuses (which may be a
// Secret's): the error's type and detail, never its BadValue, and the details that quote the
// value lose the quote (a format's `must be of type date-time: "<value>"`, a CEL function's
// error while evaluating a rule, which may print its argument).
func Reason(e *field.Error) string {
	detail := e.Detail
	switch e.Type {
	case field.ErrorTypeTypeInvalid, field.ErrorTypeInvalid:
		// the details of go-openapi repeat the path: "spec.x in body must be of type string: \"integer\""
		if i := strings.Index(detail, " in body "); i >= 0 && !strings.Contains(detail[:i], " ") {
			detail = detail[i+len(" in body "):]
		}
		detail = withoutTypeData(detail)
		detail = withoutEvaluationError(detail)
	}
	detail = strings.TrimSuffix(detail, " in ") // go-openapi's "… in <path>" with no path
	if detail == "" {
		return e.Type.String()
	}
	return e.Type.String() + ": " + detail
}

// typeDetail is how go-openapi starts the detail of a value of the wrong type or format.
const typeDetail = "must be of type "

// isJSONType tells the names go-openapi gives the type of a value it refuses.
func isJSONType(name string) bool {
	switch name {
	case "null", "boolean", "integer", "number", "string", "array", "object":
		return true
	}
	return false
}

// withoutTypeData keeps `must be of type T: "U"` when U names the type of the value given (a
// type mismatch) and cuts it when it is the value itself (a format the value does not match:
// T is the format) or an error about the value (", because: …").
func withoutTypeData(detail string) string {
	rest, ok := strings.CutPrefix(detail, typeDetail)
	if !ok {
		return detail
	}
	if i := strings.Index(rest, ", because: "); i >= 0 {
		return typeDetail + rest[:i]
	}
	typ, data, found := strings.Cut(rest, ": ")
	if !found {
		return detail
	}
	if given, err := strconv.Unquote(data); err == nil && allJSONTypes(typ) && isJSONType(given) {
		return detail
	}
	return typeDetail + typ
}

func allJSONTypes(list string) bool {
	for _, t := range strings.Split(list, ",") {
		if !isJSONType(t) {
			return false
		}
	}
	return true
}

// withoutEvaluationError drops the error of a CEL rule that failed to evaluate ("<error>
// evaluating rule: <rule>"): a function's error may print its argument (url(), duration()…).
func withoutEvaluationError(detail string) string {
	const evaluating = " evaluating rule: "
	if i := strings.Index(detail, evaluating); i >= 0 {
		return "the rule cannot be evaluated on this value: " + detail[i+len(evaluating):]
	}
	return detail
}

// withoutMessageExpressions clears the messageExpression of every CEL rule of a structural
// schema: it may print any value of the object (self), so the messages are the rules'
// message, or the rule itself, as the server gives them when a messageExpression fails.
func withoutMessageExpressions(s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	clearMessageExpressions(s.XValidations)
	for k, p := range s.Properties {
		s.Properties[k] = *withoutMessageExpressions(&p)
	}
	withoutMessageExpressions(s.Items)
	if s.AdditionalProperties != nil {
		withoutMessageExpressions(s.AdditionalProperties.Structural)
	}
	// rules inside allOf, anyOf, oneOf or not make a schema non-structural: build refuses it
	return s
}

func clearMessageExpressions(rules apiextensionsv1.ValidationRules) {
	for i := range rules {
		rules[i].MessageExpression = ""
	}
}

// metadataReason says why metadata cannot be read as ObjectMeta without the value: JSON's
// type errors print numbers ("number 12"), a timestamp's parse error prints the text.
func metadataReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		kind, _, _ := strings.Cut(te.Value, " ")
		return fmt.Sprintf("Invalid value: %s is %s, not %s", te.Field, kind, te.Type)
	}
	return "Invalid value: is not an object's metadata (a field has a value of the wrong form)"
}

func describe(errs field.ErrorList) string {
	var parts []string
	for _, e := range errs {
		parts = append(parts, e.Field+": "+Reason(e))
	}
	return strings.Join(parts, "; ")
}

// unstructured copies a decoded value into the types the server's code reads: int64 and
// float64 for numbers (json.Number, int…), maps and slices copied.
func unstructured(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := unstructured(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := unstructured(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case float64:
		// a YAML or JSON decoder may give 5 as float64; the server's decoder gives int64
		if x == float64(int64(x)) && x >= -1<<53 && x <= 1<<53 {
			return int64(x), nil
		}
		return x, nil
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", x, err)
		}
		return f, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint64:
		if x > 1<<63-1 {
			return float64(x), nil
		}
		return int64(x), nil
	case uint:
		return int64(x), nil
	case float32:
		return float64(x), nil
	case nil, string, bool, int64:
		return x, nil
	}
	return nil, fmt.Errorf("value of type %T cannot be checked", v)
}

// restoreNumbers returns the pruned copy with the original's scalars where the copy kept
// them: numbers stay as the render holds them (json.Number keeps 1.0 as written).
func restoreNumbers(pruned any, orig any) map[string]any {
	out, _ := restore(pruned, orig).(map[string]any)
	return out
}

func restore(pruned, orig any) any {
	switch p := pruned.(type) {
	case map[string]any:
		o, _ := orig.(map[string]any)
		for k, v := range p {
			p[k] = restore(v, o[k])
		}
		return p
	case []any:
		o, _ := orig.([]any)
		for i, v := range p {
			var oi any
			if i < len(o) {
				oi = o[i]
			}
			p[i] = restore(v, oi)
		}
		return p
	case nil:
		return p
	}
	switch orig.(type) {
	case map[string]any, []any, nil:
		// a value the server added (a default): numbers as the render holds them
		switch x := pruned.(type) {
		case int64:
			return json.Number(strconv.FormatInt(x, 10))
		case float64:
			return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
		}
		return pruned
	}
	return orig
}

// deletePath removes the field at a path such as metadata.ownerReferences[0].extra.
func deletePath(m map[string]any, path string) {
	var cur any = m
	parts := strings.Split(path, ".")
	for i, part := range parts {
		key, rest, _ := strings.Cut(part, "[")
		mm, ok := cur.(map[string]any)
		if !ok {
			return
		}
		if i == len(parts)-1 && rest == "" {
			delete(mm, key)
			return
		}
		cur = mm[key]
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			l, ok := cur.([]any)
			if err != nil || !ok || n < 0 || n >= len(l) {
				return
			}
			cur = l[n]
			rest = strings.TrimPrefix(after, "[")
		}
	}
}

// panicKind names a recovered panic without its value, which may quote the object.
func panicKind(p any) string {
	if e, ok := p.(error); ok {
		return fmt.Sprintf("%T", e)
	}
	return fmt.Sprintf("%T", p)
}

// FieldsAt returns the field names the schema of the object's version allows in the mapping
// that holds path's last field (spec.wekdays → the fields of spec), for did-you-means; nil
// when the schema does not list them.
func (d *Definition) FieldsAt(apiVersion, path string) []string {
	_, ver, _ := strings.Cut(apiVersion, "/")
	v, ok := d.served[ver]
	if !ok || v.build() != nil || v.structural == nil {
		return nil
	}
	s := v.structural
	parts := strings.Split(path, ".")
	if parts[0] == "metadata" {
		return nil
	}
	for _, part := range parts[:len(parts)-1] {
		key, rest, _ := strings.Cut(part, "[")
		p, ok := s.Properties[key]
		switch {
		case ok:
			s = &p
		case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
			s = s.AdditionalProperties.Structural
		default:
			return nil
		}
		for ; rest != ""; rest = strings.TrimPrefix(rest[strings.IndexByte(rest, ']')+1:], "[") {
			if s.Items == nil || !strings.Contains(rest, "]") {
				return nil
			}
			s = s.Items
		}
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// checkKey is an object's content without its name and namespace, with its version.
func checkKey(ver string, obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	rest := make(map[string]any, len(obj))
	for k, v := range obj {
		rest[k] = v
	}
	if md != nil {
		m := make(map[string]any, len(md))
		for k, v := range md {
			if k != "name" && k != "namespace" {
				m[k] = v
			}
		}
		rest["metadata"] = m
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return ""
	}
	return ver + "\x00" + string(b)
}

// sameMap reports whether two maps are the same map (not a copy).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// countNulls counts the null values of a tree.
func countNulls(v any) int {
	switch x := v.(type) {
	case nil:
		return 1
	case map[string]any:
		n := 0
		for _, e := range x {
			n += countNulls(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += countNulls(e)
		}
		return n
	}
	return 0
}
