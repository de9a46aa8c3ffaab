package fbc

// The one typed decoder of catalog records: it fills the record structs of records.go (Go
// structs with json tags, as operator-registry's declcfg types) from a blob's value tree.
//
// Blobs are value trees (map[string]any, []any, scalars) because the same records are read
// from FBC documents (JSON, or YAML converted by manifest.Converter), from CatalogSnapshots
// and from trees that callers of Builder.AddBlob decoded with another library (map[any]any,
// Go numbers). Decoding the tree directly, rather than re-encoding it as JSON for
// encoding/json, keeps the load as fast as it was and the error texts the hand-written
// field lists gave: "field "x": expected a string, got a list", "entry 2: field "name" is
// missing or empty", "relatedImages element 0: …".

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// treeField is one json-tagged field of a record struct.
type treeField struct {
	key      string
	index    []int // reflect.Value.FieldByIndex: embedded structs are flattened
	required bool  // tag catalog:"required": missing or empty is an error
	reads    bool  // its type is a treeDecoder
	// how a CatalogSnapshot writes it (tag snapshot:"flow", snapshot:"always"; see recordValue)
	flow, always bool
	writes       bool // its type is a snapshotWriter
}

// labeler names the i-th element of a list of records in errors ("entry 2", "property 0");
// elements of other types are "<key> element <i>". It is called on the element as far as
// it was decoded, so that an entry can name itself once its name is known.
type labeler interface {
	label(i int) string
}

var treeFields sync.Map // reflect.Type → []treeField

// fieldsOf lists the json-tagged fields of a struct type in declaration order, embedded
// structs' fields in place.
func fieldsOf(t reflect.Type) []treeField {
	if f, ok := treeFields.Load(t); ok {
		return f.([]treeField)
	}
	var out []treeField
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("json") == "" {
			for _, f := range fieldsOf(sf.Type) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		key, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if key == "" || key == "-" {
			continue
		}
		style := sf.Tag.Get("snapshot")
		out = append(out, treeField{key: key, index: []int{i}, required: sf.Tag.Get("catalog") == "required",
			reads:  reflect.PointerTo(sf.Type).Implements(treeDecoderType),
			writes: reflect.PointerTo(sf.Type).Implements(snapshotWriterType),
			flow:   style == "flow", always: style == "always"})
	}
	treeFields.Store(t, out)
	return out
}

// recordKeys are the keys of a record type, in declaration order: the one list a strict
// reader (knownFields) and a writer take them from.
func recordKeys(rec any) []string {
	t := reflect.TypeOf(rec)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fs := fieldsOf(t)
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.key
	}
	return keys
}

// knownFields is the strict check of the snapshot's records: every key of m is a field of
// rec's type (rec may be a pointer to the record).
func knownFields(m map[string]any, rec any) error {
	return onlyKeys(m, recordKeys(rec)...)
}

// decodeRecord fills the record dst points to from the mapping m, field by field in
// declaration order; keys it has no field for are ignored (see knownFields).
func decodeRecord(m map[string]any, dst any) error {
	return decodeStruct(m, reflect.ValueOf(dst).Elem())
}

// decodeValueRecord fills dst from a property value, which must be a mapping.
func decodeValueRecord(v any, dst any) error {
	m, err := valueMap(v)
	if err != nil {
		return err
	}
	return decodeRecord(m, dst)
}

// closedRecord marks a record whose mappings may have no other keys, wherever it is
// decoded (elements of a snapshot's contents).
type closedRecord interface {
	closed()
}

var closedRecordType = reflect.TypeFor[closedRecord]()

