package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/suggest"
)

// Optional holds an arbitrary JSON value and whether the field was present at all, so that
// "absent", "null" and "{}" stay distinguishable (ODLM treats them differently).
type Optional struct {
	Present bool
	Value   any
}

// UnmarshalJSON records presence and decodes with exact numbers.
func (o *Optional) UnmarshalJSON(b []byte) error {
	v, err := manifest.DecodeJSONValue(b)
	if err != nil {
		return err
	}
	o.Present, o.Value = true, v
	return nil
}

// MarshalJSON writes the value (null when absent).
func (o Optional) MarshalJSON() ([]byte, error) { return json.Marshal(o.Value) }

// IsNull reports a field that is absent or JSON null.
func (o Optional) IsNull() bool { return !o.Present || o.Value == nil }

// FieldIssue is a field of an input that the API server would prune or ODLM would ignore.
type FieldIssue struct {
	Path string
	// Near is the known field the key is likely a typo of ("" when none is close).
	Near string
	// Strict is set for a field of one of OLM's types (a subscriptionConfig): OLM's type
	// has no such field, which is an error rather than a pruned key.
	Strict bool
	// Type names the type without the field ("SubscriptionConfig", "Toleration").
	Type string
}

// DecodeSpec decodes obj.spec into out (a pointer to one of the *Spec types) and returns
// the fields that are not part of the type. A value of the wrong type is an error whose
// text names the field path.
func DecodeSpec(obj *manifest.Object, out any) ([]FieldIssue, error) {
	spec, present := obj.Map["spec"]
	if !present || spec == nil {
		spec = map[string]any{}
	}
	if _, ok := spec.(map[string]any); !ok {
		return nil, &FieldError{Path: "spec", Msg: fmt.Sprintf("must be a mapping, not %s", manifest.Describe(spec))}
	}
	w := walker{}
	// keys match exactly (encoding/json would fill InstanceName from an unknown
	// "instancename", which the API server prunes)
	if err := w.fill(spec, reflect.ValueOf(out).Elem(), "spec"); err != nil {
		return nil, err
	}
	if w.typeErr != nil {
		return nil, w.typeErr
	}
	return w.issues, nil
}

// fill decodes a value tree into rv as encoding/json would decode its JSON form, in one
// pass and without the round trip through JSON, recording the keys the type has no field for
// and the first value of the wrong type (w.issues, w.typeErr). The ODLM types are filled field
// by field; types of other packages (Kubernetes' in SubscriptionConfig, with their own JSON
// decoders) are pruned and checked by walk, then decoded from their subtree's JSON.
func (w *walker) fill(v any, rv reflect.Value, path string) error {
	t := rv.Type()
	switch {
	case t == optionalType:
		// shared with the input: the engine never modifies inputs, and copies a value before
		// it changes one (a fuzz test checks that inputs come out unchanged)
		rv.Set(reflect.ValueOf(Optional{Present: true, Value: v}))
		return nil
	case v == nil:
		rv.Set(reflect.Zero(t))
		return nil
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := w.fill(v, p.Elem(), path); err != nil {
			return err
		}
		rv.Set(p)
		return nil
	case t.PkgPath() != "" && t.PkgPath() != apiPkgPath || reflect.PointerTo(t).Implements(unmarshalerType):
		return w.fillForeign(v, rv, path)
	}
	switch t.Kind() {
	case reflect.Interface:
		rv.Set(reflect.ValueOf(v))
	case reflect.Struct:
		return w.fillStruct(v, rv, path)
	case reflect.Slice:
		return w.fillSlice(v, rv, path)
	case reflect.Map:
		return w.fillMap(v, rv, path)
	case reflect.String, reflect.Bool:
		w.fillScalar(v, rv, path)
	default:
		return w.fillThroughJSON(v, rv, path)
	}
	return nil
}

