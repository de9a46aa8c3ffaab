package platform

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/objpath"
	"github.com/odlm-render/odlm-render/internal/testcluster"
)

// TestRequiredFieldsTheAPIServerRefuses checks MissingRequired against the real
// kube-apiserver the tests run (the release of requiredSource): objects it accepts have no
// missing field, and without each field it names, the server refuses the object at that field.
// This is what stands behind validationRequired, which the OpenAPI document does not give.
func TestRequiredFieldsTheAPIServerRefuses(t *testing.T) {
	c := testcluster.Start(t)
	ns := c.Namespace(t)
	for _, tc := range refusedCases {
		t.Run(tc.name, func(t *testing.T) {
			valid := decode(t, tc.object, ns)
			assert.Empty(t, MissingRequired(valid["apiVersion"].(string), tc.name, valid))
			require.NoError(t, c.DryRunCreate(decode(t, tc.object, ns)), "the complete object is accepted")
			for _, path := range tc.removed {
				obj := decode(t, tc.object, ns)
				require.True(t, objpath.Remove(obj, path), path)
				var paths []string
				for _, m := range MissingRequired(obj["apiVersion"].(string), tc.name, obj) {
					paths = append(paths, m.Path)
				}
				assert.Contains(t, paths, path, "MissingRequired names it")
				err := c.DryRunCreate(obj)
				require.Error(t, err, "the API server refuses %s without %s", tc.name, path)
				assert.True(t, refusedAt(err, path), "the API server refuses it at %s: %v", path, err)
			}
		})
	}
}

// refusedCases are objects the API server accepts, and fields MissingRequired must name
// once each is removed (the server refuses the object at that field).
var refusedCases = []struct {
	name    string
	object  string
	removed []string // fields MissingRequired must name once removed
}{
	{"Job", `apiVersion: batch/v1
kind: Job
metadata: {name: pre-upgrade}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - {name: job, image: registry.example/utils:1, command: [/bin/true]}`,
		[]string{"spec.template.spec.containers[0].image", "spec.template.spec.containers[0].name", "spec.template.spec.containers"}},
	{"Deployment", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers:
      - {name: init, image: registry.example/init:1}
      containers:
      - {name: web, image: registry.example/web:1, env: [{name: A, value: b}]}`,
		[]string{"spec.selector", "spec.template.spec.initContainers[0].image", "spec.template.spec.containers[0].env[0].name"}},
	{"Service", `apiVersion: v1
kind: Service
metadata: {name: keycloak}
spec:
  ports: [{name: https, port: 8443}]
  selector: {app: keycloak}`,
		[]string{"spec.ports[0].port"}},
	{"RoleBinding", `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: pre-upgrade}
subjects: [{kind: ServiceAccount, name: sa}]
roleRef: {kind: Role, name: pre-upgrade, apiGroup: rbac.authorization.k8s.io}`,
		[]string{"roleRef", "subjects[0].name"}},
	{"CronJob", `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: job, image: registry.example/utils:1}]`,
		[]string{"spec.schedule", "spec.jobTemplate.spec.template.spec.containers[0].image"}},
}

func decode(t *testing.T, y, namespace string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(y), &m))
	m["metadata"].(map[string]any)["namespace"] = namespace
	return m
}

// refusedAt reports a refusal with a cause at path or below it.
func refusedAt(err error, path string) bool {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		return false
	}
	for _, cause := range se.ErrStatus.Details.Causes {
		if cause.Field == path || strings.HasPrefix(cause.Field, path+".") || strings.HasPrefix(cause.Field, path+"[") {
			return true
		}
	}
	return false
}
