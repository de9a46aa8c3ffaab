package health

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite argocd-cm.yaml from ConfigMap()")

type want struct{ status, message string }

// cases maps every testdata/<group>_<Kind>/<case>.yaml to the health Argo CD must show.
var cases = map[string]want{
	// Subscription: Healthy only once the installed CSV is AtLatestKnown.
	"operators.coreos.com_Subscription/no_status":                      {"Progressing", "Waiting for OLM to resolve the Subscription"},
	"operators.coreos.com_Subscription/resolving":                      {"Progressing", "Waiting for OLM to resolve ibm-cert-manager-operator"},
	"operators.coreos.com_Subscription/bundle_unpacking":               {"Progressing", "Unpacking the bundle of ibm-cert-manager-operator: unpacking icr.io/cpopen/ibm-cert-manager-operator-bundle@sha256:4c1c7d0f3d0c7e8d2a9b1f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2"},
	"operators.coreos.com_Subscription/installplan_not_yet_reconciled": {"Progressing", "Installing ibm-cert-manager-operator.v4.2.14 via InstallPlan install-7xk2p (InstallPlanNotYetReconciled)"},
	"operators.coreos.com_Subscription/installing":                     {"Progressing", "Installing ibm-cert-manager-operator.v4.2.14 via InstallPlan install-7xk2p (Installing)"},
	"operators.coreos.com_Subscription/csv_not_created_yet":            {"Progressing", "Installing ibm-cert-manager-operator.v4.2.14 via InstallPlan install-7xk2p"},
	"operators.coreos.com_Subscription/succeeded":                      {"Healthy", "ibm-cert-manager-operator.v4.2.14 is installed (AtLatestKnown)"},
	"operators.coreos.com_Subscription/install_plan_garbage_collected": {"Healthy", "ibm-cert-manager-operator.v4.2.14 is installed (AtLatestKnown)"},
	"operators.coreos.com_Subscription/deprecated":                     {"Healthy", `ibm-cert-manager-operator.v4.1.9 is installed (AtLatestKnown); deprecated: channel "v4.1" is deprecated, use v4.2 instead`},
	"operators.coreos.com_Subscription/manual_approval_initial":        {"Suspended", "Install of ibm-cert-manager-operator.v4.2.14 awaits manual approval of InstallPlan install-m5tq9 (set spec.approved: true)"},
	"operators.coreos.com_Subscription/manual_approval_upgrade":        {"Healthy", "ibm-cert-manager-operator.v4.2.14 is installed; the upgrade to ibm-cert-manager-operator.v4.2.15 awaits manual approval of InstallPlan install-r2vbn"},
	"operators.coreos.com_Subscription/manual_upgrade_available":       {"Healthy", "ibm-cert-manager-operator.v4.2.14 is installed; ibm-cert-manager-operator.v4.2.15 is available"},
	"operators.coreos.com_Subscription/upgrade_available":              {"Progressing", "ibm-cert-manager-operator.v4.2.14 is installed; upgrading to ibm-cert-manager-operator.v4.2.15"},
	"operators.coreos.com_Subscription/upgrading":                      {"Progressing", "Upgrading ibm-cert-manager-operator.v4.2.14 to ibm-cert-manager-operator.v4.2.15 via InstallPlan install-r2vbn (Installing)"},
	"operators.coreos.com_Subscription/catalog_unhealthy":              {"Degraded", "Catalog sources unhealthy and nothing installed: targeted catalogsource openshift-marketplace/ibm-operator-catalog unhealthy"},
	"operators.coreos.com_Subscription/catalog_unhealthy_installed":    {"Healthy", "ibm-cert-manager-operator.v4.2.14 is installed (AtLatestKnown); unhealthy catalog sources: openshift-marketplace/redhat-marketplace"},
	"operators.coreos.com_Subscription/install_plan_failed":            {"Degraded", `InstallPlan install-q8d4w failed: InstallComponentFailed: error validating existing CRs against new CRD's schema for "ibmlicensings.operator.ibm.com": error validating custom resource against new schema for IBMLicensing /instance: [].spec.datasource: Unsupported value: "none"`},
	"operators.coreos.com_Subscription/install_plan_missing":           {"Degraded", "InstallPlan install-7xk2p is missing: ReferencedInstallPlanNotFound"},
	"operators.coreos.com_Subscription/bundle_unpack_failed":           {"Degraded", "Bundle unpack failed: bundle unpacking failed. Reason: DeadlineExceeded, and Message: Job was active longer than specified deadline"},
	"operators.coreos.com_Subscription/resolution_failed":              {"Degraded", "Resolution failed: ConstraintsNotSatisfiable: constraints not satisfiable: no operators found in channel v4.6 of package ibm-commonui-operator-app in the catalog referenced by subscription ibm-commonui-operator-app, subscription ibm-commonui-operator-app exists"},
	"operators.coreos.com_Subscription/upgrade_failed":                 {"Degraded", "Upgrade to ibm-cert-manager-operator.v4.2.15 failed: InstallCheckFailed"},

	// ClusterServiceVersion
	"operators.coreos.com_ClusterServiceVersion/no_status":                  {"Progressing", "Waiting for OLM to process the ClusterServiceVersion"},
	"operators.coreos.com_ClusterServiceVersion/pending":                    {"Progressing", "Pending (RequirementsUnknown): requirements not yet checked"},
	"operators.coreos.com_ClusterServiceVersion/requirements_not_met":       {"Progressing", "Pending (RequirementsNotMet): one or more requirements couldn't be found; unmet: CustomResourceDefinition/certmanagerconfigs.operator.ibm.com NotPresent, ServiceAccount/ibm-cert-manager-operator NotPresent"},
	"operators.coreos.com_ClusterServiceVersion/install_ready":              {"Progressing", "InstallReady (AllRequirementsMet): all requirements found, attempting install"},
	"operators.coreos.com_ClusterServiceVersion/installing":                 {"Progressing", `Installing (InstallWaiting): installing: waiting for deployment ibm-cert-manager-operator to become ready: deployment "ibm-cert-manager-operator" not available: Deployment does not have minimum availability.`},
	"operators.coreos.com_ClusterServiceVersion/succeeded":                  {"Healthy", "Succeeded (InstallSucceeded): install strategy completed with no errors"},
	"operators.coreos.com_ClusterServiceVersion/failed":                     {"Degraded", "Failed (InstallCheckFailed): install timeout"},
	"operators.coreos.com_ClusterServiceVersion/install_component_failed":   {"Degraded", "Failed (InstallComponentFailed): installing: deployment changed old hash=5f7d9c8b4, new hash=6c8f7d9b5"},
	"operators.coreos.com_ClusterServiceVersion/unsupported_operator_group": {"Degraded", "Failed (UnsupportedOperatorGroup): OwnNamespace InstallModeType not supported, cannot configure to watch own namespace"},
	"operators.coreos.com_ClusterServiceVersion/no_operator_group":          {"Degraded", "Failed (NoOperatorGroup): csv in namespace with no operatorgroups"},
	"operators.coreos.com_ClusterServiceVersion/too_many_operator_groups":   {"Degraded", "Failed (TooManyOperatorGroups): csv created in namespace with multiple operatorgroups, can't pick one automatically"},
	"operators.coreos.com_ClusterServiceVersion/replacing":                  {"Progressing", "Replacing (BeingReplaced): being replaced by csv: ibm-cert-manager-operator.v4.2.15"},
	"operators.coreos.com_ClusterServiceVersion/deleting":                   {"Progressing", "Deleting (Replaced): has been replaced by a newer ClusterServiceVersion that has successfully installed."},
	"operators.coreos.com_ClusterServiceVersion/unknown":                    {"Unknown", "Unknown"},

	// InstallPlan
	"operators.coreos.com_InstallPlan/no_status":            {"Progressing", "Waiting for OLM to plan the install of ibm-cert-manager-operator.v4.2.14"},
	"operators.coreos.com_InstallPlan/planning":             {"Progressing", "Planning the install of ibm-cert-manager-operator.v4.2.14"},
	"operators.coreos.com_InstallPlan/requires_approval":    {"Suspended", "Install of ibm-cert-manager-operator.v4.2.14 awaits manual approval (set spec.approved: true)"},
	"operators.coreos.com_InstallPlan/approved":             {"Progressing", "Approved; waiting for OLM to install ibm-cert-manager-operator.v4.2.14"},
	"operators.coreos.com_InstallPlan/installing":           {"Progressing", "Installing ibm-cert-manager-operator.v4.2.14"},
	"operators.coreos.com_InstallPlan/complete":             {"Healthy", "Installed ibm-cert-manager-operator.v4.2.14"},
	"operators.coreos.com_InstallPlan/failed":               {"Degraded", `Install of ibm-cert-manager-operator.v4.2.14 failed: InstallComponentFailed: error validating existing CRs against new CRD's schema for "certmanagerconfigs.operator.ibm.com": error validating custom resource against new schema for CertManagerConfig /default: [].spec.license: Required value`},
	"operators.coreos.com_InstallPlan/bundle_unpack_failed": {"Degraded", "Install of ibm-cert-manager-operator.v4.2.14 failed: bundle unpacking failed. Reason: DeadlineExceeded, and Message: Job was active longer than specified deadline"},

	// OperatorGroup
	"operators.coreos.com_OperatorGroup/no_status":                 {"Progressing", "Waiting for OLM to compute the target namespaces"},
	"operators.coreos.com_OperatorGroup/no_namespace_selected":     {"Progressing", "Selects no namespace yet"},
	"operators.coreos.com_OperatorGroup/own_namespace":             {"Healthy", "Targets ibm-cert-manager"},
	"operators.coreos.com_OperatorGroup/multi_namespace":           {"Healthy", "Targets cp4i, cp4i-ace, cp4i-apic, cp4i-dp, cp4i-es and 2 more"},
	"operators.coreos.com_OperatorGroup/all_namespaces":            {"Healthy", "Targets all namespaces"},
	"operators.coreos.com_OperatorGroup/multiple_operator_groups":  {"Degraded", "Multiple OperatorGroups in the namespace: Multiple OperatorGroup found in the same namespace"},
	"operators.coreos.com_OperatorGroup/service_account_not_found": {"Degraded", "ServiceAccount not found: ServiceAccount cert-manager-installer not found"},

	// OperandRequest
	"operator.ibm.com_OperandRequest/no_status":               {"Progressing", "Waiting for ODLM to reconcile the OperandRequest"},
	"operator.ibm.com_OperandRequest/pending":                 {"Progressing", "Pending"},
	"operator.ibm.com_OperandRequest/installing":              {"Progressing", "Installing: waiting for ibm-im-operator (operator Installing), ibm-platformui-operator (operator Installing)"},
	"operator.ibm.com_OperandRequest/creating":                {"Progressing", "Creating: waiting for ibm-im-operator (operator Running, operand Creating), ibm-platformui-operator (operator Ready for Deployment)"},
	"operator.ibm.com_OperandRequest/running":                 {"Healthy", "2 member(s) running"},
	"operator.ibm.com_OperandRequest/failed":                  {"Degraded", "Failed: ibm-im-operator (operator Running, operand Failed)"},
	"operator.ibm.com_OperandRequest/operand_not_in_registry": {"Degraded", "Not found in the OperandRegistry: ibm-platformui-operator"},
	"operator.ibm.com_OperandRequest/registry_not_found":      {"Degraded", "NotFound: Not found operandRegistry operandregistry"},

	// OperandRegistry
	"operator.ibm.com_OperandRegistry/no_status":                 {"Progressing", "Waiting for ODLM to reconcile the OperandRegistry"},
	"operator.ibm.com_OperandRegistry/ready_for_deployment":      {"Healthy", "Ready for deployment; no OperandRequest uses it yet"},
	"operator.ibm.com_OperandRegistry/running":                   {"Healthy", "Requested operators: ibm-im-operator, ibm-platformui-operator"},
	"operator.ibm.com_OperandRegistry/catalogsource_not_found":   {"Healthy", "Requested operators: ibm-im-operator; Not found catalogsource ibm-operator-catalog"},
	"operator.ibm.com_OperandRegistry/updating":                  {"Progressing", "Updating"},
	"operator.ibm.com_OperandRegistry/waiting_for_catalogsource": {"Progressing", "Waiting for CatalogSource being ready"},
	"operator.ibm.com_OperandRegistry/failed":                    {"Degraded", "OperandRegistry failed"},

	// OperandConfig
	"operator.ibm.com_OperandConfig/no_status":   {"Progressing", "Waiting for ODLM to reconcile the OperandConfig"},
	"operator.ibm.com_OperandConfig/initialized": {"Healthy", "Initialized; no requested operand is running yet"},
	"operator.ibm.com_OperandConfig/creating":    {"Progressing", "Creating: ibm-im-operator/oidcclientwatcher, ibm-platformui-operator/platformUI"},
	"operator.ibm.com_OperandConfig/running":     {"Healthy", "Running"},
	"operator.ibm.com_OperandConfig/failed":      {"Degraded", "Failed: ibm-im-operator/authentication, ibm-platformui-operator/platformUI"},

	// OperandBindInfo
	"operator.ibm.com_OperandBindInfo/no_status":            {"Progressing", "Waiting for ODLM to reconcile the OperandBindInfo"},
	"operator.ibm.com_OperandBindInfo/initialized":          {"Progressing", "Initialized"},
	"operator.ibm.com_OperandBindInfo/waiting_for_provider": {"Progressing", "Waiting for Secret and/or Configmap from provider"},
	"operator.ibm.com_OperandBindInfo/updating":             {"Progressing", "Updating"},
	"operator.ibm.com_OperandBindInfo/completed":            {"Healthy", "Shared with cp4i, ibm-common-services"},
	"operator.ibm.com_OperandBindInfo/failed":               {"Degraded", "OperandBindInfo failed to share its Secrets and ConfigMaps"},

	// ClusterExtension (OLM v1): Healthy once installed with nothing rolling out.
	"olm.operatorframework.io_ClusterExtension/no_status":                  {"Progressing", "Waiting for operator-controller to resolve the ClusterExtension"},
	"olm.operatorframework.io_ClusterExtension/installing":                 {"Progressing", "Installing: RollingOut Installing bundle kube-green.v0.7.1"},
	"olm.operatorframework.io_ClusterExtension/succeeded":                  {"Healthy", "kube-green.v0.7.1 (0.7.1) is installed"},
	"olm.operatorframework.io_ClusterExtension/upgrading":                  {"Progressing", "kube-green.v0.7.1 (0.7.1) is installed; RollingOut: Upgrading to kube-green.v0.7.2"},
	"olm.operatorframework.io_ClusterExtension/blocked":                    {"Degraded", "Blocked: bundle kube-green.v0.7.1 does not support AllNamespaces install mode"},
	"olm.operatorframework.io_ClusterExtension/retrying":                   {"Progressing", `Installing: Retrying no bundles found for package "kube-green" matching version "0.9.0"`},
	"olm.operatorframework.io_ClusterExtension/progress_deadline_exceeded": {"Degraded", "Rollout did not finish in time: rollout of kube-green.v0.7.1 exceeded its deadline"},
	"olm.operatorframework.io_ClusterExtension/deprecated":                 {"Healthy", "kube-green.v0.7.1 (0.7.1) is installed; deprecated: channel alpha is deprecated, use stable"},
}

