package render

import (
	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// operandConfig is a decoded OperandConfig.
type operandConfig struct {
	obj      *manifest.Object
	key      key
	services []api.ConfigService
	// byName indexes the first service of each name
	byName map[string]int
}

// service returns the service an entry reads, with its index: the first named like the
// entry's configName, else the first named like the operator.
func (c *operandConfig) service(e *entry) (*api.ConfigService, int) {
	for _, name := range []string{e.ConfigName, e.Name} {
		if name == "" {
			continue
		}
		if i, ok := c.byName[name]; ok {
			return &c.services[i], i
		}
	}
	return nil, -1
}

func (in *roundInputs) loadConfigs() {
	for _, o := range in.odlmInputs(api.KindOperandConfig) {
		if in.decodeConfig(o) == nil {
			in.noteBrokenInput(o)
		}
		in.warnIfClusterDiffers(o)
	}
	for _, k := range sortedKeys(in.configs) {
		if _, present := in.registryAt(k); !present {
			in.add(diag.Warnf(in.configs[k].obj, "metadata.name", "no OperandRegistry %s %s: ODLM only reads an OperandConfig with the same name and namespace as its registry", k, in.lookedIn()))
		}
	}
}

// decodeConfig decodes an OperandConfig (an input, or one read from the cluster) and
// records it; nil when its spec does not decode.
func (in *roundInputs) decodeConfig(o *manifest.Object) *operandConfig {
	var spec api.OperandConfigSpec
	if !in.r.decodeSpec(o, &spec) {
		return nil
	}
	c := &operandConfig{obj: o, key: key{o.Namespace(), o.Name()}, services: spec.Services, byName: map[string]int{}}
	for i, s := range spec.Services {
		if _, dup := c.byName[s.Name]; !dup {
			c.byName[s.Name] = i
		}
		if s.Name == "" {
			in.add(diag.Errorf(o, manifest.Field("spec.services", i, "name"), "is required"))
		}
		for j, res := range s.Resources {
			for _, f := range [][2]string{{"name", res.Name}, {"kind", res.Kind}, {"apiVersion", res.APIVersion}} {
				if f[1] == "" {
					in.add(diag.Errorf(o, manifest.Field("spec.services", i, "resources", j, f[0]), "is required"))
				}
			}
		}
	}
	in.configs[c.key] = c
	return c
}