// fillForeign decodes a value of a type of another package, or one with its own JSON
// decoder: walk prunes and checks it (strictly inside OLM's types), encoding/json decodes it.
func (w *walker) fillForeign(v any, rv reflect.Value, path string) error {
	t := rv.Type()
	strict := w.strict
	w.strict = strict || strings.HasPrefix(t.PkgPath(), olmPkgPrefix)
	pruned := w.walk(v, t, path)
	w.strict = strict
	if w.typeErr != nil {
		return nil
	}
	return fillJSON(pruned, rv, path)
}

// fillThroughJSON decodes a number (the kinds the ODLM types hold otherwise) once walk has
// checked its JSON type.
func (w *walker) fillThroughJSON(v any, rv reflect.Value, path string) error {
	w.walk(v, rv.Type(), path)
	if w.typeErr != nil {
		return nil
	}
	return fillJSON(v, rv, path)
}

// fillScalar sets a string or a boolean.
func (w *walker) fillScalar(v any, rv reflect.Value, path string) {
	switch x := v.(type) {
	case string:
		if rv.Kind() == reflect.String {
			rv.SetString(x)
			return
		}
	case bool:
		if rv.Kind() == reflect.Bool {
			rv.SetBool(x)
			return
		}
	}
	w.mismatch(path, rv.Type(), v)
}