// required are the cases every check must have, and the Subscription's from the issue.
var required = map[string][]string{
	"": {"no_status"},
	"operators.coreos.com_Subscription": {"installing", "succeeded", "install_plan_failed", "manual_approval_initial",
		"manual_approval_upgrade", "catalog_unhealthy", "catalog_unhealthy_installed", "csv_not_created_yet"},
	"operators.coreos.com_ClusterServiceVersion": {"installing", "succeeded", "failed"},
	"operators.coreos.com_InstallPlan":           {"installing", "complete", "failed", "requires_approval"},
	"operators.coreos.com_OperatorGroup":         {"own_namespace", "all_namespaces", "multiple_operator_groups"},
	"operator.ibm.com_OperandRequest":            {"installing", "running", "failed"},
	"operator.ibm.com_OperandRegistry":           {"running", "failed"},
	"operator.ibm.com_OperandConfig":             {"running", "failed"},
	"operator.ibm.com_OperandBindInfo":           {"completed", "failed"},
	"olm.operatorframework.io_ClusterExtension":  {"installing", "succeeded", "upgrading", "blocked"},
}

// loadObject reads a testdata object the way Argo CD gets it: decoded JSON.
func loadObject(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var y any
	require.NoError(t, yaml.Unmarshal(b, &y))
	j, err := json.Marshal(y)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(j, &obj))
	return obj
}

