package cli_test

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// TestSecretValuesNeverReachStderr plants a Secret value, renders with every diagnostic
// turned on (explain, verbose, an error case and a forbid case), and checks that neither the
// value nor its base64 form appears anywhere but in the manifests.
func TestSecretValuesNeverReachStderr(t *testing.T) {
	t.Parallel()
	nfsCatalog := refdata.Testdata(t, "catalogs/community/nfs-provisioner-operator") // real catalog: reference data
	const planted = "do-not-leak-me"
	encoded := base64.StdEncoding.EncodeToString([]byte(planted))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"explain and verbose", []string{"render", "-v", "--explain", "../../testdata/render/template-secrets-forbid/input", "--catalog", nfsCatalog}},
		{"forbid", []string{"render", "--explain", "--secrets", "forbid", "../../testdata/render/template-secrets-forbid/input", "--catalog", nfsCatalog}},
		{"JSON output", []string{"render", "-v", "-o", "json", "--explain", "../../testdata/render/template-secrets-forbid/input", "--catalog", nfsCatalog}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, stderr := run(t, "", tc.args...)
			assert.NotEmpty(t, stderr)
			assert.NotContains(t, stderr, planted)
			assert.NotContains(t, stderr, encoded)
		})
	}
	// inline (the default) does write the value where ODLM would: into the rendered objects
	_, out, _ := run(t, "", "render", "../../testdata/render/template-secrets-forbid/input", "--catalog", nfsCatalog)
	assert.Contains(t, out, planted)
}

// TestBindInfoSecretValuesNeverReachStderr: the source Secret of the bind-info cases holds
// "s3cr3t" (base64 czNjcjN0); with every mode and every diagnostic on, stderr has neither.
func TestBindInfoSecretValuesNeverReachStderr(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"copy", "external-secrets", "skip"} {
		for _, dir := range []string{"bindinfo-public-default-names", "bindinfo-missing-source-warns", "bindinfo-existing-target-is-overwritten"} {
			t.Run(mode+"/"+dir, func(t *testing.T) {
				code, _, stderr := run(t, "", "render", "-v", "--explain", "--bindinfo-secrets", mode, "../../testdata/render/"+dir+"/input")
				assert.Equal(t, cli.ExitOK, code, stderr)
				assert.NotContains(t, stderr, "s3cr3t")
				assert.NotContains(t, stderr, "czNjcjN0")
			})
		}
	}
}
