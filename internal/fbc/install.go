package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Install is the part of a ClusterServiceVersion that OLM's install strategy turns into
// objects (operator-controller's registry+v1 renderer reads the same): kept whole so that
// a render can install the operator without OLM.
type Install struct {
	CSVName     string                        `json:"csvName"`               // CSV metadata.name
	Annotations map[string]string             `json:"annotations,omitempty"` // CSV metadata.annotations
	Deployments []InstallDeployment           `json:"deployments"`           // spec.install.spec.deployments, in CSV order
	Webhooks    []v1alpha1.WebhookDescription `json:"webhooks,omitempty"`    // spec.webhookdefinitions, in CSV order
	APIServices []string                      `json:"apiServices,omitempty"` // spec.apiservicedefinitions.owned, each "<version>.<group>" (OLM's APIService name), sorted
	// InstallModes are the CSV's spec.installModes, which OLM checks an OperatorGroup against
	// (a catalog's olm.csv.metadata copies them; a hand-written catalog may not)
	InstallModes []InstallMode `json:"installModes,omitempty"`
}

// InstallDeployment is one deployment of the install strategy.
type InstallDeployment struct {
	Name  string            `json:"name"`
	Label map[string]string `json:"label,omitempty"` // the CSV's label field: the Deployment's labels
	Spec  json.RawMessage   `json:"spec"`            // the DeploymentSpec exactly as the CSV gives it, as canonical JSON (catalog's canonicalJSON); decode with Contents.DeploymentSpec
}

// Manifest decodes the i-th other manifest (numbers json.Number, as CRD(i) does); the caller may modify the result.
func (c *Contents) Manifest(i int) (map[string]any, error) {
	if i < 0 || i >= len(c.Manifests) {
		return nil, fmt.Errorf("manifest %d: the contents hold %d manifests", i, len(c.Manifests))
	}
	m, err := decodeObject(c.Manifests[i])
	if err != nil {
		return nil, fmt.Errorf("manifest %d: %w", i, err)
	}
	return m, nil
}

// DeploymentSpec decodes the i-th install deployment's spec the same way.
func (c *Contents) DeploymentSpec(i int) (map[string]any, error) {
	if c.Install == nil {
		return nil, errors.New("the contents hold no install strategy (a snapshot written before it was kept)")
	}
	if i < 0 || i >= len(c.Install.Deployments) {
		return nil, fmt.Errorf("install deployment %d: the install strategy has %d deployments", i, len(c.Install.Deployments))
	}
	d := c.Install.Deployments[i]
	m, err := decodeObject(d.Spec)
	if err != nil {
		return nil, fmt.Errorf("install deployment %q: spec: %w", d.Name, err)
	}
	return m, nil
}

// decodeObject decodes JSON text that must hold an object, numbers exact (json.Number).
func decodeObject(raw []byte) (map[string]any, error) {
	v, err := decodeNumbers(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", manifest.Describe(v))
	}
	return m, nil
}

// decodeNumbers decodes JSON text into a value tree, numbers exact (json.Number).
func decodeNumbers(raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// canonicalText rewrites JSON text as canonicalJSON (a missing value: null).
func canonicalText(raw []byte) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage("null"), nil
	}
	v, err := decodeNumbers(raw)
	if err != nil {
		return nil, err
	}
	return canonicalJSON(v)
}

// manifestText is a manifest's text as Contents keeps it: canonical, or, while a catalog
// loads, as given (valid JSON, which packInstall compacts; canonicalize rewrites the heads').
func manifestText(raw []byte, packing bool) (json.RawMessage, error) {
	if packing {
		if len(raw) == 0 {
			return json.RawMessage("null"), nil
		}
		return raw, nil
	}
	return canonicalText(raw)
}