// fillStruct fills an ODLM struct from a mapping, key by key in order; a key without a
// field is an issue.
func (w *walker) fillStruct(v any, rv reflect.Value, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		w.mismatch(path, rv.Type(), v)
		return nil
	}
	idx := jsonIndexes(rv.Type())
	for _, k := range manifest.SortedKeys(m) {
		i, known := idx[k]
		if !known {
			near, _ := suggest.Closest(k, slices.Sorted(maps.Keys(idx)))
			w.issues = append(w.issues, FieldIssue{Path: manifest.Field(path, k), Near: near})
			continue
		}
		if err := w.fill(m[k], rv.Field(i), manifest.Field(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// fillSlice fills a slice from a list (an empty list stays a non-nil slice).
func (w *walker) fillSlice(v any, rv reflect.Value, path string) error {
	l, ok := v.([]any)
	if !ok {
		w.mismatch(path, rv.Type(), v)
		return nil
	}
	out := reflect.MakeSlice(rv.Type(), len(l), len(l))
	for i, e := range l {
		if err := w.fill(e, out.Index(i), manifest.Field(path, i)); err != nil {
			return err
		}
	}
	rv.Set(out)
	return nil
}

// fillMap fills a map from a mapping.
func (w *walker) fillMap(v any, rv reflect.Value, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		w.mismatch(path, rv.Type(), v)
		return nil
	}
	t := rv.Type()
	out := reflect.MakeMapWithSize(t, len(m))
	for _, k := range manifest.SortedKeys(m) {
		ev := reflect.New(t.Elem()).Elem()
		if err := w.fill(m[k], ev, manifest.Field(path, k)); err != nil {
			return err
		}
		out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
	}
	rv.Set(out)
	return nil
}

// scalarMatches reports whether v is of the JSON type a scalar kind decodes from (true for
// the kinds that are not scalars).
func scalarMatches(k reflect.Kind, v any) bool {
	var ok bool
	switch k {
	case reflect.String:
		_, ok = v.(string)
	case reflect.Bool:
		_, ok = v.(bool)
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Float64:
		_, ok = v.(json.Number)
	default:
		return true
	}
	return ok
}

// fillJSON decodes one subtree through its JSON form.
func fillJSON(v any, rv reflect.Value, path string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return &FieldError{Path: path, Msg: err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(rv.Addr().Interface()); err != nil {
		return JSONFieldError(path, err)
	}
	return nil
}

var (
	optionalType = reflect.TypeOf(Optional{})
	apiPkgPath   = optionalType.PkgPath()
)

// indexesByType memoizes jsonIndexes.
var indexesByType sync.Map // reflect.Type → map[string]int

// jsonIndexes maps the JSON names of an ODLM struct type to field indexes (the ODLM types
// embed nothing).
func jsonIndexes(t reflect.Type) map[string]int {
	if f, ok := indexesByType.Load(t); ok {
		return f.(map[string]int)
	}
	out := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = i
	}
	indexesByType.Store(t, out)
	return out
}

// FieldError is a type error at a field path.
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

// JSONFieldError turns an encoding/json decoding error into a FieldError under base
// ("spec.keepInputs: must be a boolean, not a JSON string").
func JSONFieldError(base string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := base
		if te.Field != "" {
			path = base + "." + te.Field
		}
		return &FieldError{Path: path, Msg: fmt.Sprintf("must be %s, not a JSON %s", manifest.DescribeType(te.Type), te.Value)}
	}
	return &FieldError{Path: base, Msg: err.Error()}
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// walker follows a value tree along a Go type: it records keys the type has no field for
// and the first value of the wrong JSON type, both with their full path, and returns the
// tree without the unknown keys (what the API server stores).
type walker struct {
	issues  []FieldIssue
	typeErr *FieldError
	strict  bool // inside one of OLM's types
}

// olmPkgPrefix is where OLM's API types live: their unknown fields are errors.
const olmPkgPrefix = "github.com/operator-framework/api/"

func (w *walker) mismatch(path string, t reflect.Type, v any) {
	if w.typeErr == nil {
		w.typeErr = &FieldError{Path: path, Msg: fmt.Sprintf("must be %s, not %s", manifest.DescribeType(t), manifest.Describe(v))}
	}
}

// walk follows v along t (see walker) and returns v without the keys t has no field for.
func (w *walker) walk(v any, t reflect.Type, path string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t.Kind() == reflect.Interface {
		return v
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return v // Optional, Quantity, IntOrString, Time: the type decides for itself
	}
	switch t.Kind() {
	case reflect.Struct:
		return w.walkStruct(v, t, path)
	case reflect.Slice:
		return w.walkSlice(v, t, path)
	case reflect.Map:
		return w.walkMap(v, t, path)
	}
	if !scalarMatches(t.Kind(), v) {
		w.mismatch(path, t, v)
	}
	return v
}

// walkStruct keeps the keys of a mapping that t has a field for, walked along their types;
// the others are issues.
func (w *walker) walkStruct(v any, t reflect.Type, path string) any {
	m, ok := v.(map[string]any)
	if !ok {
		w.mismatch(path, t, v)
		return v
	}
	fields := jsonFields(t)
	out := make(map[string]any, len(m))
	for _, k := range manifest.SortedKeys(m) {
		ft, known := fields[k]
		if !known {
			near, _ := suggest.Closest(k, slices.Sorted(maps.Keys(fields)))
			w.issues = append(w.issues, FieldIssue{Path: manifest.Field(path, k), Near: near, Strict: w.strict, Type: t.Name()})
			continue
		}
		out[k] = w.walk(m[k], ft, manifest.Field(path, k))
	}
	return out
}

func (w *walker) walkSlice(v any, t reflect.Type, path string) any {
	l, ok := v.([]any)
	if !ok {
		w.mismatch(path, t, v)
		return v
	}
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = w.walk(e, t.Elem(), manifest.Field(path, i))
	}
	return out
}

func (w *walker) walkMap(v any, t reflect.Type, path string) any {
	m, ok := v.(map[string]any)
	if !ok {
		w.mismatch(path, t, v)
		return v
	}
	out := make(map[string]any, len(m))
	for _, k := range manifest.SortedKeys(m) {
		out[k] = w.walk(m[k], t.Elem(), manifest.Field(path, k))
	}
	return out
}

// fieldsByType memoizes jsonFields (the types are few and fixed).
var fieldsByType sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps JSON names to field types, following embedded and inline structs.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldsByType.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := structFields(t)
	fieldsByType.Store(t, out)
	return out
}

func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" || strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
