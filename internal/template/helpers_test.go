package template_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/template"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// memReader is an in-memory Reader keyed by group/kind/namespace/name, as the render's
// look-ups are (any version of a group reads its objects); cluster-scoped kinds ignore the
// namespace, as an API client does. secret marks fields of objects, by the same key.
type memReader struct {
	objs   map[string]map[string]any
	fail   map[string]error
	secret map[string]secret.Fields
	reads  []string
}

var clusterScoped = map[string]bool{"Node": true, "PersistentVolume": true}

func readerKey(apiVersion, kind, ns, name string) string {
	if clusterScoped[kind] {
		ns = ""
	}
	return secret.Group(apiVersion) + "/" + kind + "/" + ns + "/" + name
}

func newReader(t testing.TB, docs string) *memReader {
	t.Helper()
	r := &memReader{objs: map[string]map[string]any{}, fail: map[string]error{}, secret: map[string]secret.Fields{}}
	objs, err := manifest.Decode("objects.yaml", []byte(docs))
	require.NoError(t, err)
	for _, o := range objs {
		r.objs[readerKey(o.APIVersion(), o.Kind(), o.Namespace(), o.Name())] = o.Map
	}
	return r
}

// mark marks a field (a path as diagnostics print it) of an object as holding a Secret's value.
func (r *memReader) mark(apiVersion, kind, ns, name, field string) {
	k := readerKey(apiVersion, kind, ns, name)
	f := r.secret[k]
	f.Add(manifest.SplitPath(field))
	r.secret[k] = f
}

func (r *memReader) Get(apiVersion, kind, ns, name string) (template.Read, error) {
	k := readerKey(apiVersion, kind, ns, name)
	r.reads = append(r.reads, k)
	if err := r.fail[k]; err != nil {
		return template.Read{}, err
	}
	o, ok := r.objs[k]
	if !ok {
		return template.Read{}, nil
	}
	return template.Read{Object: o, Secret: r.secret[k]}, nil
}

// value decodes one YAML mapping.
func value(t testing.TB, y string) map[string]any {
	t.Helper()
	objs, err := manifest.Decode("value.yaml", []byte(y))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0].Map
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// planted is a Secret value that must never show up in an error or a Use.
const planted = "s3cr3t-PLANTED-value"

// badBase64 is a Secret's raw data that is not base64; it must not show up either.
const badBase64 = "!!PLANTED-not-base64!!"

// fixtures are the objects most tests read (instance namespace "ns").
var fixtures = fmt.Sprintf(`
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: ns}
data:
  a: from-cm
  empty: ""
  num: "42"
  t: "true"
  f: "false"
  F: "False"
  arr: '[1, "a", true, 2.50]'
  obj: '{"a":1}'
  badarr: '[1,'
  big: '[1e400]'
  sp: ' [1]'
  data.key: dotted
  env: production
  q1: 1Gi
binaryData: {bin: aGVsbG8=}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: other}
data: {a: from-other-ns}
---
apiVersion: v1
kind: Secret
metadata: {name: sec, namespace: ns}
data: {pw: %s, empty: ""}
---
apiVersion: v1
kind: Secret
metadata: {name: sd, namespace: ns}
data: {k: %s, only-data: %s}
stringData: {k: new, extra: from-stringData}
---
apiVersion: v1
kind: Secret
metadata: {name: bad, namespace: ns}
data: {k: %q}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: dep, namespace: ns}
data: {strategy: Recreate}
status: {replicas: 3}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec:
  clusterIP: ""
  host: svc.example
  ports: [{port: 80}, {port: 443}]
status:
  ratio: 1.5
  big: 1e21
  ready: true
  off: false
  nothing: null
  labels: {b: 1, a: "<x>"}
  list: [1, "two"]
  strs: '["x"]'
`, b64(planted), b64("old"), b64("data-only"), badBase64)

type outcome struct {
	out  any
	uses []template.Use
	err  error
}

func resolve(t testing.TB, in map[string]any, r template.Reader) outcome {
	t.Helper()
	return resolveIn(t, "ns", in, r)
}

func resolveIn(t testing.TB, ns string, in map[string]any, r template.Reader) outcome {
	t.Helper()
	before := merge.DeepCopy(in)
	out, uses, err := template.Resolve(in, template.Context{Namespace: ns, Reader: r})
	require.Equal(t, before, in, "Resolve must not modify its input")
	return outcome{out, uses, err}
}

// assertNoSecret checks that the planted secret material appears in no error and no Use.
func assertNoSecret(t testing.TB, o outcome) {
	t.Helper()
	var texts []string
	if o.err != nil {
		texts = append(texts, o.err.Error(), fmt.Sprintf("%+v", o.err), fmt.Sprintf("%#v", o.err))
		var e *template.Error
		if errors.As(o.err, &e) {
			texts = append(texts, fmt.Sprintf("%+v", *e))
		}
	}
	texts = append(texts, fmt.Sprintf("%+v", o.uses), fmt.Sprintf("%#v", o.uses))
	for _, s := range texts {
		for _, secret := range []string{planted, badBase64, b64(planted), "data-only"} {
			require.NotContains(t, s, secret)
		}
		require.False(t, strings.Contains(s, "PLANTED"), "secret material in %q", s)
	}
}
