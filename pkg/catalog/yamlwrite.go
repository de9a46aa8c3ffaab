package catalog

import "github.com/odlm-render/odlm-render/internal/yamlwrite"

// Snapshots are written by internal/yamlwrite under its Portable rule (plain only for ASCII
// text every YAML 1.1 and 1.2 reader reads as the same string). These are the values the
// snapshot code gives it.

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
func newSnapshotWriter() *yamlwrite.Writer { return &yamlwrite.Writer{Rule: yamlwrite.Portable} }

// yamlPrintable is what snapshots write as it is: YAML's c-printable without line breaks,
// tab and U+FEFF.
func yamlPrintable(r rune) bool { return yamlwrite.Printable(r) }
