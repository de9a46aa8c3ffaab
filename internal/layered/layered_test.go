package layered_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/layered"
)

func paths(fs []layered.File[int]) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

// TestFiles: whiteouts apply to earlier layers only, whatever their order in their layer; a
// file replaces a folder of its name; files come in the order a walk of the folder meets them.
func TestFiles(t *testing.T) {
	l := layered.New[int]()
	l.Put("a/x.yaml", 1)
	l.Put("a.yaml", 2)
	l.Put("b/c/y.yaml", 3)
	l.Put("d/z.yaml", 4)
	l.NextLayer()
	l.Put("b/c/y2.yaml", 5)
	l.DeleteBelow("b")
	l.Delete("/d/../d")
	l.Put("a/x.yaml", 6)
	assert.Equal(t, []string{"a/x.yaml", "a.yaml", "b/c/y2.yaml"}, paths(l.Files()))
	assert.Equal(t, 6, l.Files()[0].Value, "a later layer replaces a file")
	l.NextLayer()
	l.Put("a", 7)
	assert.Equal(t, []string{"a", "a.yaml", "b/c/y2.yaml"}, paths(l.Files()), "a file replaces the folder of its name")
	l.NextLayer()
	l.Delete("")
	assert.Empty(t, l.Files(), "deleting the root deletes every earlier file")
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{"": "", "/": "", "a/../b/": "b", "../../x": "x", "/configs/p.yaml": "configs/p.yaml"} {
		assert.Equal(t, want, layered.CleanPath(in), in)
	}
}
