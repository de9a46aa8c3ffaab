// Package testcluster gives tests a real kube-apiserver (with etcd) on 127.0.0.1, started by
// scripts/apiserver.sh, to read from as a "live cluster".
//
// Start returns the cluster named by $ODLM_RENDER_APISERVER_DIR (a run folder printed by
// `scripts/apiserver.sh start`) if set, else starts one, once per test binary; a TestMain
// that uses Start calls Stop after m.Run. StartPrivate starts one for a single test. When the binaries are not built
// (`scripts/apiserver.sh build`), Start skips the test, or fails it when
// $ODLM_RENDER_REQUIRE_TOOLS=1.
//
// The cluster has no controller-manager: namespaces never finish deleting, so each test
// takes a fresh namespace (Namespace) and nothing is deleted.
package testcluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// EnvDir names a running cluster's run folder to reuse instead of starting one.
const EnvDir = "ODLM_RENDER_APISERVER_DIR"

// EnvRequire makes missing binaries a test failure instead of a skip.
const EnvRequire = "ODLM_RENDER_REQUIRE_TOOLS"

// ReaderUser is the user name of ReaderKubeconfig's token; it has no groups, so it can do
// only what GrantReader grants (and discovery).
const ReaderUser = "reader"

// Cluster is a running test cluster.
type Cluster struct {
	dir    string
	server string
	dyn    dynamic.Interface
	rest   rest.Interface // for discovery

	mu        sync.Mutex
	discovery map[schema.GroupVersion][]metav1.APIResource
}

var (
	once     sync.Once
	shared   *Cluster
	startErr error
	skipMsg  string
	started  string // run folder this binary started (Stop stops it)
)

// Start returns the test cluster, starting it on first use (see the package comment).
func Start(t testing.TB) *Cluster {
	t.Helper()
	once.Do(func() { shared, skipMsg, startErr = start() })
	if skipMsg != "" {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s (and %s=1)", skipMsg, EnvRequire)
		}
		t.Skip(skipMsg)
	}
	if startErr != nil {
		t.Fatalf("test cluster: %v", startErr)
	}
	return shared
}

// Stop stops the cluster if this test binary started it, and removes its run folder
// (unless the logs are needed: it keeps the folder when $ODLM_RENDER_APISERVER_KEEP=1).
func Stop() {
	if started == "" {
		return
	}
	dir := started
	started = ""
	if !stopRun(dir) {
		return
	}
	if os.Getenv("ODLM_RENDER_APISERVER_KEEP") != "1" {
		_ = os.RemoveAll(dir)
	}
}

func start() (*Cluster, string, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		c, err := open(dir)
		return c, "", err
	}
	dir, skip, err := launch("")
	if skip != "" || err != nil {
		return nil, skip, err
	}
	started = dir
	c, err := open(dir)
	return c, "", err
}

// StartPrivate starts a cluster of the test's own: its own etcd and kube-apiserver in a
// run folder under t.TempDir (never $ODLM_RENDER_APISERVER_DIR's, never the shared one),
// for a test that needs a cluster no other test changes, such as one without OLM's CRDs.
// It is stopped in t.Cleanup (and by scripts/apiserver.sh's watcher if the test binary
// dies). It skips or fails as Start does when the binaries are not built. Starting one
// takes about 10 seconds on 2 cores.
func StartPrivate(t testing.TB) *Cluster {
	t.Helper()
	runDir := filepath.Join(t.TempDir(), "apiserver")
	dir, skip, err := launch(runDir)
	if skip != "" {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s (and %s=1)", skip, EnvRequire)
		}
		t.Skip(skip)
	}
	if err != nil {
		t.Fatalf("private test cluster: %v", err)
	}
	t.Cleanup(func() { _ = stopRun(dir) })
	c, err := open(dir)
	if err != nil {
		t.Fatalf("private test cluster: %v", err)
	}
	return c
}

// launch starts a cluster with scripts/apiserver.sh in runDir ("": a new temporary folder)
// and returns its run folder, or why the test must be skipped.
func launch(runDir string) (dir, skip string, err error) {
	root := repoRoot()
	if root == "" {
		return "", "no scripts/apiserver.sh above the test's folder", nil
	}
	script := filepath.Join(root, "scripts", "apiserver.sh")
	if _, err := exec.LookPath("bash"); err != nil {
		return "", "bash is not available to run scripts/apiserver.sh", nil
	}
	if err := exec.Command("bash", script, "built").Run(); err != nil {
		return "", "kube-apiserver/etcd are not built: run scripts/apiserver.sh build", nil
	}
	cmd := exec.Command("bash", script, "start", runDir)
	cmd.Env = append(os.Environ(), "ODLM_APISERVER_OWNER_PID="+strconv.Itoa(os.Getpid()))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("scripts/apiserver.sh start: %w\n%s", err, errb.String())
	}
	return strings.TrimSpace(out.String()), "", nil
}

