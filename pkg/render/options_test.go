package render_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/optionspec"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestOptionsAreValidatedByTheEngine: a program that calls the engine with a misspelt
// option gets an error naming it, never the default (for BindInfoSecrets the default copies
// Secret data into the output).
func TestOptionsAreValidatedByTheEngine(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts render.Options
		want []string
	}{
		{"defaults", render.Options{}, nil},
		{"every value", render.Options{Pending: "error", Secrets: "forbid", BindInfoSecrets: "skip", Ordering: "kpt", Pin: true, ManualApproval: true}, nil},
		{"misspelt bindinfo mode", render.Options{BindInfoSecrets: "external-secret"}, []string{`option bindinfoSecrets (--bindinfo-secrets): "external-secret" is not one of copy, external-secrets, skip (did you mean "external-secrets"?)`}},
		{"two at once", render.Options{Pending: "fail", Ordering: "argo"}, []string{
			`option pending (--pending): "fail" is not one of warn, error`,
			`option ordering (--ordering): "argo" is not one of argocd, kpt (did you mean "argocd"?)`,
		}},
		{"manual approval without pin", render.Options{ManualApproval: true}, []string{`option manualApproval (--manual-approval): goes with pin (--pin): it makes the pinned version a lock`}},
		{"olm v1 options without olm v1", render.Options{OLMv1ServiceAccount: true, OLMv1WatchNamespace: true}, []string{
			`option olmV1ServiceAccount (--olm-v1-service-account): goes with olm v1 (--olm v1): it configures ClusterExtensions`,
			`option olmV1WatchNamespace (--olm-v1-watch-namespace): goes with olm v1 (--olm v1): it configures ClusterExtensions`}},
		{"olm v1 with odlm-no-olm", render.Options{OLM: "v1", ODLMNoOLM: true}, []string{`option olm (--olm): does not go with odlmNoOLM (--odlm-no-olm): that renders what ODLM in its no-OLM mode creates for operators deployed by other means`}},
		{"olm none with odlm-no-olm", render.Options{OLM: "none", ODLMNoOLM: true}, []string{`option olm (--olm): does not go with odlmNoOLM (--odlm-no-olm): that renders what ODLM in its no-OLM mode creates for operators deployed by other means`}},
		{"webhook certs without olm none", render.Options{WebhookCerts: "cert-manager"}, []string{`option webhookCerts (--webhook-certs): goes with olm none (--olm none): it configures the webhooks of operators the render installs`}},
		{"webhook certs typo", render.Options{OLM: "none", WebhookCerts: "certmanager"}, []string{`option webhookCerts (--webhook-certs): "certmanager" is not one of cert-manager, service-ca, none (did you mean "cert-manager"?)`}},
		{"a namespace that leaves the folder", render.Options{DefaultNamespace: "../../etc"}, []string{`option namespace (--namespace): "../../etc" is not a namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"a namespace with a newline", render.Options{DefaultNamespace: "bad\nns"}, []string{`option namespace (--namespace): "bad\nns" is not a namespace name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"image mirror without emitted CatalogSources", render.Options{ImageMirrors: []string{"quay.io=mirror.local"}}, []string{`option imageMirrors (--image-mirror): goes with emit-catalogsources (--emit-catalogsources): it rewrites the images of the CatalogSources the render emits`}},
		{"image mirror not FROM=TO", render.Options{EmitCatalogSources: true, ImageMirrors: []string{"quay.io", "=x", "a=b c"}}, []string{
			`option imageMirrors (--image-mirror): "quay.io" is not FROM=TO (a registry or repository prefix, then its mirror)`,
			`option imageMirrors (--image-mirror): "=x" is not FROM=TO (a registry or repository prefix, then its mirror)`,
			`option imageMirrors (--image-mirror): "a=b c" is not FROM=TO (a registry or repository prefix, then its mirror)`}},
		{"dependency subscriptions with olm v1", render.Options{OLM: "v1", Dependencies: "subscriptions"}, []string{`option dependencies (--dependencies): goes with olm v0: OLM v1 and installs without OLM resolve no dependencies`}},
		{"dependencies typo", render.Options{Dependencies: "subscription"}, []string{`option dependencies (--dependencies): "subscription" is not one of report, subscriptions (did you mean "subscriptions"?)`}},
		{"olm typo", render.Options{OLM: "v2"}, []string{`option olm (--olm): "v2" is not one of v0, v1, none (did you mean "v0"?)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			var got []string
			for _, oe := range optionspec.Errors(err) {
				got = append(got, oe.Error())
			}
			assert.Equal(t, tc.want, got)
			var refused []string
			for _, r := range render.Render(render.Inputs{}, tc.opts).Results.Errors() {
				if strings.HasPrefix(r.Message, "option ") {
					refused = append(refused, r.Message)
				}
			}
			require.Equal(t, tc.want, refused, "Render refuses what Validate refuses")
		})
	}
}

// TestOptionListNamesEveryOption: every option a front door sets has a functionConfig name,
// a flag and a description.
func TestOptionListNamesEveryOption(t *testing.T) {
	list := optionspec.Of[render.Options]()
	require.Len(t, list, 23)
	for _, o := range list {
		assert.NotEmpty(t, o.JSON, o.Field)
		assert.NotEmpty(t, o.Flag, o.Field)
		assert.NotEmpty(t, o.Help, o.Field)
	}
}
