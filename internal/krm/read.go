// Package krm owns the wire format of KRM functions (the kpt and kustomize functions
// specification): reading a ResourceList into value trees, and writing one back with the
// orchestrator's path, index and id annotations kept in the format it sent them.
//
// It does what kyaml's fn/framework does for odlm-render-fn, in one pass over the input and
// one over the output: kyaml rewrites every item's annotations several times over (most of
// the function's time at fleet size), holds every item as a yaml.Node, and its command
// package links cobra and OpenAPI schemas that cost start-up time.
package krm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// The ResourceList's own identity.
const (
	APIVersion = "config.kubernetes.io/v1"
	Kind       = "ResourceList"
)

// The annotations orchestrators put on items: kpt and kustomize send the internal ones, the
// legacy ones, or both, and expect a function to answer in the same format.
const (
	PathAnnotation        = "internal.config.kubernetes.io/path"
	IndexAnnotation       = "internal.config.kubernetes.io/index"
	IDAnnotation          = "internal.config.kubernetes.io/id"
	LegacyPathAnnotation  = "config.kubernetes.io/path"
	LegacyIndexAnnotation = "config.kubernetes.io/index"
	LegacyIDAnnotation    = "config.k8s.io/id"
)

// inputName is the file name in errors about the ResourceList itself.
const inputName = "ResourceList"

// ResourceList is a function's input.
type ResourceList struct {
	// APIVersion and Kind are the input's, answered in kind: ResourceList, or List as
	// older orchestrators (and kyaml) accept.
	APIVersion string
	Kind       string
	// Items are the resources, in input order.
	Items []*Item
	// FunctionConfig is the function's configuration, nil when absent.
	FunctionConfig *manifest.Object

	functionConfigNode *yaml.Node
	format             annotationFormat
}

// Item is one resource of the input.
type Item struct {
	// Object is the decoded item; its Source holds the path and index annotations (File is
	// empty when the orchestrator sent none).
	Object *manifest.Object
	// raw (block-style input) or node (any other) is the item as read, written back
	// unchanged (comments and styles kept) by Writer.Keep.
	raw  rawItem
	node *yaml.Node
}

// Read parses a ResourceList (YAML or JSON). Items that are not mappings, and anything
// that is not a single ResourceList document, are errors naming the position.
func Read(r io.Reader) (*ResourceList, error) {
	data, err := fileread.ReadAll(inputName, r)
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %w", inputName, err)
	}
	return Parse(data)
}

// Parse is Read on bytes. A ResourceList in block style is parsed one item at a time (see
// splitList); anything else, and any input where that fails, is parsed as one document,
// which gives the same values and reports the errors.
func Parse(data []byte) (*ResourceList, error) {
	if rl, ok := parseByItem(data); ok {
		return rl, nil
	}
	return parseWhole(data)
}

// parseWhole parses the ResourceList as one document.
func parseWhole(data []byte) (*ResourceList, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, err
	}
	conv := manifest.Converter{Budget: budget(data)}
	rl, itemsNode, err := readHeader(&conv, root)
	if err != nil {
		return nil, err
	}
	if itemsNode != nil && !isNull(itemsNode) {
		if itemsNode.Kind != yaml.SequenceNode {
			return nil, syntaxError(itemsNode.Line, "items is not a list")
		}
		rl.Items = make([]*Item, 0, len(itemsNode.Content))
		for i, n := range itemsNode.Content {
			obj, err := itemObject(&conv, n, i)
			if err != nil {
				return nil, err
			}
			rl.Items = append(rl.Items, &Item{Object: obj, node: n})
		}
	}
	rl.format = formatOf(rl.Items)
	return rl, nil
}

// budget bounds the values a ResourceList may expand to (aliases included).
func budget(data []byte) int { return 10*len(data) + 10000 }

// parseByItem parses a block-style ResourceList item by item; ok is false when the layout
// is not recognised or anything in it fails to parse.
func parseByItem(data []byte) (*ResourceList, bool) {
	header, raws, ok := splitList(data)
	if !ok {
		return nil, false
	}
	root, err := parseDocument(header)
	if err != nil {
		return nil, false
	}
	conv := manifest.Converter{Budget: budget(data)}
	rl, itemsNode, err := readHeader(&conv, root)
	if err != nil || itemsNode == nil || !isNull(itemsNode) {
		return nil, false
	}
	rl.Items = make([]*Item, 0, len(raws))
	for i, raw := range raws {
		text := raw.document()
		// the generated layout without yaml.v3 (the same values: manifest.FastDocument)
		if m, nodes, ok := manifest.FastDocument(text); ok {
			if !conv.Spend(nodes) {
				return nil, false
			}
			rl.Items = append(rl.Items, &Item{Object: locatedItem(m), raw: raw})
			continue
		}
		doc, err := parseDocument(text)
		if err != nil {
			return nil, false
		}
		obj, err := itemObject(&conv, doc, i)
		if err != nil {
			return nil, false
		}
		rl.Items = append(rl.Items, &Item{Object: obj, raw: raw})
	}
	rl.format = formatOf(rl.Items)
	return rl, true
}