// stopRun stops the cluster of a run folder with scripts/apiserver.sh, and tells whether
// it did (a failure is reported on stderr).
func stopRun(dir string) bool {
	cmd := exec.Command("bash", filepath.Join(repoRoot(), "scripts", "apiserver.sh"), "stop", dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "testcluster: stop %s: %v\n", dir, err)
		return false
	}
	return true
}

func open(dir string) (*Cluster, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		return nil, fmt.Errorf("run folder %s: %w", dir, err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	cfg.WarningHandler = rest.NoWarnings{}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	rc, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(cfg))
	if err != nil {
		return nil, err
	}
	return &Cluster{dir: dir, server: cfg.Host, dyn: dyn, rest: rc, discovery: map[schema.GroupVersion][]metav1.APIResource{}}, nil
}

var errNoKind = errors.New("kind not served")

// resource maps a kind to its resource with discovery (one GET per group-version, cached;
// forget drops the cache entry, after a CRD change).
func (c *Cluster) resource(ctx context.Context, gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool, error) {
	gv := gvk.GroupVersion()
	c.mu.Lock()
	list, ok := c.discovery[gv]
	c.mu.Unlock()
	if !ok {
		path := "/apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			path = "/api/" + gv.Version
		}
		body, err := c.rest.Get().AbsPath(path).Do(ctx).Raw()
		if apierrors.IsNotFound(err) {
			return schema.GroupVersionResource{}, false, errNoKind
		}
		if err != nil {
			return schema.GroupVersionResource{}, false, err
		}
		var rl metav1.APIResourceList
		if err := json.Unmarshal(body, &rl); err != nil {
			return schema.GroupVersionResource{}, false, err
		}
		list = rl.APIResources
		c.mu.Lock()
		c.discovery[gv] = list
		c.mu.Unlock()
	}
	for _, r := range list {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return gv.WithResource(r.Name), r.Namespaced, nil
		}
	}
	return schema.GroupVersionResource{}, false, errNoKind
}

func (c *Cluster) forget(gv schema.GroupVersion) {
	c.mu.Lock()
	delete(c.discovery, gv)
	c.mu.Unlock()
}

// client is the dynamic client for an object's kind and namespace.
func (c *Cluster) client(ctx context.Context, gvk schema.GroupVersionKind, namespace string, wait bool) (dynamic.ResourceInterface, error) {
	var (
		gvr        schema.GroupVersionResource
		namespaced bool
		err        error
	)
	deadline := time.Now().Add(20 * time.Second)
	for {
		gvr, namespaced, err = c.resource(ctx, gvk)
		// a kind from a CRD just established may take a moment to appear in discovery
		if !errors.Is(err, errNoKind) || !wait || time.Now().After(deadline) {
			break
		}
		c.forget(gvk.GroupVersion())
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", gvk, err)
	}
	if !namespaced {
		return c.dyn.Resource(gvr), nil
	}
	if namespace == "" {
		return nil, errors.New("a namespaced object needs a namespace")
	}
	return c.dyn.Resource(gvr).Namespace(namespace), nil
}

// repoRoot is the nearest folder above the working directory holding scripts/apiserver.sh.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "apiserver.sh")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dir is the run folder (logs, kubeconfigs, certificates).
func (c *Cluster) Dir() string { return c.dir }

// Server is the API server URL (https://127.0.0.1:PORT).
func (c *Cluster) Server() string { return c.server }

// AdminKubeconfig is a kubeconfig for a cluster admin (group system:masters).
func (c *Cluster) AdminKubeconfig() string { return filepath.Join(c.dir, "admin.kubeconfig") }

// ReaderKubeconfig is a kubeconfig for user "reader", who has no groups and no grants but
// those of GrantReader.
func (c *Cluster) ReaderKubeconfig() string { return filepath.Join(c.dir, "reader.kubeconfig") }

