package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/optionspec"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// ConfigAPIVersion and ConfigKind name the function's own functionConfig kind.
const (
	ConfigAPIVersion = inputs.ConfigGroup + "/v1alpha1"
	ConfigKind       = "RenderConfig"
)

// config is the function's configuration, from a RenderConfig's spec or a ConfigMap's data
// (keys: the CLI's flag names, lists comma-separated): the function's own fields, then every
// engine option under its JSON name (internal/optionspec). docs/krm-function.md's reference table
// is generated from this type (readme_test.go). A live cluster is a CLI-only choice: functions
// stay hermetic.
type config struct {
	Catalogs []string `json:"catalogs,omitempty" yaml:"catalogs,omitempty" help:"OLM file-based catalogs or CatalogSnapshots: folders or files, relative to the function's working directory (catalog data among the items is used too); NAME=PATH is the content of CatalogSource NAME (NAMESPACE/NAME, or NAME in the global catalog namespace), a plain PATH that of every CatalogSource not named"`
	// Inputs are files or folders of inputs to read besides the items (a kustomize
	// generator gets no items), relative to the working directory.
	Inputs    []string `json:"inputs,omitempty" yaml:"inputs,omitempty" help:"more inputs read from files or folders, relative to the working directory (a kustomize generator gets no items)"`
	Snapshots []string `json:"snapshots,omitempty" yaml:"snapshots,omitempty" help:"objects exported from a cluster (kubectl get -o yaml), read by templates and never emitted: files or folders"`
	// the engine's options, under their own JSON names (internal/optionspec)
	render.Options
	// renamed say which former option names the functionConfig used
	renamed []string
}

// knownFields are the RenderConfig spec fields and their ConfigMap data keys: the
// function's own, then every engine option under its JSON name and its flag's name.
var knownFields = func() map[string]string {
	m := map[string]string{"catalogs": "catalogs", "inputs": "inputs", "snapshots": "snapshots"}
	for _, o := range optionspec.Of[render.Options]() {
		m[o.JSON] = o.Flag
	}
	return m
}()

// formerFields are the names options had before (optionspec's FormerJSON and FormerFlag),
// mapped to their JSON names now: a functionConfig that uses one still works.
var formerFields = func() map[string]string {
	m := map[string]string{}
	for _, o := range optionspec.Of[render.Options]() {
		if o.FormerJSON != "" {
			m[o.FormerJSON] = o.JSON
		}
		if o.FormerFlag != "" {
			m[o.FormerFlag] = o.JSON
		}
	}
	return m
}()

// renameFormer replaces the former names of options among keys by their names now, and says
// so (renamed); two names of one option are an error.
func renameFormer[V any](m map[string]V, where string) (renamed []string, err error) {
	for _, old := range manifest.SortedKeys(m) {
		now, ok := formerFields[old]
		if !ok {
			continue
		}
		for _, name := range []string{now, knownFields[now]} {
			if _, both := m[name]; both {
				return nil, fmt.Errorf("functionConfig %s: %s and %s are one option (%s is its former name)", where, old, name, old)
			}
		}
		m[now] = m[old]
		delete(m, old)
		renamed = append(renamed, fmt.Sprintf("functionConfig %s: %s is now %s (%s): the former name is still read", where, old, now, knownFields[now]))
	}
	return renamed, nil
}

// configFromData reads a ConfigMap's data: each key is a RenderConfig field under its
// spec name or its dashed name (keep-inputs); lists are comma-separated, booleans parsed.
func configFromData(data map[string]string) (config, error) {
	var c config
	renamed, err := renameFormer(data, "ConfigMap")
	if err != nil {
		return c, err
	}
	c.renamed = renamed
	spec := map[string]any{}
	fields := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(c)) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" && !f.Anonymous {
			fields[name] = f
		}
	}
	for _, k := range manifest.SortedKeys(data) {
		name := k
		for specName, dashed := range knownFields {
			if k == dashed {
				name = specName
			}
		}
		if name == "catalog" {
			name = "catalogs"
		}
		f, ok := fields[name]
		if !ok {
			return c, fmt.Errorf("functionConfig ConfigMap: unknown key data.%s (known: %s)", k, strings.Join(dashedKeys(), ", "))
		}
		v := data[k]
		switch f.Type.Kind() {
		case reflect.Bool:
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("functionConfig ConfigMap data.%s: %q is not a boolean", k, v)
			}
			spec[name] = b
		case reflect.Slice:
			var l []string
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					l = append(l, p)
				}
			}
			spec[name] = l
		default:
			spec[name] = v
		}
	}
	if err := decodeSpec(spec, &c); err != nil {
		return c, fmt.Errorf("functionConfig ConfigMap: %w", err)
	}
	return c, c.check()
}

// dashedKeys are the ConfigMap keys, sorted.
func dashedKeys() []string {
	var out []string
	for _, d := range knownFields {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// check validates the engine's options (empty means the default), naming the functionConfig
// field.
func (c config) check() error {
	var msgs []string
	for _, oe := range optionspec.Errors(c.Validate()) {
		msgs = append(msgs, fmt.Sprintf("functionConfig: %s: %s", oe.Option.JSON, oe.Msg))
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// parseConfig reads the functionConfig: a RenderConfig, a v1 ConfigMap, or none.
func parseConfig(fc *manifest.Object) (config, error) {
	var c config
	if fc == nil || len(fc.Map) == 0 {
		return c, nil
	}
	apiVersion, kind := fc.APIVersion(), fc.Kind()
	switch {
	case kind == ConfigKind && apiVersion == ConfigAPIVersion:
		spec, ok := fc.Map["spec"].(map[string]any)
		if !ok {
			if fc.Map["spec"] != nil {
				return c, fmt.Errorf("functionConfig %s: spec is not a mapping", ConfigKind)
			}
			return c, nil
		}
		renamed, err := renameFormer(spec, ConfigKind)
		if err != nil {
			return c, err
		}
		c.renamed = renamed
		for _, k := range manifest.SortedKeys(spec) {
			if _, ok := knownFields[k]; !ok {
				return c, fmt.Errorf("functionConfig %s: unknown field spec.%s (known: %s)", ConfigKind, k, strings.Join(manifest.SortedKeys(knownFields), ", "))
			}
		}
		if err := decodeSpec(spec, &c); err != nil {
			return c, fmt.Errorf("functionConfig %s: %w", ConfigKind, err)
		}
		return c, c.check()
	case kind == "ConfigMap" && (apiVersion == "v1" || apiVersion == ""):
		data, err := configMapData(fc.Map["data"])
		if err != nil {
			return c, err
		}
		return configFromData(data)
	default:
		return c, fmt.Errorf("functionConfig must be %s %s or a v1 ConfigMap, not %s %s", ConfigAPIVersion, ConfigKind, apiVersion, kind)
	}
}

// decodeSpec decodes a RenderConfig spec (or a ConfigMap's data turned into one); a value
// of the wrong type is an error naming the field.
func decodeSpec(spec map[string]any, c *config) error {
	b, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	if err := json.Unmarshal(b, c); err != nil {
		return api.JSONFieldError("spec", err)
	}
	return nil
}

// configMapData is a ConfigMap's data as strings: scalars in their YAML spelling
// (keep-inputs: true), anything else an error.
func configMapData(v any) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("functionConfig ConfigMap: data is not a mapping")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		case bool:
			out[k] = strconv.FormatBool(v)
		case json.Number:
			out[k] = string(v)
		case nil:
			out[k] = ""
		default:
			return nil, fmt.Errorf("functionConfig ConfigMap: data.%s is not a string", k)
		}
	}
	return out, nil
}
