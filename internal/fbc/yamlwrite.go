package fbc

import (
	"fmt"
	"reflect"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/yamlwrite"
)

// Snapshots are written by internal/yamlwrite, quoted as manifests are. These are the values
// the snapshot code gives it.

// field is one key of a record, written in order; a nil value is left out.
type field struct {
	key   string
	value any
}

// record is a map written with its keys in order (yamlwrite.Fields).
type record []field

func (r record) Len() int                  { return len(r) }
func (r record) Field(i int) (string, any) { return r[i].key, r[i].value }

// flowRecord is a record written on one line ({a: 1, b: 2}; yamlwrite.FlowFields).
type flowRecord []field

func (r flowRecord) Len() int                  { return len(r) }
func (r flowRecord) Field(i int) (string, any) { return r[i].key, r[i].value }
func (flowRecord) OneLine()                    {}

// flowList is a list of strings written on one line ([a, b]).
type flowList = yamlwrite.FlowList

// jsonFlow is canonical JSON text written as it is: a YAML flow collection (see
// canonicalJSON).
type jsonFlow = yamlwrite.Flow

// jsonNull marks a generic JSON tree as a record field's value: nil is then a JSON null (in
// records nil means "leave the field out"; yamlwrite.Nullable).
type jsonNull struct{ v any }

func (n jsonNull) OrNull() any { return n.v }

// newSnapshotWriter is a writer for snapshot text.
func newSnapshotWriter() *yamlwrite.Writer { return &yamlwrite.Writer{} }

// A snapshot is written from its record structs (records_snapshot.go): recordValue turns one
// into the values above, its fields in declaration order under their json keys. A field that
// is empty ("", nil, no elements) is left out, unless tagged snapshot:"always" (then it is
// null or []); snapshot:"flow" writes a list of records or strings on one line per element
// or as a whole. A field type that is a snapshotWriter gives its own value; a field of type
// any holds a record, a list of records, or a JSON tree.

// snapshotWriter is a record field type that gives the value a snapshot writes for it.
type snapshotWriter interface {
	snapshotValue() (any, error)
}

// The record field types that write themselves.
var (
	_ snapshotWriter = (*examplesText)(nil)
	_ snapshotWriter = (*snapshotAnnotations)(nil)
	_ snapshotWriter = (*permissionsRecord)(nil)
	_ snapshotWriter = (*strictList[v1alpha1.WebhookDescription])(nil)
	_ snapshotWriter = (*stringMap)(nil)
	_ snapshotWriter = (*objectText)(nil)
	_ snapshotWriter = (*relatedImagesRecord)(nil)
)

var (
	snapshotWriterType = reflect.TypeFor[snapshotWriter]()
	jsonFlowType       = reflect.TypeFor[jsonFlow]()
)

// recordValue is the record (flowRecord when flow) the struct v is written as.
func recordValue(v reflect.Value, flow bool) (any, error) {
	if !v.CanAddr() { // a struct held by an any: its fields' snapshotValue methods need its address
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	fs := fieldsOf(v.Type())
	r := make(record, len(fs))
	for i, f := range fs {
		x, err := fieldValue(v.FieldByIndex(f.index), f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		r[i] = field{f.key, x}
	}
	if flow {
		return flowRecord(r), nil
	}
	return r, nil
}

// fieldValue is the value of the field f, v.
func fieldValue(v reflect.Value, f treeField) (any, error) {
	if f.writes {
		return v.Addr().Interface().(snapshotWriter).snapshotValue()
	}
	x, err := elemValue(v, f.flow)
	switch {
	case err != nil || !f.always:
		return x, err
	case x == nil && (v.Kind() == reflect.Slice || v.Kind() == reflect.Interface && v.Elem().Kind() == reflect.Slice):
		return []any{}, nil
	case x == nil || x == "":
		return jsonNull{x}, nil
	}
	return x, nil
}

// elemValue is the value of v, a field or an element of a list (nil: left out).
func elemValue(v reflect.Value, flow bool) (any, error) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() == 0 {
			return nil, nil
		}
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		return recordValue(v.Elem(), flow)
	case reflect.Struct:
		return recordValue(v, flow)
	case reflect.Slice:
		return listValue(v, flow)
	case reflect.Interface:
		return anyValue(v, flow)
	}
	return nil, fmt.Errorf("no snapshot value for %s", v.Type())
}

// listValue is a list: of strings (a flowList when flow), of records, or of jsonFlow texts.
func listValue(v reflect.Value, flow bool) (any, error) {
	if v.Len() == 0 {
		return nil, nil
	}
	if v.Type() == jsonFlowType {
		return jsonFlow(v.Bytes()), nil
	}
	if v.Type().Elem().Kind() == reflect.String && flow {
		return flowList(v.Convert(reflect.TypeFor[[]string]()).Interface().([]string)), nil
	}
	out := make([]any, v.Len())
	for i := range out {
		x, err := elemValue(v.Index(i), flow)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = x
	}
	return out, nil
}

// anyValue is the value a field of type any holds: a record or a list of them, or a JSON
// tree.
func anyValue(v reflect.Value, flow bool) (any, error) {
	if v.IsNil() {
		return nil, nil
	}
	e := v.Elem()
	switch e.Kind() {
	case reflect.Pointer, reflect.Struct:
		return elemValue(e, flow)
	case reflect.Slice:
		if k := e.Type().Elem().Kind(); k == reflect.Struct || k == reflect.Pointer {
			return listValue(e, flow)
		}
	}
	return jsonValue(v.Interface()), nil
}