func dirName(c Check) string { return c.Group + "_" + c.Kind }

func TestChecks(t *testing.T) {
	var names []string
	for _, c := range Checks() {
		names = append(names, c.Group+"/"+c.Kind)
	}
	assert.Equal(t, []string{
		"olm.operatorframework.io/ClusterExtension",
		"operator.ibm.com/OperandBindInfo",
		"operator.ibm.com/OperandConfig",
		"operator.ibm.com/OperandRegistry",
		"operator.ibm.com/OperandRequest",
		"operators.coreos.com/ClusterServiceVersion",
		"operators.coreos.com/InstallPlan",
		"operators.coreos.com/OperatorGroup",
		"operators.coreos.com/Subscription",
	}, names)
	s, ok := Script("operators.coreos.com", "Subscription")
	assert.True(t, ok)
	assert.Contains(t, s, "AtLatestKnown")
	_, ok = Script("apps", "Deployment")
	assert.False(t, ok)
}

func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.yaml")
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".yaml")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			w, ok := cases[name]
			require.True(t, ok, "testdata file without an expected result in cases")
			obj := loadObject(t, file)
			dir := filepath.Base(filepath.Dir(file))
			i := strings.LastIndex(dir, "_")
			group, kind := dir[:i], dir[i+1:]
			apiVersion, _ := obj["apiVersion"].(string)
			assert.Equal(t, group, strings.Split(apiVersion, "/")[0], "apiVersion of the testdata object")
			assert.Equal(t, kind, obj["kind"], "kind of the testdata object")
			status, message, err := Evaluate(kind, group, obj)
			require.NoError(t, err)
			assert.Equal(t, w.status, status)
			assert.Equal(t, w.message, message)
		})
	}
	for name := range cases {
		assert.True(t, seen[name], "case %s has no testdata file", name)
	}
}

