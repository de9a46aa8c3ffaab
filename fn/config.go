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
//	  snapshots: [path, ...]  # objects exported from a cluster, read by templates
//	  pending: warn           # warn | error: required template values that exist only at run time
//	  secrets: inline         # inline | forbid: Secret values outside Secrets
//	  explain: false          # info results naming every template value's sources
//	  bindinfoSecrets: copy   # copy | external-secrets | skip
//
// A ConfigMap (as `kpt fn eval -- key=value` makes) carries the same as data keys
// `catalogs` and `snapshots` (comma-separated), `keep-inputs`, `namespace`, `pending`,
// `secrets`, `explain` and `bindinfo-secrets`. A live cluster is a CLI-only choice: functions stay hermetic.
type config struct {
	Catalogs   []string `json:"catalogs,omitempty" yaml:"catalogs,omitempty"`
	KeepInputs bool     `json:"keepInputs,omitempty" yaml:"keepInputs,omitempty"`
	Namespace  string   `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	Snapshots  []string `json:"snapshots,omitempty" yaml:"snapshots,omitempty"`
	Pending    string   `json:"pending,omitempty" yaml:"pending,omitempty"`
	Secrets    string   `json:"secrets,omitempty" yaml:"secrets,omitempty"`
	Explain    bool     `json:"explain,omitempty" yaml:"explain,omitempty"`
	// BindInfoSecrets is copy, external-secrets or skip.
	BindInfoSecrets string `json:"bindinfoSecrets,omitempty" yaml:"bindinfoSecrets,omitempty"`
}

// knownFields are the RenderConfig spec fields and their ConfigMap data keys.
var knownFields = map[string]string{
	"catalogs": "catalogs", "keepInputs": "keep-inputs", "namespace": "namespace",
	"snapshots": "snapshots", "pending": "pending", "secrets": "secrets", "explain": "explain",
	"bindinfoSecrets": "bindinfo-secrets",
}

// check validates the enumerated settings (empty means the default).
func (c config) check() error {
	switch c.Pending {
	case "", "warn", "error":
	default:
		return fmt.Errorf("functionConfig: pending must be warn or error, not %q", c.Pending)
	}
	switch c.Secrets {
	case "", "inline", "forbid":
	default:
		return fmt.Errorf("functionConfig: secrets must be inline or forbid, not %q", c.Secrets)
	}
	switch c.BindInfoSecrets {
	case "", "copy", "external-secrets", "skip":
	default:
		return fmt.Errorf("functionConfig: bindinfoSecrets must be copy, external-secrets or skip, not %q", c.BindInfoSecrets)
	}
	return nil
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
			if _, ok := knownFields[k]; !ok {
				return c, fmt.Errorf("functionConfig %s: unknown field spec.%s (known: catalogs, keepInputs, namespace, snapshots, pending, secrets, explain, bindinfoSecrets)", ConfigKind, k)
			}
		}
		if err := spec.Value.YNode().Decode(&c); err != nil {
			return c, fmt.Errorf("functionConfig %s spec: %w", ConfigKind, err)
		}
		return c, c.check()
	case meta.Kind == "ConfigMap" && (meta.APIVersion == "v1" || meta.APIVersion == ""):
		for k, v := range fc.GetDataMap() {
			switch k {
			case "catalogs", "catalog":
				for _, p := range strings.Split(v, ",") {
					if p = strings.TrimSpace(p); p != "" {
						c.Catalogs = append(c.Catalogs, p)
					}
				}
			case "snapshots":
				for _, p := range strings.Split(v, ",") {
					if p = strings.TrimSpace(p); p != "" {
						c.Snapshots = append(c.Snapshots, p)
					}
				}
			case "keep-inputs", "keepInputs", "explain":
				b, err := strconv.ParseBool(v)
				if err != nil {
					return c, fmt.Errorf("functionConfig ConfigMap data.%s: %q is not a boolean", k, v)
				}
				if k == "explain" {
					c.Explain = b
				} else {
					c.KeepInputs = b
				}
			case "namespace":
				c.Namespace = v
			case "pending":
				c.Pending = v
			case "secrets":
				c.Secrets = v
			case "bindinfo-secrets", "bindinfoSecrets":
				c.BindInfoSecrets = v
			default:
				return c, fmt.Errorf("functionConfig ConfigMap: unknown key data.%s (known: catalogs, keep-inputs, namespace, snapshots, pending, secrets, explain, bindinfo-secrets)", k)
			}
		}
		return c, c.check()
	default:
		return c, fmt.Errorf("functionConfig must be %s %s or a v1 ConfigMap, not %s %s", ConfigAPIVersion, ConfigKind, meta.APIVersion, meta.Kind)
	}
}