// isJSONObject tells JSON text that holds an object.
func isJSONObject(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// csvDeployment is an element of the install strategy's deployments
// (v1alpha1.StrategyDeploymentSpec, with the spec kept as its text).
type csvDeployment struct {
	Name  string            `json:"name"`
	Label map[string]string `json:"label"`
	Spec  json.RawMessage   `json:"spec"`
}

// installOf is the Install of a parsed CSV; its deployments' specs are manifestText.
func installOf(csv *csvObject, packing bool) (*Install, error) {
	spec := &csv.Spec
	in := &Install{CSVName: csv.Metadata.Name, Annotations: nonEmptyMap(csv.Metadata.Annotations),
		Webhooks: nonEmpty(spec.WebhookDefinitions), InstallModes: nonEmpty(spec.InstallModes)}
	for _, d := range spec.Install.Spec.Deployments {
		text, err := manifestText(d.Spec, packing)
		if err == nil && !isJSONObject(text) && string(text) != "null" {
			err = errors.New("not a JSON object") // OLM's DeploymentSpec would not read it either
		}
		if err != nil {
			return nil, fmt.Errorf("install deployment %q: spec: %w", d.Name, err)
		}
		in.Deployments = append(in.Deployments, InstallDeployment{Name: d.Name, Label: nonEmptyMap(d.Label), Spec: text})
	}
	for _, a := range spec.APIServiceDefinitions.Owned {
		in.APIServices = append(in.APIServices, a.Version+"."+a.Group)
	}
	slices.Sort(in.APIServices)
	return in, nil
}

// nonEmpty is l, or nil when it has no elements (so that every reader gives the same value
// for an absent and an empty field); nonEmptyMap likewise.
func nonEmpty[L ~[]E, E any](l L) L {
	if len(l) == 0 {
		return nil
	}
	return l
}

func nonEmptyMap[M ~map[K]E, K comparable, E any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
}

// checkManifests checks that Manifests are Objects whole: none without Install, else one per
// object, naming the same object.
func (c *Contents) checkManifests() error {
	if c.Install == nil {
		if len(c.Manifests) > 0 {
			return errors.New("manifests: given without install")
		}
		return nil
	}
	if len(c.Manifests) != len(c.Objects) {
		return fmt.Errorf("manifests: %d, for %d objects (manifests[i] is objects[i] whole)", len(c.Manifests), len(c.Objects))
	}
	for i, raw := range c.Manifests {
		if h := objectHeadOf(raw); (ObjectRef{h.APIVersion, h.Kind, h.Metadata.Name}) != c.Objects[i] {
			o := c.Objects[i]
			return fmt.Errorf("manifests element %d is %s %s %q, objects element %d is %s %s %q",
				i, h.APIVersion, h.Kind, h.Metadata.Name, i, o.APIVersion, o.Kind, o.Name)
		}
	}
	return nil
}

// canonicalizeInstall rewrites the deployments' specs and the manifests as canonicalJSON.
func (c *Contents) canonicalizeInstall() error {
	if c.Install != nil {
		for i := range c.Install.Deployments {
			d := &c.Install.Deployments[i]
			text, err := canonicalText(d.Spec)
			if err != nil {
				return fmt.Errorf("install deployment %q: spec: %w", d.Name, err)
			}
			d.Spec = text
		}
	}
	for i, raw := range c.Manifests {
		text, err := canonicalText(raw)
		if err != nil {
			return fmt.Errorf("manifest %d: %w", i, err)
		}
		c.Manifests[i] = text
	}
	return nil
}

// packedInstall is what Contents.packedInstall deflates.
type packedInstall struct {
	Install   *Install          `json:"install"`
	Manifests []json.RawMessage `json:"manifests"`
}

// packInstall deflates Install and Manifests into packedInstall (see Contents.packed).
func (c *Contents) packInstall() error {
	if c.Install == nil {
		return nil
	}
	text, err := manifest.MarshalJSON(packedInstall{c.Install, c.Manifests})
	if err == nil {
		c.packedInstall, err = deflate(text)
	}
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	c.Install, c.Manifests = nil, nil
	return nil
}

// unpackInstall inflates packedInstall into Install and Manifests, as canonicalJSON.
func (c *Contents) unpackInstall() error {
	text, err := inflate(c.packedInstall)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	var p packedInstall
	if err := json.Unmarshal(text, &p); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	c.Install, c.Manifests, c.packedInstall = p.Install, p.Manifests, nil
	return c.canonicalizeInstall()
}