func TestEveryCheckHasItsCases(t *testing.T) {
	for _, c := range Checks() {
		statuses := map[string]bool{}
		for name, w := range cases {
			if strings.HasPrefix(name, dirName(c)+"/") {
				statuses[w.status] = true
			}
		}
		assert.True(t, statuses["Healthy"] && statuses["Progressing"] && statuses["Degraded"],
			"%s: needs Healthy, Progressing and Degraded cases, has %v", dirName(c), statuses)
		for _, want := range append(append([]string{}, required[""]...), required[dirName(c)]...) {
			_, ok := cases[dirName(c)+"/"+want]
			assert.True(t, ok, "%s: missing case %s", dirName(c), want)
		}
	}
	for dir := range required {
		if dir != "" {
			i := strings.LastIndex(dir, "_")
			_, ok := Script(dir[:i], dir[i+1:])
			assert.True(t, ok, "required cases for %s, which has no check", dir)
		}
	}
}

// Shapes no controller writes must still give a status, from the script's own logic rather
// than from its error guard.
func TestOddShapes(t *testing.T) {
	odd := map[string]map[string]any{
		"nil object":              nil,
		"empty object":            {},
		"status null":             {"status": nil},
		"status empty":            {"status": map[string]any{}},
		"status a string":         {"status": "Running"},
		"status a list":           {"status": []any{"Running"}},
		"spec a string":           {"spec": "x", "status": map[string]any{"phase": 3}},
		"phase a number":          {"status": map[string]any{"phase": 3.5, "state": true}},
		"phase a table":           {"status": map[string]any{"phase": map[string]any{"x": 1}}},
		"conditions a map":        {"status": map[string]any{"conditions": map[string]any{"type": "Ready", "status": "True"}}},
		"conditions of strings":   {"status": map[string]any{"conditions": []any{"InstallPlanFailed", nil, 7}}},
		"condition fields tables": {"status": map[string]any{"conditions": []any{map[string]any{"type": map[string]any{}, "status": []any{}, "reason": 1, "message": true}}}},
		"members a string":        {"status": map[string]any{"phase": "Installing", "members": "x"}},
		"members of odd things":   {"status": map[string]any{"phase": "Installing", "members": []any{1, "x", map[string]any{"phase": "Running", "name": 5}}}},
		"maps as lists":           {"status": map[string]any{"phase": "Failed", "serviceStatus": []any{1}, "operatorsStatus": "x", "requestNamespaces": map[string]any{"a": 1}}},
		"lists as maps":           {"status": map[string]any{"phase": "Running", "operatorsStatus": map[string]any{"a": 1}, "namespaces": map[string]any{"a": "b"}}},
		"refs of the wrong type":  {"status": map[string]any{"installPlanRef": "install-1", "installplan": 3, "catalogHealth": "x", "requirementStatus": 1}},
		"every Subscription key odd": {"spec": map[string]any{"name": 1}, "status": map[string]any{"state": "AtLatestKnown", "installedCSV": 5,
			"currentCSV": []any{}, "conditions": []any{map[string]any{"type": "CatalogSourcesUnhealthy", "status": "True", "message": map[string]any{}}}}},
		"numbers of every kind": {"status": map[string]any{"phase": int64(1), "state": int32(2), "installedCSV": json.Number("3"), "namespaces": []string{"a"}, "lastUpdated": time.Unix(0, 0).UTC()}},
	}
	valid := map[string]bool{}
	for _, s := range Statuses {
		valid[s] = true
	}
	for _, c := range Checks() {
		for name, obj := range odd {
			t.Run(dirName(c)+"/"+name, func(t *testing.T) {
				status, message, err := Evaluate(c.Kind, c.Group, obj)
				require.NoError(t, err)
				assert.True(t, valid[status], "status %q", status)
				assert.NotContains(t, message, "health check error")
			})
		}
		// No status at all, in every form, reads as Progressing.
		for _, name := range []string{"nil object", "empty object", "status null", "status empty", "status a string"} {
			status, _, err := Evaluate(c.Kind, c.Group, odd[name])
			require.NoError(t, err)
			assert.Equal(t, "Progressing", status, "%s: %s", dirName(c), name)
		}
	}
	// Conditions that are not a list are ignored, not fatal.
	status, message, err := Evaluate("Subscription", "operators.coreos.com", map[string]any{"status": map[string]any{
		"state": "AtLatestKnown", "installedCSV": "x.v1", "conditions": map[string]any{"type": "InstallPlanFailed", "status": "True"}}})
	require.NoError(t, err)
	assert.Equal(t, want{"Healthy", "x.v1 is installed (AtLatestKnown)"}, want{status, message})
}

