package secret_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

func TestIsKindIsTheCoreGroupAndKindSecretWhateverTheVersion(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"v1", "Secret", true},
		{"v2", "Secret", true},
		{"/v1", "Secret", true},
		{"", "Secret", true},
		{"v1", "ConfigMap", false},
		{"v1", "secret", false},
		{"example.com/v1", "Secret", false},
		{"apps/v1", "Secret", false},
	} {
		assert.Equal(t, tc.want, secret.IsKind(tc.apiVersion, tc.kind), "%q %q", tc.apiVersion, tc.kind)
	}
}

func TestCheckAPIVersionRefusesWhatNoAPIServerServes(t *testing.T) {
	for _, tc := range []struct {
		apiVersion string
		wantErr    string
	}{
		{"v1", ""},
		{"apps/v1", ""},
		{"example.com/v1alpha1", ""},
		{"", "apiVersion is empty"},
		{"v2", `apiVersion "v2" is not served: the core group has only version v1`},
		{"V1", `apiVersion "V1" is not served`},
		{"v1beta1", `apiVersion "v1beta1" is not served`},
		{"/v1", `apiVersion "/v1" is malformed`},
		{"apps/", `apiVersion "apps/" is malformed`},
		{"a/b/c", `apiVersion "a/b/c" is malformed`},
	} {
		err := secret.CheckAPIVersion(tc.apiVersion)
		if tc.wantErr == "" {
			assert.NoError(t, err, tc.apiVersion)
			continue
		}
		require.Error(t, err, tc.apiVersion)
		assert.Contains(t, err.Error(), tc.wantErr)
	}
}

func steps(path string) []manifest.PathStep { return manifest.SplitPath(path) }

func marked(paths ...string) secret.Fields {
	var f secret.Fields
	for _, p := range paths {
		f.Add(steps(p))
	}
	return f
}

func TestReadByMarksReadsOfTheFieldItsContainersAndItsParts(t *testing.T) {
	f := marked("data.size", "spec.items[1].host")
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".data.size", true},
		{".data", true},                 // a map holding the value
		{".data.size+-suffix", true},    // a literal beside it
		{"prefix-+.data.size", true},    // idem
		{".data.plain", false},          // the field beside it
		{".metadata.name", false},       // elsewhere
		{"data.size", false},            // a literal, not JSONPath
		{".spec.items", true},           // the list holding it
		{".spec.items[1]", true},        // its element
		{".spec.items[1].host", true},   // itself
		{".spec.items[0].host", false},  // another element
		{".spec.items[1].port", false},  // a sibling
		{".data.*", true},               // a wildcard may read it
		{".spec.items[*].host", true},   // idem
		{"..size", true},                // recursive descent
		{".spec.items[?(@.a)].b", true}, // a filter chooses by values
		{".data['size']", true},         // quoting is not parsed: anything may be read
		{".spec.items[-1].host", true},  // negative indices are not parsed either
		{".metadata.name+.data.size", true},
	} {
		assert.Equal(t, tc.want, f.ReadBy(tc.path), tc.path)
	}
	assert.False(t, secret.Fields{}.ReadBy(".data.*"), "nothing marked: nothing read is a Secret's")
}

func TestWholeObjectMarkCoversEveryRead(t *testing.T) {
	var f secret.Fields
	f.Add(nil)
	assert.True(t, f.ReadBy(".metadata.name"))
	assert.True(t, f.Overlaps(steps("anything.at.all")))
}

func TestUnderAndPrefixedMoveMarksBetweenAValueAndItsHolder(t *testing.T) {
	f := marked("spec.services[0].spec.Kind.size", "spec.services[1].resources[0].data.data.x")
	under := f.Under(steps("spec.services[0].spec"))
	assert.True(t, under.Overlaps(steps("Kind.size")))
	assert.False(t, under.Overlaps(steps("Other")))
	assert.True(t, f.Under(steps("spec.services[1].resources[0].data")).Overlaps(steps("data.x")))
	assert.True(t, f.Under(steps("spec.services[2]")).Empty())

	// a mark above the prefix marks all of it
	whole := marked("spec").Under(steps("spec.services[0].spec"))
	assert.True(t, whole.Overlaps(steps("anything")))

	moved := under.Under(steps("Kind")).Prefixed(steps("spec"))
	assert.True(t, moved.Overlaps(steps("spec.size")))
	assert.False(t, moved.Overlaps(steps("spec.other")))
}

func TestAddAllAndCopiesAreIndependent(t *testing.T) {
	a := marked("data.a")
	var b secret.Fields
	b.AddAll(a)
	b.Add(steps("data.b"))
	assert.False(t, a.Overlaps(steps("data.b")), "AddAll copies: a is unchanged")
	assert.True(t, b.Overlaps(steps("data.a")))
	assert.True(t, b.Overlaps(steps("data.b")))
}

func TestKeysWithAnyCharacterStayDistinct(t *testing.T) {
	var f secret.Fields
	f.Add([]manifest.PathStep{{Key: "a.b"}})
	assert.False(t, f.Overlaps([]manifest.PathStep{{Key: "a"}, {Key: "b"}}))
	assert.True(t, f.Overlaps([]manifest.PathStep{{Key: "a.b"}}))
	assert.False(t, f.Overlaps([]manifest.PathStep{{Index: 0, IsIndex: true}}))
}
