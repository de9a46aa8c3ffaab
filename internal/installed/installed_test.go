package installed

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestMain stops the test cluster if this binary started one (see internal/testcluster).
func TestMain(m *testing.M) { testcluster.Main(m) }

func decode(t *testing.T, docs ...string) []*manifest.Object {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(strings.Join(docs, "\n---\n")))
	require.NoError(t, err)
	return objs
}

func og(ns, spec, status string) string {
	return "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: og, namespace: " + ns + "}\nspec: " + spec + "\nstatus: " + status
}

func csv(ns, name, annotations, phase string) string {
	return "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: " + name + ", namespace: " + ns + ", annotations: " + annotations + "}\nspec: {version: 1.0.0}\nstatus: {phase: " + phase + "}"
}

func sub(ns, name, spec, status string) string {
	return "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: " + spec + "\nstatus: " + status
}

// rows renders items as "namespace name@installNamespace" lines.
func rows(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Namespace+" "+it.Name()+"@"+it.InstallationNamespace())
	}
	return out
}

func TestInstalledWatchedNamespaces(t *testing.T) {
	t.Parallel()
	nss := "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}"
	tests := []struct {
		name     string
		docs     []string
		want     []string // with -A
		warnings []string
	}{
		{"status.namespaces wins over spec", []string{og("ops", "{targetNamespaces: [a]}", "{namespaces: [b]}"), csv("ops", "x.v1", "{}", "Succeeded")},
			[]string{"b x.v1@ops"}, nil},
		{`status.namespaces [""] is all namespaces`, []string{og("ops", "{}", `{namespaces: [""]}`), csv("ops", "x.v1", "{}", "Succeeded")},
			[]string{"a x.v1@ops", "b x.v1@ops", "ops x.v1@ops"}, nil},
		{"spec.targetNamespaces without status", []string{og("ops", "{targetNamespaces: [ops, a]}", "{}"), csv("ops", "x.v1", "{}", "Succeeded")},
			[]string{"a x.v1@ops", "ops x.v1@ops"}, nil},
		{"no targetNamespaces nor selector is all namespaces", []string{og("ops", "{upgradeStrategy: Default}", "{}"), csv("ops", "x.v1", "{}", "Succeeded")},
			[]string{"a x.v1@ops", "b x.v1@ops", "ops x.v1@ops"}, nil},
		{"an unresolved selector falls back to the CSV annotation", []string{og("ops", "{selector: {matchLabels: {x: y}}}", "{}"), csv("ops", "x.v1", `{olm.targetNamespaces: "a,b"}`, "Succeeded")},
			[]string{"a x.v1@ops", "b x.v1@ops"}, nil},
		{"an unresolved selector without annotation", []string{og("ops", "{selector: {matchLabels: {x: y}}}", "{}"), csv("ops", "x.v1", "{}", "Succeeded")},
			nil, []string{"OLM has not resolved the selector"}},
		{"no OperatorGroup: the CSV annotation", []string{csv("ops", "x.v1", `{olm.targetNamespaces: ""}`, "Succeeded")},
			[]string{"a x.v1@ops", "b x.v1@ops", "ops x.v1@ops"}, nil},
		{"no OperatorGroup and no annotation", []string{csv("ops", "x.v1", "{}", "Failed")},
			nil, []string{"there is no OperatorGroup in namespace ops"}},
		{"two OperatorGroups: the one the CSV names", []string{
			strings.Replace(og("ops", "{targetNamespaces: [a]}", "{}"), "name: og", "name: one", 1),
			strings.Replace(og("ops", "{targetNamespaces: [b]}", "{}"), "name: og", "name: two", 1),
			csv("ops", "x.v1", "{olm.operatorGroup: two}", "Succeeded")},
			[]string{"b x.v1@ops"}, nil},
		{"copied CSVs are not operators, but their namespaces are known", []string{og("ops", "{}", `{namespaces: [""]}`), csv("ops", "x.v1", "{}", "Succeeded"),
			strings.Replace(csv("c", "x.v1", "{}", "Succeeded"), "annotations: {}", "annotations: {}, labels: {olm.copiedFrom: ops}", 1)},
			[]string{"a x.v1@ops", "b x.v1@ops", "c x.v1@ops", "ops x.v1@ops"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := FromObjects(decode(t, append([]string{nss}, tt.docs...)...))
			require.Empty(t, c.Validate())
			items, rs := Compute(c, Options{AllNamespaces: true})
			assert.Equal(t, tt.want, rows(items))
			require.Len(t, rs, len(tt.warnings), "%v", rs)
			for i, w := range tt.warnings {
				assert.Contains(t, rs[i].String(), w)
			}
		})
	}
}