// Every script guards its logic with pcall: an error inside becomes Unknown with the error,
// never a Lua error for Argo CD. The guard is checked by planting an error in each script.
func TestErrorGuard(t *testing.T) {
	for _, c := range Checks() {
		const entry = "local function assess(obj)\n"
		require.Equal(t, 1, strings.Count(c.Script, entry), "%s: one assess function", dirName(c))
		planted := strings.Replace(c.Script, entry, entry+"  local boom = obj.status.phase.x\n", 1)
		status, message, err := evaluate(planted, map[string]any{})
		require.NoError(t, err, dirName(c))
		assert.Equal(t, "Unknown", status, dirName(c))
		assert.Contains(t, message, "health check error: ", dirName(c))
		assert.Contains(t, message, "attempt to index", dirName(c))
	}
}

func TestEvaluateErrors(t *testing.T) {
	_, _, err := Evaluate("Deployment", "apps", map[string]any{})
	assert.ErrorContains(t, err, "no health check for apps/Deployment")

	for name, script := range map[string]string{
		"syntax":        "return {status = ",
		"runtime":       "return {status = obj.status.phase}",
		"not a table":   `return "Healthy"`,
		"no return":     "local x = 1",
		"bad message":   `return {status = "Healthy", message = {}}`,
		"error()":       `error("stop")`,
		"infinite loop": "while true do end",
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, _, err := evaluate(script, map[string]any{})
			assert.Error(t, err)
			assert.Less(t, time.Since(start), 5*Timeout)
		})
	}

	status, message, err := evaluate(`return {status = "Fine", message = "x"}`, nil)
	require.NoError(t, err)
	assert.Equal(t, want{"Unknown", "Lua returned an invalid health status"}, want{status, message})
	status, message, err = evaluate(`return {status = "Missing"}`, nil)
	require.NoError(t, err)
	assert.Equal(t, want{"Missing", ""}, want{status, message})
}

