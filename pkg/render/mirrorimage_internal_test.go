package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMirrorImage(t *testing.T) {
	t.Parallel()
	mirrors := []string{"quay.io=mirror.local:5000/quay", "quay.io/org/index=mirror.local:5000/index", "registry.redhat.io/redhat=mirror.local/rh"}
	for _, tc := range []struct{ in, want string }{
		{"quay.io/org/other:v1", "mirror.local:5000/quay/org/other:v1"},
		{"quay.io/org/index:v4.16", "mirror.local:5000/index:v4.16"},
		{"quay.io/org/index@sha256:abc", "mirror.local:5000/index@sha256:abc"},
		{"quay.io/org/indexer:v1", "mirror.local:5000/quay/org/indexer:v1"},
		{"registry.redhat.io/redhat/redhat-operator-index:v4.16", "mirror.local/rh/redhat-operator-index:v4.16"},
		{"registry.redhat.io/redhatx/index:1", "registry.redhat.io/redhatx/index:1"},
		{"quay.iox/a:1", "quay.iox/a:1"},
		{"docker.io/library/busybox", "docker.io/library/busybox"},
	} {
		assert.Equal(t, tc.want, mirrorImage(tc.in, mirrors), tc.in)
	}
}