// Apply creates or updates the objects of a YAML (or JSON) stream as the admin, with
// server-side apply. A CustomResourceDefinition is waited for until Established, so that
// later objects (in the same call or not) may be of its kinds.
func (c *Cluster) Apply(t testing.TB, yaml string) {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(yaml), 4096)
	for i := 0; ; i++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			t.Fatalf("Apply: document %d: %v", i, err)
		}
		if len(m) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{Object: m}
		if err := c.apply(obj); err != nil {
			t.Fatalf("Apply: %s %s %s/%s: %v", obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
}

// ApplyObject is Apply for one decoded object, returning the server's error instead of
// failing the test (for a test that knows which refusals to expect).
func (c *Cluster) ApplyObject(obj map[string]any) error {
	return c.apply(&unstructured.Unstructured{Object: obj})
}

// DryRunCreate asks the API server to validate creating obj (server-side dry run, as the
// admin): the object's schema is checked against its CRD, nothing is stored. It returns the
// server's answer.
func (c *Cluster) DryRunCreate(obj map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := &unstructured.Unstructured{Object: obj}
	ri, err := c.client(ctx, u.GroupVersionKind(), u.GetNamespace(), true)
	if err != nil {
		return err
	}
	_, err = ri.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
}

// DryRunCreateStored is DryRunCreate with the server's default field validation for
// clients that do not ask (unknown fields are dropped, not refused), returning the object
// as the server would store it: pruned and defaulted.
func (c *Cluster) DryRunCreateStored(obj map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := &unstructured.Unstructured{Object: obj}
	ri, err := c.client(ctx, u.GroupVersionKind(), u.GetNamespace(), true)
	if err != nil {
		return nil, err
	}
	stored, err := ri.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Ignore"})
	if err != nil {
		return nil, err
	}
	return stored.Object, nil
}

func (c *Cluster) apply(obj *unstructured.Unstructured) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	gvk := obj.GroupVersionKind()
	ri, err := c.client(ctx, gvk, obj.GetNamespace(), true)
	if err != nil {
		return err
	}
	if _, err := ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "testcluster", Force: true}); err != nil {
		return err
	}
	if gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition" {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, cnd := range conds {
				m, _ := cnd.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD not established: %w", err)
		}
		// its group-versions are served now
		if versions, _, _ := unstructured.NestedSlice(obj.Object, "spec", "versions"); versions != nil {
			group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
			for _, v := range versions {
				if m, ok := v.(map[string]any); ok {
					if name, ok := m["name"].(string); ok {
						c.forget(schema.GroupVersion{Group: group, Version: name})
					}
				}
			}
		}
	}
	return nil
}

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

// Namespace creates a fresh namespace for the test and returns its name. Namespaces are
// never deleted (without a controller-manager they would never finish).
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	base := strings.Trim(nonName.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(base) > 40 {
		base = strings.Trim(base[:40], "-")
	}
	name := "t-" + base + "-" + randomSuffix()
	c.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", name))
	return name
}

// GrantReader lets the reader user use verbs on resources in namespace (a Role and a
// RoleBinding), or cluster-wide when namespace is "" (a ClusterRole and a
// ClusterRoleBinding). A resource is "configmaps" (core group) or "<plural>.<group>"
// ("operandrequests.operator.ibm.com").
func (c *Cluster) GrantReader(t testing.TB, namespace string, resources []string, verbs []string) {
	t.Helper()
	byGroup := map[string][]any{}
	var groups []string
	for _, r := range resources {
		name, group, _ := strings.Cut(r, ".")
		if _, ok := byGroup[group]; !ok {
			groups = append(groups, group)
		}
		byGroup[group] = append(byGroup[group], name)
	}
	var rules []any
	for _, g := range groups {
		vs := make([]any, len(verbs))
		for i, v := range verbs {
			vs[i] = v
		}
		rules = append(rules, map[string]any{"apiGroups": []any{g}, "resources": byGroup[g], "verbs": vs})
	}
	name := "reader-" + randomSuffix()
	roleKind, bindingKind := "Role", "RoleBinding"
	md := map[string]any{"name": name}
	if namespace == "" {
		roleKind, bindingKind = "ClusterRole", "ClusterRoleBinding"
	} else {
		md["namespace"] = namespace
	}
	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": roleKind, "metadata": md, "rules": rules,
	}}
	binding := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": bindingKind, "metadata": md,
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": name},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": ReaderUser}},
	}}
	for _, o := range []*unstructured.Unstructured{role, binding} {
		if err := c.apply(o); err != nil {
			t.Fatalf("GrantReader: %s %s: %v", o.GetKind(), name, err)
		}
	}
	// the RBAC authorizer reads bindings from an informer cache: wait until it allows every
	// granted verb, so that tests never race the grant
	for _, g := range groups {
		for _, res := range byGroup[g] {
			for _, v := range verbs {
				c.waitAllowed(t, namespace, g, res.(string), v)
			}
		}
	}
}