func TestInstalledOperatorsAndVersions(t *testing.T) {
	t.Parallel()
	ns := og("ops", "{targetNamespaces: [ops]}", "{}")
	tests := []struct {
		name             string
		docs             []string
		want             []string
		current, target  string
		channel, subName string
	}{
		{"installedCSV wins", []string{ns,
			sub("ops", "s", "{channel: stable}", "{installedCSV: x.v1.0.0, currentCSV: x.v1.0.0}"),
			csv("ops", "x.v1.0.0", "{}", "Succeeded")},
			[]string{"ops x.v1.0.0@ops"}, "1.0.0", "1.0.0", "stable", "s"},
		{"the target is the currentCSV's version, from its name when it has no CSV yet", []string{ns,
			sub("ops", "s", "{channel: stable}", "{installedCSV: x.v1.0.0, currentCSV: x.v1.1.0}"),
			csv("ops", "x.v1.0.0", "{}", "Succeeded")},
			[]string{"ops x.v1.0.0@ops"}, "1.0.0", "1.1.0", "stable", "s"},
		{"the target's own CSV version", []string{ns,
			sub("ops", "s", "{}", "{installedCSV: x.v1.0.0, currentCSV: next}"),
			csv("ops", "x.v1.0.0", "{}", "Succeeded"),
			strings.Replace(csv("ops", "next", "{}", "Pending"), "version: 1.0.0", "version: 2.0.0", 1)},
			[]string{"ops x.v1.0.0@ops"}, "1.0.0", "2.0.0", "", "s"},
		{"only the currentCSV exists", []string{ns,
			sub("ops", "s", "{}", "{currentCSV: x.v1.0.0}"),
			csv("ops", "x.v1.0.0", "{}", "Installing")},
			[]string{"ops x.v1.0.0@ops"}, "1.0.0", "1.0.0", "", "s"},
		{"a Subscription without any CSV is not installed", []string{ns,
			sub("ops", "s", "{}", "{currentCSV: x.v1.0.0}")},
			nil, "", "", "", ""},
		{"a CSV without a Subscription", []string{ns, csv("ops", "solo", "{}", "Succeeded")},
			[]string{"ops solo@ops"}, "1.0.0", "1.0.0", "", ""},
		{"a replaced CSV without a Subscription is not shown", []string{ns, csv("ops", "old", "{}", "Replacing"),
			strings.Replace(csv("ops", "new", "{}", "Installing"), "version: 1.0.0}", "version: 1.0.0, replaces: old}", 1)},
			[]string{"ops new@ops"}, "1.0.0", "1.0.0", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := FromObjects(decode(t, tt.docs...))
			require.Empty(t, c.Validate())
			items, rs := Compute(c, Options{Namespace: "ops"})
			assert.Empty(t, rs)
			assert.Equal(t, tt.want, rows(items))
			if len(items) == 0 {
				return
			}
			assert.Equal(t, tt.current, items[0].CurrentVersion)
			assert.Equal(t, tt.target, items[0].TargetVersion)
			assert.Equal(t, tt.channel, items[0].Channel())
			if tt.subName != "" {
				require.NotNil(t, items[0].Subscription)
				assert.Equal(t, tt.subName, items[0].Subscription.Name())
			} else {
				assert.Nil(t, items[0].Subscription)
			}
		})
	}
}

func TestInstalledVersionFromName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"etcdoperator.v0.9.4":             "0.9.4",
		"etcdoperator.v0.9.4-clusterwide": "0.9.4-clusterwide",
		"prometheusoperator.0.47.0":       "0.47.0",
		"a.b.v1.2.3":                      "1.2.3",
		"packageserver":                   "",
		"x.v1":                            "",
		"":                                "",
	} {
		assert.Equal(t, want, VersionFromName(name), name)
	}
}

