package render

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

const plantedValue = "S3CRET-planted-value"

// markedRun is a run that rendered ConfigMap cs/from-secret with data.size holding a value
// from a Secret (marked) and data.plain holding none, and the OperandConfig whose site reads it.
func markedRun(t *testing.T, opts Options) (*run, *operandConfig) {
	t.Helper()
	r := newRun(Inputs{}, opts, newRenderCache(opts.Sources), nil)
	cm := manifest.New(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "from-secret", "namespace": "cs"},
		"data":     map[string]any{"size": plantedValue, "plain": "visible"},
	})
	r.pass.rendered[cm.Ref().Key()] = cm
	var f secret.Fields
	f.Add(manifest.SplitPath("data.size"))
	r.cache.markSecret(cm, f)
	cfg := manifest.New(map[string]any{
		"apiVersion": "operator.ibm.com/v1alpha1", "kind": "OperandConfig",
		"metadata": map[string]any{"name": "common-service", "namespace": "cs"},
	})
	return r, &operandConfig{obj: cfg, key: key{"cs", "common-service"}}
}

func readOf(key string) map[string]any {
	return map[string]any{"data": map[string]any{"v": map[string]any{
		"templatingValueFrom": map[string]any{"configMapKeyRef": map[string]any{"name": "from-secret", "key": key}},
	}}}
}

func TestAReadOfAMarkedFieldIsAReadOfASecret(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		secrets        SecretsMode
		key            string
		secretsAllowed bool
		wantOK         bool
		wantMarked     bool
		wantResult     string
	}{
		{"forbid refuses it outside a Secret", SecretsForbid, "size", false, false, true,
			"takes a value from a Secret into ConfigMap cs/reader: not allowed with --secrets forbid"},
		{"forbid allows it into a Secret", SecretsForbid, "size", true, true, true,
			"templatingValueFrom resolved to a value from a Secret (not shown) from ConfigMap cs/from-secret key \"size\" (rendered; holds a value from a Secret)"},
		{"inline writes it, marked, and explains it without the value", SecretsInline, "size", false, true, true,
			"templatingValueFrom resolved to a value from a Secret (not shown) from ConfigMap cs/from-secret key \"size\" (rendered; holds a value from a Secret)"},
		{"forbid allows the unmarked field beside it", SecretsForbid, "plain", false, true, false,
			"templatingValueFrom resolved to \"visible\" from ConfigMap cs/from-secret key \"plain\" (rendered)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, cfg := markedRun(t, Options{Secrets: tc.secrets, Explain: true})
			s := site{config: cfg, field: "spec.services[0].resources[1].data", what: "ConfigMap cs/reader", secretsAllowed: tc.secretsAllowed}
			out, marks, ok := r.templates.resolve(s, readOf(tc.key))
			assert.Equal(t, tc.wantOK, ok)
			assert.Equal(t, tc.wantMarked, marks.Overlaps(manifest.SplitPath("data.v")), "the field written is marked in turn")
			require.Len(t, r.pass.results, 1)
			assert.Equal(t, tc.wantResult, r.pass.results[0].Message)
			assert.Equal(t, "spec.services[0].resources[1].data.data.v", r.pass.results[0].Field)
			assert.NotContains(t, fmt.Sprint(r.pass.results), plantedValue)
			if ok {
				assert.Equal(t, map[string]any{"v": map[string]any{"size": plantedValue, "plain": "visible"}[tc.key]}, out.(map[string]any)["data"])
			}
		})
	}
}

func TestConfigMarksFollowItsFieldsIntoTheSite(t *testing.T) {
	t.Parallel()
	r, cfg := markedRun(t, Options{})
	var f secret.Fields
	f.Add(manifest.SplitPath("spec.services[0].resources[1].data.data.literal"))
	r.cache.markSecret(cfg.obj, f)
	value := map[string]any{"data": map[string]any{"literal": "copied", "other": "x"}}
	_, marks, ok := r.templates.resolve(site{config: cfg, field: "spec.services[0].resources[1].data"}, value)
	require.True(t, ok)
	assert.True(t, marks.Overlaps(manifest.SplitPath("data.literal")))
	assert.False(t, marks.Overlaps(manifest.SplitPath("data.other")))
	_, marks, _ = r.templates.resolve(site{config: cfg, field: "spec.services[0].resources[0].data"}, value)
	assert.True(t, marks.Empty(), "another resource of the config")
}

func TestValuesResolvedFromSecretsAreRedactedFromResults(t *testing.T) {
	t.Parallel()
	r, cfg := markedRun(t, Options{})
	_, _, ok := r.templates.resolve(site{config: cfg, field: "spec.services[0].resources[1].data"}, readOf("size"))
	require.True(t, ok)
	assert.Equal(t, map[string]bool{plantedValue: true}, r.cache.secretTexts)
	rs := redactSecrets(diag.Results{
		diag.Errorf(nil, "", "channel %q of %s", plantedValue, "x-"+plantedValue+"-y"),
		{Message: "named", Object: &manifest.Ref{Kind: "ConfigMap", Namespace: "cs", Name: plantedValue}},
	}, r.cache.secretTexts)
	assert.Equal(t, `channel "<a value from a Secret>" of x-<a value from a Secret>-y`, rs[0].Message)
	assert.Equal(t, "<a value from a Secret>", rs[1].Object.Name)
}

func TestRedactionReplacesWholeWordsOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, value, want string
	}{
		{`resolved to "abc"`, "abc", `resolved to "<a value from a Secret>"`},
		{"abcdef abc", "abc", "abcdef <a value from a Secret>"},
		{"xabc abcx abc.", "abc", "xabc abcx <a value from a Secret>."},
		{"spec.services[0]", "services", "spec.<a value from a Secret>[0]"},
		{"a-b-c", "-b-", "a<a value from a Secret>c"},
		{"nothing here", "abc", "nothing here"},
		{"ünïcode", "nïc", "ünïcode"},
	} {
		assert.Equal(t, tc.want, replaceWords(tc.text, tc.value), "%q in %q", tc.value, tc.text)
	}
}

func TestShortValuesAreNotRedacted(t *testing.T) {
	t.Parallel()
	r := newRun(Inputs{}, Options{}, newRenderCache(nil), nil)
	r.cache.noteSecretValue(map[string]any{"a": "ok", "b": []any{"yes", true}}, manifest.SplitPath("b"))
	r.cache.noteSecretValue(map[string]any{"a": "ok"}, manifest.SplitPath("a"))
	assert.Equal(t, map[string]bool{"yes": true, "true": true}, r.cache.secretTexts)
}
