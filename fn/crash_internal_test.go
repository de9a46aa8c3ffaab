package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestPanicIsOneInternalErrorResult swaps the engine for one that panics with a value that
// quotes a secret: the function answers as it does for any error (its input items back,
// one error result), exits 1, and never prints the panic's value.
func TestPanicIsOneInternalErrorResult(t *testing.T) {
	t.Parallel()
	panics := func(render.Inputs, render.Options) render.Output { panic("token: s3cr3t-planted") }
	in := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: operator.ibm.com/v1alpha1
  kind: OperandRequest
  metadata: {name: r, namespace: ns}
  spec: {requests: []}
`
	var stdout, stderr bytes.Buffer
	code := run(nil, strings.NewReader(in), &stdout, &stderr, panics)
	assert.Equal(t, 1, code)
	require.Contains(t, stdout.String(), "results:")
	assert.Contains(t, stdout.String(), "internal error: panic with a string value at ")
	assert.Equal(t, 1, strings.Count(stdout.String(), "severity: error"))
	assert.Contains(t, stdout.String(), "kind: OperandRequest", "the items come back, as for any error")
	assert.NotContains(t, stdout.String()+stderr.String(), "s3cr3t")
}
