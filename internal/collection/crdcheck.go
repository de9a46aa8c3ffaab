package collection

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/odlm-render/odlm-render/internal/crd/definition"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// propertyRe finds the var a schema path is about:
// spec.validation.openAPIV3Schema.properties[spec].properties[size].default.
var propertyRe = regexp.MustCompile(`openAPIV3Schema\.properties\[spec\]\.properties\[([^\]]+)\](?:\.(.*))?$`)

// checkCRDs runs the API server's validation of a CustomResourceDefinition
// (k8s.io/apiextensions-apiserver) on each CRD the import creates, and reports what it
// refuses at the operator-config field it comes from: a var's default that its type or
// options refuse, a kind or version the server cannot name a resource with, a group it
// protects.
func (c *checker) checkCRDs(cfg *Config) {
	// where the group, version or a kind is invalid (reported already), the CRD is checked
	// with a stand-in, and what the server says of the stand-in is not repeated
	stand := *cfg
	if stand.Group == "" {
		stand.Group = "stand-in.invalid"
	}
	if stand.APIVersion == "" {
		stand.APIVersion = "v1"
	}
	for _, r := range cfg.Resources {
		standIn := cfg.Group == "" || cfg.APIVersion == "" || r.Kind == ""
		if r.Kind == "" {
			r.Kind, r.Plural, r.Singular = "StandIn", "standins", "standin"
		}
		obj := stand.crd(r)
		problems, err := definition.Validate(obj)
		if err != nil {
			c.add(diag.Error, c.file, r.Line, r.field, "internal: the CRD of %s cannot be checked: %v", r.field, err)
			continue
		}
		for _, p := range problems {
			line, field, what, named := c.crdProblemSource(cfg, r, p.Field)
			if standIn && named {
				continue
			}
			c.add(diag.Error, c.file, line, field, "%sthe API server refuses the CRD the import creates for kind %s: %s: %s", what, r.Kind, p.Field, p.Reason)
		}
	}
}

// crdProblemSource maps a field of a generated CRD to the operator-config field it comes
// from: its line, its path, and what to say of the value.
// named is set for problems of the CRD's names, group or version.
func (c *checker) crdProblemSource(cfg *Config, r Resource, crdField string) (line int, field, what string, named bool) {
	if m := propertyRe.FindStringSubmatch(crdField); m != nil {
		for _, v := range r.Vars {
			if v.Name != m[1] {
				continue
			}
			if strings.HasPrefix(m[2], "default") && v.defaultLine > 0 {
				return v.defaultLine, manifest.Field(v.field, "default"), fmt.Sprintf("%q: ", v.defaultText), false
			}
			return v.Line, v.field, "", false
		}
	}
	switch {
	case strings.HasPrefix(crdField, "spec.names"), crdField == "metadata.name":
		return r.kindLine, manifest.Field(r.field, "kind"), fmt.Sprintf("%q: ", r.Kind), true
	case strings.HasPrefix(crdField, "spec.version"):
		return c.rootKeyLine("version"), "version", fmt.Sprintf("%q (CRD version %q): ", cfg.Version, cfg.APIVersion), true
	case strings.HasPrefix(crdField, "spec.group"), strings.HasPrefix(crdField, "metadata.annotations"):
		return c.rootKeyLine("domain"), "domain", fmt.Sprintf("API group %q: ", cfg.Group), true
	}
	return r.Line, r.field, "", false
}