func TestInstalledObjectIsSanitized(t *testing.T) {
	t.Parallel()
	c := FromObjects(decode(t, og("ops", "{}", "{}"),
		sub("ops", "s", "{channel: a}", "{installedCSV: x.v1.0.0}"),
		`apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: x.v1.0.0
  namespace: ops
  annotations: {olm.targetNamespaces: "", olm.operatorGroup: og}
  managedFields: [{manager: olm}]
spec: {version: 1.0.0, icon: [{base64data: AAAA, mediatype: image/png}]}
status: {phase: Succeeded}`))
	items, _ := Compute(c, Options{Namespace: "elsewhere"})
	require.Len(t, items, 1)
	obj, rs := items[0].Object()
	assert.Empty(t, rs)
	assert.Equal(t, "packages.operators.coreos.com/v2alpha1", obj.APIVersion())
	assert.Equal(t, "Installed", obj.Kind())
	assert.Equal(t, "elsewhere", obj.Namespace())
	assert.Equal(t, "x.v1.0.0", obj.Name())
	assert.Equal(t, map[string]string{LabelCSV: "x.v1.0.0", LabelSubscription: "s"}, obj.Labels())
	embedded := manifest.Get(obj.Map, "status", "clusterServiceVersion").(map[string]any)
	assert.Equal(t, map[string]any{"olm.operatorGroup": "og"}, manifest.Get(embedded, "metadata", "annotations"))
	assert.Nil(t, manifest.Get(embedded, "metadata", "managedFields"))
	assert.Nil(t, manifest.Get(embedded, "spec", "icon"))
	assert.Equal(t, "s", manifest.Get(obj.Map, "status", "subscription", "metadata", "name"))
	// the cluster state is not modified
	assert.NotNil(t, manifest.Get(items[0].CSV.Map, "spec", "icon"))
	assert.Equal(t, "", manifest.Get(items[0].CSV.Map, "metadata", "annotations", "olm.targetNamespaces"))
}

func TestInstalledObjectWithAnInvalidLabelValue(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70) + ".v1.0.0"
	c := FromObjects(decode(t, og("ops", "{}", "{}"), csv("ops", long, "{}", "Succeeded")))
	items, _ := Compute(c, Options{Namespace: "ops"})
	require.Len(t, items, 1)
	obj, rs := items[0].Object()
	require.Len(t, rs, 1)
	assert.Contains(t, rs[0].String(), "not written as label operators.coreos.com/csv")
	assert.Empty(t, obj.Labels())
}

func TestInstalledWriteTableAlignsLikeKubectl(t *testing.T) {
	t.Parallel()
	c := FromObjects(decode(t, og("operators", "{}", "{}"),
		sub("operators", "etcd", "{channel: clusterwide-alpha}", "{installedCSV: etcdoperator.v0.9.4-clusterwide}"),
		strings.Replace(csv("operators", "etcdoperator.v0.9.4-clusterwide", "{}", "Succeeded"), "1.0.0", "0.9.4", 1)))
	items, _ := Compute(c, Options{Namespace: "default"})
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, items, false))
	// the proposal's example row
	assert.Equal(t, `NAME                              INSTALLATION_NAMESPACE   CHANNEL             CURRENT_VERSION   TARGET_VERSION   PHASE
etcdoperator.v0.9.4-clusterwide   operators                clusterwide-alpha   0.9.4             0.9.4            Succeeded
`, buf.String())
}

