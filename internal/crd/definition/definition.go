// Package definition validates a CustomResourceDefinition as the API server does on create.
// It is apart from package crd so that binaries that only check objects against CRDs do not
// link (and initialise) the server's CRD validation.
package definition

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/odlm-render/odlm-render/internal/crd"
)

// Validate runs the API server's validation of a CustomResourceDefinition on
// create (apiextensions.k8s.io/v1 or v1beta1): names, versions, a structural schema,
// defaults that the schema accepts, CEL rules that compile. Problems name the CRD's fields.
func Validate(obj map[string]any) (problems []crd.Problem, err error) {
	defer func() {
		if p := recover(); p != nil {
			problems, err = nil, fmt.Errorf("the API server's code failed validating this CRD (%s)", fmt.Sprintf("%T", p))
		}
	}()
	internal, err := crd.Internal(obj)
	if err != nil {
		return nil, err
	}
	for _, e := range apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), internal) {
		problems = append(problems, crd.Problem{Field: e.Field, Reason: crd.Reason(e)})
	}
	slices.SortStableFunc(problems, func(a, b crd.Problem) int { return strings.Compare(a.Field, b.Field) })
	return slices.Compact(problems), nil
}