// readHeader reads the ResourceList's own fields and returns its items node (nil when absent).
func readHeader(conv *manifest.Converter, root *yaml.Node) (*ResourceList, *yaml.Node, error) {
	if root.Kind != yaml.MappingNode {
		return nil, nil, syntaxError(root.Line, "the input is not a ResourceList (a mapping with kind: ResourceList)")
	}
	rl := &ResourceList{}
	var itemsNode *yaml.Node
	sawKind := false
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if seen[key.Value] {
			// which of two functionConfigs or item lists wins is no reader's guess
			return nil, nil, syntaxError(key.Line, fmt.Sprintf("duplicate key %q", key.Value))
		}
		seen[key.Value] = true
		switch key.Value {
		case "apiVersion":
			rl.APIVersion = value.Value
		case "kind":
			if value.Value != Kind && value.Value != "List" {
				return nil, nil, syntaxError(value.Line, fmt.Sprintf("kind is %q, not %s", value.Value, Kind))
			}
			rl.Kind, sawKind = value.Value, true
		case "items":
			itemsNode = value
		case "functionConfig":
			if isNull(value) {
				continue
			}
			v, err := conv.Value(value)
			if err != nil {
				return nil, nil, converterError(err, value.Line)
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, nil, syntaxError(value.Line, "functionConfig is not a mapping")
			}
			rl.FunctionConfig = &manifest.Object{Map: m, Source: manifest.Source{File: "functionConfig"}}
			rl.functionConfigNode = value
		}
	}
	if !sawKind {
		return nil, nil, syntaxError(root.Line, "the input is not a ResourceList: kind is missing")
	}
	if rl.APIVersion == "" {
		rl.APIVersion = APIVersion
	}
	return rl, itemsNode, nil
}

// parseDocument returns the root node of the one document in data.
func parseDocument(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, syntaxError(0, "empty input: expected a ResourceList")
		}
		return nil, manifest.YAMLError(inputName, data, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, manifest.YAMLError(inputName, data, err)
	case len(extra.Content) > 0 && !isNull(extra.Content[0]):
		return nil, syntaxError(extra.Content[0].Line, "more than one document: expected a single ResourceList")
	}
	if len(doc.Content) == 0 {
		return nil, syntaxError(0, "empty input: expected a ResourceList")
	}
	return doc.Content[0], nil
}

// itemObject decodes one item and locates it by its path and index annotations.
func itemObject(conv *manifest.Converter, n *yaml.Node, i int) (*manifest.Object, error) {
	v, err := conv.Value(n)
	if err != nil {
		return nil, fmt.Errorf("items[%d]: %w", i, converterError(err, n.Line))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, syntaxError(n.Line, fmt.Sprintf("items[%d] is not a mapping", i))
	}
	return locatedItem(m), nil
}

// locatedItem is an item's object, located by its path and index annotations.
func locatedItem(m map[string]any) *manifest.Object {
	obj := &manifest.Object{Map: m}
	annotations := obj.Annotations()
	obj.Source.File = firstOf(annotations, PathAnnotation, LegacyPathAnnotation)
	if idx := firstOf(annotations, IndexAnnotation, LegacyIndexAnnotation); idx != "" {
		obj.Source.Index, _ = strconv.Atoi(idx)
	}
	if obj.Source.File == "" {
		// kustomize with `buildMetadata: [originAnnotations]` says only which file an
		// object came from; its document there is unknown (Index -1)
		if f := originPath(annotations[OriginAnnotation]); f != "" {
			obj.Source.File, obj.Source.Index = f, -1
		}
	}
	return obj
}

// OriginAnnotation is where kustomize records an object's origin (a YAML map with path).
const OriginAnnotation = "config.kubernetes.io/origin"

// originPath reads the path of a kustomize origin annotation ("path: x.yaml\n…"); a remote
// origin (repo, ref) has none worth naming.
func originPath(origin string) string {
	var o struct {
		Path string `yaml:"path"`
		Repo string `yaml:"repo"`
	}
	if origin == "" || yaml.Unmarshal([]byte(origin), &o) != nil || o.Repo != "" {
		return ""
	}
	return o.Path
}

func firstOf(m map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := m[k]; v != "" {
			return v
		}
	}
	return ""
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func syntaxError(line int, msg string) error {
	return &manifest.SyntaxError{File: inputName, Line: line, Msg: msg}
}

// converterError gives a value conversion error (alias budget, depth, keys) its line.
func converterError(err error, fallback int) error {
	var se *manifest.SyntaxError
	if errors.As(err, &se) {
		return err
	}
	return &manifest.SyntaxError{File: inputName, Line: manifest.ErrorLine(err, fallback), Msg: err.Error()}
}
