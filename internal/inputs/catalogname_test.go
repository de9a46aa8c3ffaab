package inputs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/inputs"
)

func TestSplitNamedPath(t *testing.T) {
	for _, tc := range []struct {
		value, key, path, err string
	}{
		{value: "catalogs/redhat", path: "catalogs/redhat"},
		{value: "redhat-operators=catalogs/redhat", key: "openshift-marketplace/redhat-operators", path: "catalogs/redhat"},
		{value: "team/mirror=catalogs/x", key: "team/mirror", path: "catalogs/x"},
		{value: "team/mirror=a=b", key: "team/mirror", path: "a=b"},
		{value: "./x=y", path: "./x=y"},           // not a name: a path holding "="
		{value: "Upper=y", path: "Upper=y"},       // names are lower case
		{value: "a/b/c=y", path: "a/b/c=y"},       // one slash at most
		{value: "bad_ns/x=y", path: "bad_ns/x=y"}, // the namespace must be a label
		{value: "redhat-operators=", err: `"redhat-operators=": no PATH after CatalogSource redhat-operators=`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			key, path, err := inputs.SplitNamedPath(tc.value, "openshift-marketplace")
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.key, key)
			assert.Equal(t, tc.path, path)
		})
	}
}
