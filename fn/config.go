package main

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/odlm-render/odlm-render/pkg/inputs"
)

// ConfigAPIVersion and ConfigKind name the function's own functionConfig kind.
const (
	ConfigAPIVersion = inputs.ConfigGroup + "/v1alpha1"
	ConfigKind       = "RenderConfig"
)

// config is the function's configuration, from a RenderConfig or a ConfigMap.
//
//	apiVersion: odlm-render.io/v1alpha1
//	kind: RenderConfig
//	spec:
//	  catalogs: [path, ...]   # folders or files of FBC blobs, relative to the working directory
//	  keepInputs: false       # keep consumed ODLM inputs and catalog blobs
//	  namespace: ""           # namespace for ODLM inputs that have none
//
// A ConfigMap (as `kpt fn eval -- key=value` makes) carries the same as data keys
// `catalogs` (comma-separated), `keep-inputs` and `namespace`.
type config struct {
	Catalogs   []string `json:"catalogs,omitempty" yaml:"catalogs,omitempty"`
	KeepInputs bool     `json:"keepInputs,omitempty" yaml:"keepInputs,omitempty"`
	Namespace  string   `json:"namespace,omitempty" yaml:"namespace,omitempty"`
}

func parseConfig(fc *yaml.RNode) (config, error) {
	var c config
	if fc == nil || fc.IsNilOrEmpty() {
		return c, nil
	}
	meta, err := fc.GetMeta()
	if err != nil {
		return c, fmt.Errorf("functionConfig: %w", err)
	}
	switch {
	case meta.Kind == ConfigKind && meta.APIVersion == ConfigAPIVersion:
		spec := fc.Field("spec")
		if spec == nil || spec.Value.IsNilOrEmpty() {
			return c, nil
		}
		var extra map[string]any
		if err := spec.Value.YNode().Decode(&extra); err != nil {
			return c, fmt.Errorf("functionConfig %s spec: %w", ConfigKind, err)
		}
		for k := range extra {
			switch k {
			case "catalogs", "keepInputs", "namespace":
			default:
				return c, fmt.Errorf("functionConfig %s: unknown field spec.%s (known: catalogs, keepInputs, namespace)", ConfigKind, k)
			}
		}
		if err := spec.Value.YNode().Decode(&c); err != nil {
			return c, fmt.Errorf("functionConfig %s spec: %w", ConfigKind, err)
		}
		return c, nil
	case meta.Kind == "ConfigMap" && (meta.APIVersion == "v1" || meta.APIVersion == ""):
		for k, v := range fc.GetDataMap() {
			switch k {
			case "catalogs", "catalog":
				for _, p := range strings.Split(v, ",") {
					if p = strings.TrimSpace(p); p != "" {
						c.Catalogs = append(c.Catalogs, p)
					}
				}
			case "keep-inputs", "keepInputs":
				b, err := strconv.ParseBool(v)
				if err != nil {
					return c, fmt.Errorf("functionConfig ConfigMap data.%s: %q is not a boolean", k, v)
				}
				c.KeepInputs = b
			case "namespace":
				c.Namespace = v
			default:
				return c, fmt.Errorf("functionConfig ConfigMap: unknown key data.%s (known: catalogs, keep-inputs, namespace)", k)
			}
		}
		return c, nil
	default:
		return c, fmt.Errorf("functionConfig must be %s %s or a v1 ConfigMap, not %s %s", ConfigAPIVersion, ConfigKind, meta.APIVersion, meta.Kind)
	}
}