func decodeStruct(m map[string]any, rv reflect.Value) error {
	if rv.Addr().Type().Implements(closedRecordType) {
		if err := knownFields(m, rv.Addr().Interface()); err != nil {
			return err
		}
	}
	for _, f := range fieldsOf(rv.Type()) {
		fv := rv.FieldByIndex(f.index)
		v, ok := m[f.key]
		if !ok || v == nil {
			if f.required {
				return missing(f, fv)
			}
			continue
		}
		if f.reads {
			if err := fv.Addr().Interface().(treeDecoder).fromTree(v); err != nil {
				return fmt.Errorf("%s: %w", f.key, err)
			}
		} else if err := decodeField(v, fv, f.key); err != nil {
			return err
		}
		if f.required && fv.IsZero() {
			return missing(f, fv)
		}
	}
	return nil
}

func missing(f treeField, fv reflect.Value) error {
	if fv.Kind() == reflect.String {
		return fmt.Errorf("field %q is missing or empty", f.key)
	}
	return fmt.Errorf("field %q is missing", f.key)
}

// treeDecoder is a field type that reads its own value (a value that may take two shapes,
// or one checked against another schema).
type treeDecoder interface {
	fromTree(v any) error
}

var treeDecoderType = reflect.TypeFor[treeDecoder]()

// decodeField decodes the value v of field key into fv.
func decodeField(v any, fv reflect.Value, key string) error {
	switch fv.Kind() {
	case reflect.String:
		if s, ok := v.(string); ok {
			fv.SetString(s)
			return nil
		}
		s, err := toString(v, "field "+strconv.Quote(key))
		fv.SetString(s)
		return err
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("field %q: expected a boolean, got %s", key, manifest.Describe(v))
		}
		fv.SetBool(b)
	case reflect.Interface:
		fv.Set(reflect.ValueOf(v))
	case reflect.Map:
		return decodeStringMap(v, fv, key)
	case reflect.Slice:
		return decodeList(v, fv, key)
	case reflect.Pointer:
		m, ok := asMap(v)
		if !ok {
			return fmt.Errorf("field %q: expected a mapping, got %s", key, manifest.Describe(v))
		}
		fv.Set(reflect.New(fv.Type().Elem()))
		return decodeStruct(m, fv.Elem())
	default:
		return fmt.Errorf("field %q: no decoder for %s", key, fv.Type())
	}
	return nil
}

// decodeStringMap reads a mapping of strings (annotations: scalars are taken as their
// text, as Kubernetes tools write an unquoted true or 1).
func decodeStringMap(v any, fv reflect.Value, key string) error {
	m, ok := asMap(v)
	if !ok {
		return fmt.Errorf("field %q: expected a mapping, got %s", key, manifest.Describe(v))
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, err := scalarString(e, fmt.Sprintf("annotation %q", k))
		if err != nil {
			return err
		}
		out[k] = s
	}
	fv.Set(reflect.ValueOf(out).Convert(fv.Type()))
	return nil
}

// decodeList reads a list of strings, of mappings (kept as trees) or of records.
func decodeList(v any, fv reflect.Value, key string) error {
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("field %q: expected a list, got %s", key, manifest.Describe(v))
	}
	et := fv.Type().Elem()
	out := reflect.MakeSlice(fv.Type(), len(l), len(l))
	for i, e := range l {
		ev := out.Index(i)
		if et.Kind() == reflect.String {
			s, err := toString(e, fmt.Sprintf("field %q element %d", key, i))
			if err != nil {
				return err
			}
			ev.SetString(s)
			continue
		}
		m, ok := asMap(e)
		if !ok {
			return fmt.Errorf("field %q element %d: expected a mapping, got %s", key, i, manifest.Describe(e))
		}
		if et.Kind() == reflect.Map {
			ev.Set(reflect.ValueOf(m))
			continue
		}
		if err := decodeStruct(m, ev); err != nil {
			return fmt.Errorf("%s: %w", elementLabel(ev, key, i), err)
		}
	}
	fv.Set(out)
	return nil
}

func elementLabel(ev reflect.Value, key string, i int) string {
	if l, ok := ev.Addr().Interface().(labeler); ok {
		return l.label(i)
	}
	return fmt.Sprintf("%s element %d", key, i)
}
