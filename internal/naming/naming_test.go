package naming_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/naming"
)

func TestRequestCRName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		req, apiVer, kind string
		index             int
		want              string
	}{
		{name: "jaeger vector", req: "my-req", apiVer: "jaegertracing.io/v1", kind: "Jaeger", index: 1, want: "my-req-0715f3fa1417cd"},
		{name: "index changes hash", req: "r", apiVer: "jaegertracing.io/v1", kind: "Jaeger", index: 0, want: "r-" + sha14("jaegertracing.io/v1Jaeger0")},
		{name: "negative index", req: "r", apiVer: "a/v1", kind: "K", index: -3, want: "r-" + sha14("a/v1K-3")},
		{name: "empty parts", req: "", apiVer: "", kind: "", index: 0, want: "-" + sha14("0")},
		{name: "unicode", req: "rq", apiVer: "été/v1", kind: "Ärger", index: 12, want: "rq-" + sha14("été/v1Ärger12")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := naming.RequestCRName(tc.req, tc.apiVer, tc.kind, tc.index)
			assert.Equal(t, tc.want, got)
			assert.Len(t, strings.TrimPrefix(got, tc.req+"-"), 14)
		})
	}
}

func sha14(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:14]
}

func TestDataHashVectors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{name: "simple", in: `{"a":1}`, want: "015abd7f5cc57a"},
		{
			name: "floats and html escaping",
			in:   `{"c":[1e21,1.50,null,true],"b":"<&>","a":12345678901234567890}`,
			want: "f2a174fc0a2729",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := naming.DataHash(decodeNumbers(t, tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestDataHashMatchesFloatDecoding checks DataHash against an independent
// path: decoding into float64 values and hashing json.Marshal's output.
func TestDataHashMatchesFloatDecoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
	}{
		{name: "integer", in: `3`},
		{name: "one point zero", in: `{"x":1.0}`},
		{name: "one point five", in: `{"x":1.5}`},
		{name: "large exponent", in: `{"x":1e21}`},
		{name: "small exponent", in: `{"x":1e-7}`},
		{name: "beyond int64", in: `{"x":12345678901234567890}`},
		{name: "negative zero", in: `{"x":-0}`},
		{name: "unsorted keys", in: `{"z":1,"a":{"y":[1,{"b":2,"a":1}],"x":"q"}}`},
		{name: "html and unicode", in: `{"s":"<a href='x'>&amp;</a> é \u2028"}`},
		{name: "null and bools", in: `{"n":null,"t":true,"f":false}`},
		{name: "empty object", in: `{}`},
		{name: "list top level", in: `[1,2.25,"x"]`},
		{name: "string top level", in: `"plain"`},
		{name: "null top level", in: `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var floats any
			require.NoError(t, json.Unmarshal([]byte(tc.in), &floats))
			data, err := json.Marshal(floats)
			require.NoError(t, err)

			got, err := naming.DataHash(decodeNumbers(t, tc.in))
			require.NoError(t, err)
			assert.Equal(t, sha14(string(data)), got)
		})
	}
}

func TestDataHashDoesNotMutate(t *testing.T) {
	t.Parallel()
	in := decodeNumbers(t, `{"a":[1.0,{"b":2}]}`)
	_, err := naming.DataHash(in)
	require.NoError(t, err)
	assert.Equal(t, decodeNumbers(t, `{"a":[1.0,{"b":2}]}`), in)
}

func TestDataHashErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      any
		wantErr string
	}{
		{name: "out of range", in: map[string]any{"a": []any{json.Number("1e400")}}, wantErr: `a[0]: number "1e400" is not a float64`},
		{name: "not a number", in: json.Number("abc"), wantErr: `number "abc" is not a float64`},
		{name: "not JSON number text", in: map[string]any{"x": json.Number("0x10")}, wantErr: `x: number "0x10" is not a float64`},
		{name: "NaN", in: json.Number("NaN"), wantErr: `number "NaN" is not a float64`},
		{name: "unencodable", in: map[string]any{"f": func() {}}, wantErr: "encoding data to hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := naming.DataHash(tc.in)
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	return v
}

func TestAnnotationKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, got, want string
	}{
		{name: "registry", got: naming.RegistryAnnotation("ibm-common-services", "common-service"), want: "ibm-common-services.common-service/registry"},
		{name: "config", got: naming.ConfigAnnotation("ibm-common-services", "common-service"), want: "ibm-common-services.common-service/config"},
		{name: "request", got: naming.RequestAnnotation("ns", "req", "ibm-iam-operator"), want: "ns.req.ibm-iam-operator/request"},
		{name: "operator namespace", got: naming.OperatorNamespaceAnnotation("ns", "req", "ibm-iam-operator"), want: "ns.req.ibm-iam-operator/operatorNamespace"},
		{name: "request config", got: naming.RequestConfigAnnotation("ns", "req", "ibm-iam-operator"), want: "ns.req.ibm-iam-operator/config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.got)
		})
	}
}

func TestConstants(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "operator.ibm.com/operand-depoyment-lifecycle-manager.hashedData", naming.HashedDataAnnotation)
	assert.Equal(t, "operator.ibm.com/opreq-control", naming.ControlLabel)
	assert.Equal(t, "operator.ibm.com/opreq-do-not-uninstall", naming.DoNotUninstallLabel)
	assert.Equal(t, "operator.ibm.com/odlm.route.hashedData", naming.RouteHashAnnotation)
	assert.Equal(t, "openshift-operators", naming.ClusterInstallNamespace)
	assert.Equal(t, "operand-deployment-lifecycle-manager-operatorgroup", naming.OperatorGroupName)
	assert.Equal(t, "operator.ibm.com/watched-by-odlm", naming.WatchedByODLMLabel)
	assert.Equal(t, "operator.ibm.com/managedBy-opbi", naming.ManagedByOpbiLabel)
}

// TestTextHashIsOfTheRawHost checks the worked value of docs/semantics.md, OperandConfig resources: the Route
// host hash is over the host's bytes, not over its JSON string.
func TestTextHashIsOfTheRawHost(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "7653e4959f8eac", naming.TextHash("a.example.com"))
	assert.NotEqual(t, "e8b75f7e378fa9", naming.TextHash("a.example.com"), "the hash of the quoted JSON string is ODLM's wrong reading")
}