// Scripts get what Argo CD gives an argocd-cm script without useOpenLibs, minus file
// access: base and table, no string, math, os, io, package or debug.
func TestSandbox(t *testing.T) {
	status, message, err := evaluate(`
local open = {}
for _, name in ipairs({"string", "math", "os", "io", "package", "debug", "require", "dofile", "loadfile"}) do
  if _G[name] ~= nil then open[#open + 1] = name end
end
if table.concat == nil or pcall == nil or ipairs == nil then open[#open + 1] = "missing base or table" end
return {status = "Healthy", message = table.concat(open, ",")}`, nil)
	require.NoError(t, err)
	assert.Equal(t, want{"Healthy", ""}, want{status, message})
}

func TestScriptsStyle(t *testing.T) {
	for _, c := range Checks() {
		assert.True(t, strings.HasPrefix(c.Script, "-- Argo CD health check for "+c.Group+"/"+c.Kind+" "), dirName(c))
		assert.True(t, strings.HasSuffix(c.Script, "\n") && !strings.HasSuffix(c.Script, "\n\n"), "%s: one final newline", dirName(c))
		for i, line := range strings.Split(c.Script, "\n") {
			assert.NotContains(t, line, "\t", "%s:%d: tab", dirName(c), i+1)
			assert.Equal(t, strings.TrimRight(line, " "), line, "%s:%d: trailing space", dirName(c), i+1)
			assert.LessOrEqual(t, len(line), 100, "%s:%d: long line", dirName(c), i+1)
		}
	}
}

