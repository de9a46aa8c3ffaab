package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cli"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// realDependencies is a registry entry for rabbitmq-messaging-topology-operator, whose bundles
// in the real community catalog (v4.20) require package rabbitmq-cluster-operator >2.0.0.
const realDependencies = "../../testdata/cli/real-dependencies"

// TestRealCatalogDependenciesEndToEnd runs the four commands on a real catalog with a real
// dependency: the render names the bundle OLM v0 adds (rabbitmq-cluster-operator's default
// channel head), the same one OLM's own resolver adds for mirror and plan;
// --dependencies subscriptions writes its Subscription as OLM would create it; mirror lists
// its bundle and pins its package; plan lists it as an operator of its own.
func TestRealCatalogDependenciesEndToEnd(t *testing.T) {
	t.Parallel()
	community := refdata.Catalog(t, "community-v4.20")
	named := "community-operators=" + community
	input := filepath.Join(realDependencies, "input")
	const dep, depSub = "rabbitmq-cluster-operator.v2.22.3", "rabbitmq-cluster-operator-stable-community-operators-openshift-marketplace"

	code, _, stderr := run(t, "", "render", input, "-v", "--catalog", named)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stderr, "requires package rabbitmq-cluster-operator >2.0.0 (olm.package.required): OLM v0 also installs "+dep+
		" (package rabbitmq-cluster-operator, channel stable, CatalogSource openshift-marketplace/community-operators) into namespace messaging")

	code, out, stderr := run(t, "", "render", input, "--dependencies", "subscriptions", "--catalog", named)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "  name: "+depSub+"\n  namespace: messaging\n")
	assert.Contains(t, out, "  startingCSV: "+dep+"\n")

	dir := t.TempDir()
	code, _, stderr = run(t, "", "mirror", input, "--catalog", named, "-o", dir)
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, stderr, "messaging/"+depSub+": bundle "+dep+", ", "OLM's own resolver adds the bundle the render names")
	assert.Contains(t, stderr, "a dependency OLM adds for messaging/rabbitmq-messaging-topology-operator")
	isc, err := os.ReadFile(filepath.Join(dir, "imageset-config.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(isc), "      - maxVersion: 2.22.3\n        minVersion: 2.22.3\n        name: stable\n      name: rabbitmq-cluster-operator\n")
	images, err := os.ReadFile(filepath.Join(dir, "images.txt"))
	require.NoError(t, err)
	c, err := catalog.LoadWith(catalog.LoadOptions{Packages: []string{"rabbitmq-cluster-operator"}}, community)
	require.NoError(t, err)
	pkg, ok := c.Package("rabbitmq-cluster-operator")
	require.True(t, ok)
	require.NotNil(t, pkg.Bundles[dep])
	assert.Contains(t, strings.Split(string(images), "\n"), pkg.Bundles[dep].Image, "the dependency's bundle image")

	code, out, stderr = run(t, "", "plan", input, "--catalog", named, "--snapshot", filepath.Join(realDependencies, "snapshot"))
	require.Equal(t, cli.ExitOK, code, stderr)
	assert.Contains(t, out, "messaging/"+depSub+" (rabbitmq-cluster-operator, channel stable): install "+dep+"\n"+
		"  dependency: OLM installs or updates it with messaging/rabbitmq-messaging-topology-operator: rabbitmq-messaging-topology-operator.v1.19.3 requires package rabbitmq-cluster-operator >2.0.0 (olm.package.required)")
}
