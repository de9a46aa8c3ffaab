// Package definition validates a CustomResourceDefinition as the API server does on create.
// It is apart from package crd so that binaries that only check objects against CRDs do not
// link (and initialise) the server's CRD validation.
package definition

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/odlm-render/odlm-render/internal/crd"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
}()

// Validate runs the API server's validation of a CustomResourceDefinition on
// create (apiextensions.k8s.io/v1 or v1beta1): names, versions, a structural schema,
// defaults that the schema accepts, CEL rules that compile. Problems name the CRD's fields.
func Validate(obj map[string]any) (problems []crd.Problem, err error) {
	defer func() {
		if p := recover(); p != nil {
			problems, err = nil, fmt.Errorf("the API server's code failed validating this CRD (%s)", fmt.Sprintf("%T", p))
		}
	}()
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	apiVersion, _ := obj["apiVersion"].(string)
	var in runtime.Object
	switch apiVersion {
	case apiextensionsv1.SchemeGroupVersion.String():
		in = &apiextensionsv1.CustomResourceDefinition{}
	case apiextensionsv1beta1.SchemeGroupVersion.String():
		in = &apiextensionsv1beta1.CustomResourceDefinition{}
	default:
		return nil, fmt.Errorf("apiVersion %q is not a CustomResourceDefinition version (apiextensions.k8s.io/v1)", apiVersion)
	}
	if err := json.Unmarshal(raw, in); err != nil {
		return nil, fmt.Errorf("reading the CRD: %w", err)
	}
	scheme.Default(in)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(in, internal, nil); err != nil {
		return nil, fmt.Errorf("reading the CRD: %w", err)
	}
	for _, e := range apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), internal) {
		problems = append(problems, crd.Problem{Field: e.Field, Reason: crd.Reason(e)})
	}
	slices.SortStableFunc(problems, func(a, b crd.Problem) int { return strings.Compare(a.Field, b.Field) })
	return slices.Compact(problems), nil
}
