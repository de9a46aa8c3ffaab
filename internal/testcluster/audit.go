package testcluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// AuditLog is the API server's audit log: one JSON audit.k8s.io/v1 Event per line, at level
// Metadata (who, verb, URI, object reference, response code; never a body), stage
// ResponseComplete only (scripts/apiserver.sh writes the policy).
func (c *Cluster) AuditLog() string { return filepath.Join(c.dir, "audit.log") }

// AuditEvent is the part of an audit.k8s.io/v1 Event the tests look at.
type AuditEvent struct {
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		APIVersion  string `json:"apiVersion"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// AuditEvents reads the audit log and returns the events of one user, in log order.
func (c *Cluster) AuditEvents(t testing.TB, username string) []AuditEvent {
	t.Helper()
	f, err := os.Open(c.AuditLog())
	if err != nil {
		t.Fatalf("AuditEvents: %v (does scripts/apiserver.sh enable auditing?)", err)
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e AuditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a line being written
		}
		if e.User.Username == username {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("AuditEvents: %v", err)
	}
	return out
}

// WaitAuditEvents waits (at most 10 s) until the audit log holds at least n events of the
// user, then returns them all: an event is written once its response is complete, which may
// be just after the client has the response.
func (c *Cluster) WaitAuditEvents(t testing.TB, username string, n int) []AuditEvent {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		events := c.AuditEvents(t, username)
		if len(events) >= n || time.Now().After(deadline) {
			return events
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ServiceAccountUser is the user name the API server gives a ServiceAccount's tokens.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// ServiceAccountKubeconfig creates the ServiceAccount namespace/name (as the admin), asks the
// TokenRequest API for a one-hour token of it (the cluster has no controller-manager, so no
// token Secret is ever created), and writes a kubeconfig with that token and the cluster's
// CA into a test temp folder. It returns the kubeconfig's path.
func (c *Cluster) ServiceAccountKubeconfig(t testing.TB, namespace, name string) string {
	t.Helper()
	c.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n", name, namespace))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sa := c.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}).Namespace(namespace)
	req := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authentication.k8s.io/v1",
		"kind":       "TokenRequest",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       map[string]any{"expirationSeconds": int64(3600)},
	}}
	got, err := sa.Create(ctx, req, metav1.CreateOptions{}, "token")
	if err != nil {
		t.Fatalf("ServiceAccountKubeconfig: TokenRequest for %s/%s: %v", namespace, name, err)
	}
	token, _, _ := unstructured.NestedString(got.Object, "status", "token")
	if token == "" {
		t.Fatalf("ServiceAccountKubeconfig: TokenRequest for %s/%s returned no token", namespace, name)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: odlm-render-test
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: sa
  context: {cluster: odlm-render-test, user: %s}
current-context: sa
`, c.server, filepath.Join(c.dir, "pki", "ca.crt"), name, token, name)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatalf("ServiceAccountKubeconfig: %v", err)
	}
	return path
}

// WaitAllowed waits (at most 30 s) until user may use verb on resource in group (in
// namespace; "" for cluster-wide), as the RBAC authorizer sees it: bindings reach it through
// an informer, a moment after they are created.
func (c *Cluster) WaitAllowed(t testing.TB, user, namespace, group, resource, verb string) {
	t.Helper()
	c.waitAllowedUser(t, user, namespace, group, resource, verb)
}
