package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/yamlwrite"
)

// WriteYAML writes objects as a "---" separated YAML stream.
func WriteYAML(w io.Writer, objs []*Object) error {
	docs, err := marshalAll(objs)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for i, b := range docs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(b)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// marshalAll encodes each object as a YAML document, on every core (encoding dominates the
// CLI's run on large fleets); the documents come back in order and the first error is the
// one of the first object that failed, so the output does not depend on scheduling.
func marshalAll(objs []*Object) ([][]byte, error) {
	docs := make([][]byte, len(objs))
	errs := make([]error, len(objs))
	workers := min(runtime.GOMAXPROCS(0), (len(objs)+63)/64)
	if workers <= 1 {
		for i, o := range objs {
			if docs[i], errs[i] = MarshalYAML(o.Map); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return docs, nil
	}
	onCores(len(objs), func(i int) { docs[i], errs[i] = marshalRecovered(objs[i]) })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// marshalRecovered is MarshalYAML on a worker goroutine, where a panic would end the process
// past the front doors' last line of defence: it becomes an error naming the object, never
// carrying the panic's value.
func marshalRecovered(o *Object) (b []byte, err error) {
	defer func() {
		if recover() != nil {
			b, err = nil, fmt.Errorf("internal error: %s could not be written as YAML", o.Ref().String())
		}
	}()
	return MarshalYAML(o.Map)
}

// MarshalYAML encodes one value tree as a YAML document: internal/yamlwrite's block layout
// (2-space indentation, keys in byte order) and its one quoting rule for strings (what yaml.v3
// writes, with YAML 1.1 booleans and sexagesimal numbers double-quoted).
func MarshalYAML(v any) ([]byte, error) {
	w := yamlwrite.NewWriter(1024)
	if err := w.Document(v); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return w.Bytes(), nil
}

// MarshalNode encodes one YAML node with yaml.v3's encoder, in the same layout as MarshalYAML
// (comments and styles the node carries are kept: the KRM function's ResourceList).
func MarshalNode(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSONList writes objects as one `kind: List` JSON document (as kubectl prints lists).
func WriteJSONList(w io.Writer, objs []*Object) error {
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = o.Map
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// MarshalJSON encodes a value compactly with sorted keys and without HTML escaping.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ToValue converts any JSON-marshalable Go value into the value tree.
func ToValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return DecodeJSONValue(b)
}

// Sort orders objects by kind rank, then apiVersion group, kind, namespace and name, so that
// the output does not depend on input order and namespaces and CRDs come first.
func Sort(objs []*Object) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := objs[i], objs[j]
		if ra, rb := kindRank(a.Kind()), kindRank(b.Kind()); ra != rb {
			return ra < rb
		}
		for _, pair := range [][2]string{
			{a.Group(), b.Group()},
			{a.Kind(), b.Kind()},
			{a.Namespace(), b.Namespace()},
			{a.Name(), b.Name()},
			{a.APIVersion(), b.APIVersion()},
		} {
			if pair[0] != pair[1] {
				return pair[0] < pair[1]
			}
		}
		// identical identities (a duplicated input): order by content so input order never shows
		ja, _ := MarshalJSON(a.Map)
		jb, _ := MarshalJSON(b.Map)
		if c := bytes.Compare(ja, jb); c != 0 {
			return c < 0
		}
		// the same content twice: where it came from decides, never the input order
		if a.Source.File != b.Source.File {
			return a.Source.File < b.Source.File
		}
		if a.Source.Index != b.Source.Index {
			return a.Source.Index < b.Source.Index
		}
		return a.Source.Line < b.Source.Line
	})
}

// kindRanks put what installs the operators first, in the order it is needed. OLM v1's
// ClusterCatalog and ClusterExtension take the places of OLM v0's CatalogSource and
// Subscription, so that an --olm v1 render reads like an OLM v0 one.
var kindRanks = map[string]int{
	"Namespace":                1,
	"CustomResourceDefinition": 2,
	"CatalogSource":            3,
	"ClusterCatalog":           3,
	"OperatorGroup":            4,
	"Subscription":             5,
	"ClusterExtension":         5,
}

func kindRank(kind string) int {
	if r, ok := kindRanks[kind]; ok {
		return r
	}
	return 10
}
