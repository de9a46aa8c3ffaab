package deps
import (
	_ "sigs.k8s.io/kustomize/kyaml/fn/framework"
	_ "sigs.k8s.io/kustomize/kyaml/fn/framework/command"
	_ "github.com/stretchr/testify/require"
	_ "github.com/operator-framework/api/pkg/operators/v1alpha1"
	_ "k8s.io/apimachinery/pkg/api/resource"
	_ "k8s.io/client-go/util/jsonpath"
	_ "golang.org/x/mod/semver"
)