func TestInstalledAgainstStatuses(t *testing.T) {
	t.Parallel()
	rendered := func(spec string) string { return sub("ops", "s", spec, "{}") }
	pinned := rendered("{name: pkg, channel: stable, source: cat, sourceNamespace: mkt, startingCSV: pkg.v1.0.0}")
	clusterSub := func(status string) string {
		return sub("ops", "s", "{name: pkg, channel: stable, source: cat, sourceNamespace: mkt}", status)
	}
	succeeded := csv("ops", "pkg.v1.0.0", "{}", "Succeeded")
	tests := []struct {
		name    string
		want    string
		cluster []string
		status  Status
		drifted bool
		details []string
	}{
		{"installed", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0, currentCSV: pkg.v1.0.0}"), succeeded}, StatusInstalled, false, nil},
		{"installed, the upgrade awaiting approval", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0, currentCSV: pkg.v1.1.0, conditions: [{type: InstallPlanPending, status: 'True', reason: RequiresApproval}], installPlanRef: {name: ip-1}}"), succeeded},
			StatusInstalled, false, []string{"the upgrade to pkg.v1.1.0 awaits approval of InstallPlan ip-1"}},
		{"missing", pinned, nil, StatusMissing, false, []string{"no such Subscription in the cluster"}},
		{"matched by package", pinned, []string{strings.Replace(clusterSub("{installedCSV: pkg.v1.0.0}"), "name: s,", "name: other,", 1), succeeded},
			StatusInstalled, false, []string{"matched Subscription other by package"}},
		{"pending: no status yet", pinned, []string{clusterSub("{}")}, StatusPending, false, []string{"nothing installed yet"}},
		{"pending: first install awaiting approval", pinned, []string{clusterSub("{currentCSV: pkg.v1.0.0, state: UpgradePending, conditions: [{type: InstallPlanPending, status: 'True', reason: RequiresApproval}], installplan: {name: ip-2}}")},
			StatusPending, false, []string{"the install of pkg.v1.0.0 awaits approval of InstallPlan ip-2"}},
		{"pending: the CSV is installing", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0}"), csv("ops", "pkg.v1.0.0", "{}", "Installing")},
			StatusPending, false, []string{"ClusterServiceVersion pkg.v1.0.0 is Installing"}},
		{"pending: the CSV is not there", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0}")},
			StatusPending, false, []string{"ClusterServiceVersion pkg.v1.0.0 not found"}},
		{"failed: the CSV", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0}"), strings.Replace(csv("ops", "pkg.v1.0.0", "{}", "Failed"), "phase: Failed}", "phase: Failed, reason: InstallCheckFailed, message: timeout}", 1)},
			StatusFailed, false, []string{"ClusterServiceVersion pkg.v1.0.0 is Failed: InstallCheckFailed: timeout"}},
		{"failed: the currentCSV when nothing is installed", pinned, []string{clusterSub("{currentCSV: pkg.v1.0.0}"), csv("ops", "pkg.v1.0.0", "{}", "Failed")},
			StatusFailed, false, []string{"ClusterServiceVersion pkg.v1.0.0 is Failed", "nothing installed yet"}},
		{"failed: ResolutionFailed", pinned, []string{clusterSub("{conditions: [{type: ResolutionFailed, status: 'True', reason: ConstraintsNotSatisfiable, message: no operators found}]}")},
			StatusFailed, false, []string{"ResolutionFailed: ConstraintsNotSatisfiable: no operators found", "nothing installed yet"}},
		{"not failed: a False condition", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0, conditions: [{type: ResolutionFailed, status: 'False'}]}"), succeeded},
			StatusInstalled, false, nil},
		{"failed: InstallPlanFailed", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0, conditions: [{type: InstallPlanFailed, status: 'True', reason: InstallPlanFailed, message: boom}]}"), succeeded},
			StatusFailed, false, []string{"InstallPlanFailed: boom"}},
		{"failed: BundleUnpackFailed", pinned, []string{clusterSub("{conditions: [{type: BundleUnpackFailed, status: 'True', reason: BundleUnpackFailed}]}")},
			StatusFailed, false, []string{"BundleUnpackFailed", "nothing installed yet"}},
		{"failed: state UpgradeFailed", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0, state: UpgradeFailed}"), succeeded},
			StatusFailed, false, []string{"state UpgradeFailed"}},
		{"failed: InstallPlanMissing while nothing is installed", pinned, []string{clusterSub("{conditions: [{type: InstallPlanMissing, status: 'True', reason: ReferencedInstallPlanNotFound}]}")},
			StatusFailed, false, []string{"InstallPlanMissing: ReferencedInstallPlanNotFound", "nothing installed yet"}},
		{"not failed: InstallPlanMissing once installed (garbage-collected)", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0, conditions: [{type: InstallPlanMissing, status: 'True'}]}"), succeeded},
			StatusInstalled, false, nil},
		{"drifted: another CSV than the pin", pinned, []string{clusterSub("{installedCSV: pkg.v1.1.0}"), strings.Replace(succeeded, "pkg.v1.0.0", "pkg.v1.1.0", 1)},
			StatusDrifted, true, []string{"installed pkg.v1.1.0, pinned pkg.v1.0.0"}},
		{"drifted: channel", rendered("{name: pkg, channel: fast, source: cat, sourceNamespace: mkt}"), []string{clusterSub("{installedCSV: pkg.v1.1.0}"), strings.Replace(succeeded, "pkg.v1.0.0", "pkg.v1.1.0", 1)},
			StatusDrifted, true, []string{`spec.channel is "stable", rendered "fast"`}},
		{"drifted: source", rendered("{name: pkg, channel: stable, source: other, sourceNamespace: mkt}"), []string{clusterSub("{installedCSV: pkg.v1.1.0}"), strings.Replace(succeeded, "pkg.v1.0.0", "pkg.v1.1.0", 1)},
			StatusDrifted, true, []string{`spec.source is "cat", rendered "other"`}},
		{"drifted: a channel the render leaves to the default", rendered("{name: pkg, source: cat, sourceNamespace: mkt}"), []string{clusterSub("{installedCSV: pkg.v1.1.0}"), strings.Replace(succeeded, "pkg.v1.0.0", "pkg.v1.1.0", 1)},
			StatusDrifted, true, []string{`spec.channel is "stable", rendered unset`}},
		{"not drifted: unpinned", rendered("{name: pkg, channel: stable, source: cat, sourceNamespace: mkt}"), []string{clusterSub("{installedCSV: pkg.v1.1.0}"), strings.Replace(succeeded, "pkg.v1.0.0", "pkg.v1.1.0", 1)},
			StatusInstalled, false, nil},
		{"not drifted while nothing is installed", pinned, []string{clusterSub("{currentCSV: pkg.v1.1.0}")},
			StatusPending, false, []string{"nothing installed yet"}},
		{"failed wins over drifted, which is still told", rendered("{name: pkg, channel: fast, source: cat, sourceNamespace: mkt, startingCSV: pkg.v1.0.0}"), []string{clusterSub("{installedCSV: pkg.v1.0.0}"), csv("ops", "pkg.v1.0.0", "{}", "Failed")},
			StatusFailed, true, []string{"ClusterServiceVersion pkg.v1.0.0 is Failed", `spec.channel is "stable", rendered "fast"`}},
		{"copied CSVs do not count", pinned, []string{clusterSub("{installedCSV: pkg.v1.0.0}"), strings.Replace(succeeded, "annotations: {}", "annotations: {}, labels: {olm.copiedFrom: elsewhere}", 1)},
			StatusPending, false, []string{"ClusterServiceVersion pkg.v1.0.0 not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c Cluster
			if len(tt.cluster) > 0 {
				c = FromObjects(decode(t, tt.cluster...))
			}
			require.Empty(t, c.Validate())
			subs, rs := RenderedSubscriptions(decode(t, tt.want), "rendered")
			require.Empty(t, rs)
			checks := Against(subs, c, "")
			require.Len(t, checks, 1)
			assert.Equal(t, tt.status, checks[0].Status)
			assert.Equal(t, tt.drifted, checks[0].Drifted)
			assert.Equal(t, tt.details, checks[0].Details)
		})
	}
}

func TestInstalledAgainstNamespaceFilterAndOrder(t *testing.T) {
	t.Parallel()
	subs, rs := RenderedSubscriptions(decode(t,
		sub("b", "z", "{}", "{}"), sub("a", "y", "{}", "{}"), sub("b", "a", "{}", "{}"),
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: a}"), "rendered")
	require.Empty(t, rs)
	var names []string
	for _, c := range Against(subs, Cluster{}, "") {
		names = append(names, c.Namespace+"/"+c.Name)
	}
	assert.Equal(t, []string{"a/y", "b/a", "b/z"}, names)
	assert.Len(t, Against(subs, Cluster{}, "b"), 2)
	assert.Empty(t, Against(subs, Cluster{}, "c"))
}
