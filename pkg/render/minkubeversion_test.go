package render_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestMinKubeVersionCheck: with the cluster's version known (KubeVersion), a Subscription
// whose channel head, or whose startingCSV before any install, has a minKubeVersion above it
// (or one OLM cannot read) gets a warning on its registry entry's channel; without the
// version, with OLM v1 or without OLM there is none; a --kube-version that is not a version
// is one warning. The check is never an error and changes no object.
func TestMinKubeVersionCheck(t *testing.T) {
	t.Parallel()
	const entry = "input.yaml:9: warning: OperandRegistry cs/common-service: spec.operators[0].channel: Subscription openshift-operators/mk: "
	cases := []struct {
		name       string
		head, old  string // the minKubeVersion of mk.v2.0.0 (the head) and mk.v1.0.0
		startingAt string // the entry's startingCSV
		opts       render.Options
		want       []string // the warnings, in order
	}{
		{name: "met", head: "1.30.0", opts: render.Options{KubeVersion: "v1.30.0"}},
		{name: "no minKubeVersion", opts: render.Options{KubeVersion: "1.20"}},
		{name: "above", head: "1.31.0", opts: render.Options{KubeVersion: "v1.30.5+k3s1"},
			want: []string{entry + "bundle mk.v2.0.0 needs Kubernetes 1.31.0 or later (minKubeVersion), and the cluster is v1.30.5+k3s1 (--kube-version): OLM will not install it (RequirementsNotMet)"}},
		{name: "above, pinned", head: "1.31.0", opts: render.Options{KubeVersion: "1.30", Pin: true},
			want: []string{entry + "bundle mk.v2.0.0 needs Kubernetes 1.31.0 or later (minKubeVersion), and the cluster is 1.30 (--kube-version): OLM will not install it (RequirementsNotMet)"}},
		{name: "unknown cluster version", head: "1.31.0"},
		{name: "OLM v1", head: "1.31.0", opts: render.Options{KubeVersion: "1.30", OLM: render.OLMv1}},
		{name: "no OLM", head: "1.31.0", opts: render.Options{KubeVersion: "1.30", OLM: render.OLMNone}},
		{name: "unreadable", head: "1.25", opts: render.Options{KubeVersion: "1.31"},
			want: []string{entry + `bundle mk.v2.0.0 has minKubeVersion "1.25", which OLM cannot read as major.minor.patch`}},
		{name: "not a string", head: "{major: 1}", opts: render.Options{KubeVersion: "1.31"},
			want: []string{entry + `bundle mk.v2.0.0 has minKubeVersion "{\"major\":1}", which OLM cannot read`}},
		{name: "startingCSV first", head: "1.29.0", old: "1.31.0", startingAt: "mk.v1.0.0", opts: render.Options{KubeVersion: "1.30"},
			want: []string{entry + "bundle mk.v1.0.0 needs Kubernetes 1.31.0"}},
		{name: "startingCSV and head", head: "1.32.0", old: "1.31.0", startingAt: "mk.v1.0.0", opts: render.Options{KubeVersion: "1.30"},
			want: []string{entry + "bundle mk.v1.0.0 needs Kubernetes 1.31.0", entry + "bundle mk.v2.0.0 needs Kubernetes 1.32.0"}},
		{name: "kube version not a version", head: "1.31.0", opts: render.Options{KubeVersion: "latest"},
			want: []string{`warning: --kube-version "latest" is not a Kubernetes version (such as 1.31, v1.31.2 or 1.31.2+k3s1): the bundles' minKubeVersion is not checked`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, dir := minKubeInputs(t, tc.head, tc.old, tc.startingAt)
			out := render.Render(in, tc.opts)
			var got []string
			for _, r := range out.Results {
				if strings.Contains(r.Message, "minKubeVersion") {
					assert.Equal(t, "warning", string(r.Severity), "%s", r)
					got = append(got, strings.TrimPrefix(r.String(), dir+string(filepath.Separator)))
				}
			}
			require.Len(t, got, len(tc.want), "%q", got)
			for i, w := range tc.want {
				assert.True(t, strings.HasPrefix(got[i], w), "%q\ndoes not start with\n%q", got[i], w)
			}
			without := tc.opts
			without.KubeVersion = ""
			assert.Equal(t, dumpObjects(t, render.Render(in, without).Objects), dumpObjects(t, out.Objects), "the check changes no object")
		})
	}
}

// minKubeInputs is an ODLM registry and request for package mk, whose channel stable goes
// mk.v1.0.0 → mk.v2.0.0, with the given minKubeVersions (YAML; "" for none) and startingCSV,
// and the folder that holds them.
func minKubeInputs(t *testing.T, head, old, startingCSV string) (render.Inputs, string) {
	t.Helper()
	dir := t.TempDir()
	bundle := func(version, minKube string) string {
		s := "---\nschema: olm.bundle\npackage: mk\nname: mk.v" + version + "\nimage: example.com/mk-bundle:" + version + "\n" +
			"properties:\n- type: olm.package\n  value: {packageName: mk, version: " + version + "}\n" +
			"- type: olm.csv.metadata\n  value:\n    installModes: [{type: AllNamespaces, supported: true}]\n"
		if minKube != "" {
			s += "    minKubeVersion: " + minKube + "\n"
		}
		return s
	}
	fbc := "---\nschema: olm.package\nname: mk\ndefaultChannel: stable\n" +
		"---\nschema: olm.channel\npackage: mk\nname: stable\nentries:\n- name: mk.v1.0.0\n- {name: mk.v2.0.0, replaces: mk.v1.0.0}\n" +
		bundle("1.0.0", old) + bundle("2.0.0", head)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "catalog"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog", "catalog.yaml"), []byte(fbc), 0o644))
	start := ""
	if startingCSV != "" {
		start = ", startingCSV: " + startingCSV
	}
	odlm := `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  # the line of the entry
  # is the 9th
  #
  - {name: mk, packageName: mk, channel: stable, installMode: cluster, sourceName: cat, sourceNamespace: openshift-marketplace` + start + `}
---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: my-request, namespace: cs}
spec:
  requests:
  - registry: common-service
    operands:
    - name: mk
`
	path := filepath.Join(dir, "input.yaml")
	require.NoError(t, os.WriteFile(path, []byte(odlm), 0o644))
	docs, err := inputs.ReadPaths([]string{path}, nil)
	require.NoError(t, err)
	set, err := inputs.Classify(docs)
	require.NoError(t, err)
	c, err := inputs.LoadCatalog([]string{filepath.Join(dir, "catalog")}, nil)
	require.NoError(t, err)
	return render.Inputs{Objects: set.Resources, Catalog: c}, dir
}