// waitAllowed polls a SubjectAccessReview (as the admin) until the reader may use verb on
// the resource, for at most 30 seconds.
func (c *Cluster) waitAllowed(t testing.TB, namespace, group, resource, verb string) {
	t.Helper()
	c.waitAllowedUser(t, ReaderUser, namespace, group, resource, verb)
}

func (c *Cluster) waitAllowedUser(t testing.TB, user, namespace, group, resource, verb string) {
	t.Helper()
	review := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authorization.k8s.io/v1",
		"kind":       "SubjectAccessReview",
		"spec": map[string]any{
			"user": user,
			"resourceAttributes": map[string]any{
				"namespace": namespace, "group": group, "resource": resource, "verb": verb,
			},
		},
	}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ri, err := c.client(ctx, schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"}, "", false)
		var out *unstructured.Unstructured
		if err == nil {
			out, err = ri.Create(ctx, review.DeepCopy(), metav1.CreateOptions{})
		}
		cancel()
		if err == nil {
			if allowed, _, _ := unstructured.NestedBool(out.Object, "status", "allowed"); allowed {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s may not %s %s in %q after 30s (last error: %v)", user, verb, resource, namespace, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Delete deletes an object as the admin (NotFound is not an error). Namespaces never finish
// deleting on this cluster; delete objects inside them instead.
func (c *Cluster) Delete(t testing.TB, apiVersion, kind, namespace, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ri, err := c.client(ctx, schema.FromAPIVersionAndKind(apiVersion, kind), namespace, false)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("Delete %s %s %s/%s: %v", apiVersion, kind, namespace, name, err)
	}
}

func randomSuffix() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// UnreachableKubeconfig writes a kubeconfig whose server is a loopback port nothing listens
// on (it was just bound and closed), and returns its path. It needs no cluster.
func UnreachableKubeconfig(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("UnreachableKubeconfig: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return WriteKubeconfig(t, "https://"+addr, "unreachable-token")
}

// WriteKubeconfig writes a kubeconfig for server with a bearer token (TLS verification off:
// for servers that are not real clusters) into a test temp folder and returns its path.
func WriteKubeconfig(t testing.TB, server, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: u
  user:
    token: %s
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`, server, token)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatalf("WriteKubeconfig: %v", err)
	}
	return path
}

// Access is one request a user may or may not be allowed to make.
type Access struct {
	Verb, Group, Resource, Subresource, Namespace, Name string
}

func (a Access) String() string {
	r := a.Resource
	if a.Subresource != "" {
		r += "/" + a.Subresource
	}
	if a.Group != "" {
		r += "." + a.Group
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s %s/%s", a.Verb, r, a.Namespace, a.Name))
}

// Allowed asks the API server's authorizer (a SubjectAccessReview, as the admin) whether a
// user in groups may make the request.
func (c *Cluster) Allowed(user string, groups []string, a Access) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ri, err := c.client(ctx, schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"}, "", false)
	if err != nil {
		return false, err
	}
	gs := make([]any, len(groups))
	for i, g := range groups {
		gs[i] = g
	}
	review := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authorization.k8s.io/v1",
		"kind":       "SubjectAccessReview",
		"spec": map[string]any{
			"user":   user,
			"groups": gs,
			"resourceAttributes": map[string]any{
				"namespace": a.Namespace, "group": a.Group, "resource": a.Resource, "subresource": a.Subresource,
				"verb": a.Verb, "name": a.Name,
			},
		},
	}}
	out, err := ri.Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	allowed, _, _ := unstructured.NestedBool(out.Object, "status", "allowed")
	return allowed, nil
}

// DryRunCreateAs creates obj in a server-side dry run as a user in groups (impersonated by
// the admin): authorization and admission (RBAC's escalation check among them) run, nothing
// is stored.
func (c *Cluster) DryRunCreateAs(user string, groups []string, obj map[string]any) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.AdminKubeconfig())
	if err != nil {
		return err
	}
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := &unstructured.Unstructured{Object: obj}
	gvr, namespaced, err := c.resource(ctx, u.GroupVersionKind())
	if err != nil {
		return err
	}
	var ri dynamic.ResourceInterface = dyn.Resource(gvr)
	if namespaced {
		ri = dyn.Resource(gvr).Namespace(u.GetNamespace())
	}
	_, err = ri.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// Main is the TestMain of a package whose tests use Start: it runs them, stops the cluster
// this binary started, and exits with their status.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}
