// Package olm owns the engine's contact with OLM's API types
// (github.com/operator-framework/api): the Subscription and OperatorGroup specs that ODLM
// writes are built from OLM's own structs, OLM objects read from the inputs, a snapshot or a
// live cluster are decoded into them, and install modes carry OLM's names. ODLM's controller
// works on these typed objects, so a round trip through them is what it writes: fields the
// types do not have are dropped and quantities take their canonical form.
package olm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// The install modes of a CSV, under OLM's names.
const (
	OwnNamespace    = string(v1alpha1.InstallModeTypeOwnNamespace)
	SingleNamespace = string(v1alpha1.InstallModeTypeSingleNamespace)
	MultiNamespace  = string(v1alpha1.InstallModeTypeMultiNamespace)
	AllNamespaces   = string(v1alpha1.InstallModeTypeAllNamespaces)
)

// SubscriptionConfig is a Subscription's spec.config: OLM's type.
type SubscriptionConfig = v1alpha1.SubscriptionConfig

// FieldError is a value that does not decode into OLM's type; Path is the field under the
// decoded value ("config.env[0].name"), "" for the value itself.
type FieldError struct {
	Path string
	Msg  string
}

// Locate splits an error of this package into the field it names under base ("spec" →
// "spec.config.env[0]") and the message without it; other errors stay on base.
func Locate(err error, base string) (string, error) {
	var fe *FieldError
	if errors.As(err, &fe) && fe.Path != "" {
		return manifest.Field(base, fe.Path), errors.New(fe.Msg)
	}
	return base, err
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// SubscriptionSpec is spec, a Subscription's spec as the engine built or read it, as ODLM
// writes it: through OLM's SubscriptionSpec.
func SubscriptionSpec(spec map[string]any) (map[string]any, error) {
	var typed v1alpha1.SubscriptionSpec
	if err := Decode(spec, &typed); err != nil {
		return nil, err
	}
	return encode(typed)
}

// OperatorGroupSpec is the spec of the OperatorGroup ODLM creates: targets are its
// targetNamespaces (none: all namespaces). The upgrade strategy the type always writes is
// left out while it is empty, for the API server defaults it.
func OperatorGroupSpec(targets []string) (map[string]any, error) {
	spec, err := encode(operatorsv1.OperatorGroupSpec{TargetNamespaces: targets})
	if err != nil {
		return nil, err
	}
	if us, ok := spec["upgradeStrategy"].(map[string]any); ok && len(us) == 0 {
		delete(spec, "upgradeStrategy")
	}
	return spec, nil
}

// CatalogSourceSpec decodes a CatalogSource's spec into OLM's type.
func CatalogSourceSpec(spec any) (v1alpha1.CatalogSourceSpec, error) {
	var typed v1alpha1.CatalogSourceSpec
	if spec == nil {
		return typed, nil
	}
	err := Decode(spec, &typed)
	return typed, err
}

// Decode decodes value into out (a pointer to one of OLM's types) as ODLM's typed client
// does: fields the type lacks are dropped; a value of the wrong type is a FieldError.
func Decode(value any, out any) error {
	b, err := json.Marshal(value)
	if err != nil {
		return &FieldError{Msg: err.Error()}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fieldError(err)
	}
	return nil
}

// fieldError turns encoding/json's errors into a FieldError without Go type names.
func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Path: te.Field, Msg: fmt.Sprintf("expected %s, got %s", manifest.DescribeType(te.Type), te.Value)}
	}
	// the types' own decoders (quantities, int-or-string) say what they expected
	return &FieldError{Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

func encode(v any) (map[string]any, error) {
	val, err := manifest.ToValue(v)
	if err != nil {
		return nil, err
	}
	m, _ := val.(map[string]any)
	return m, nil
}