func TestSnippet(t *testing.T) {
	snippet := Snippet()
	assert.Equal(t, snippet, Snippet(), "deterministic")
	var data map[string]string
	require.NoError(t, yaml.Unmarshal([]byte(snippet), &data))
	var keys []string
	for _, line := range strings.Split(snippet, "\n") {
		if strings.HasPrefix(line, KeyPrefix) {
			keys = append(keys, strings.TrimSuffix(line, ": |"))
		}
	}
	assert.True(t, sort.StringsAreSorted(keys), "keys in order")
	require.Len(t, data, len(Checks()))
	for _, c := range Checks() {
		assert.Equal(t, c.Script, data[c.Key()], c.Key())
	}
	assert.Contains(t, keys, "resource.customizations.health.operators.coreos.com_Subscription")
	assert.Contains(t, keys, "resource.customizations.health.operator.ibm.com_OperandRequest")
}

// argocd-cm.yaml is ConfigMap(), byte for byte; `go test ./health/ -update` rewrites it.
func TestConfigMapFile(t *testing.T) {
	const file = "argocd-cm.yaml"
	if *update {
		require.NoError(t, os.WriteFile(file, []byte(ConfigMap()), 0o644))
	}
	b, err := os.ReadFile(file)
	require.NoError(t, err, "run go test ./health/ -update")
	assert.Equal(t, ConfigMap(), string(b), "argocd-cm.yaml is stale: run go test ./health/ -update")

	var cm struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name      string `yaml:"name"`
			Namespace string `yaml:"namespace"`
		} `yaml:"metadata"`
		Data map[string]string `yaml:"data"`
	}
	require.NoError(t, yaml.Unmarshal(b, &cm))
	assert.Equal(t, "v1", cm.APIVersion)
	assert.Equal(t, "ConfigMap", cm.Kind)
	assert.Equal(t, "argocd-cm", cm.Metadata.Name)
	assert.Equal(t, "argocd", cm.Metadata.Namespace)
	require.Len(t, cm.Data, len(Checks()))
	for _, c := range Checks() {
		assert.Equal(t, c.Script, cm.Data[c.Key()], c.Key())
	}
}
