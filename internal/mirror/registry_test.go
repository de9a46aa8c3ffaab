package mirror_test

import (
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/mirror"
)

// imageRef is an image reference taken apart: its repository path (without registry host,
// Docker Hub's library/ added as container runtimes add it), and its tag and digest ("" when
// it names none).
type imageRef struct {
	host, path, tag, digest string
}

// parseImage takes an image of a golden list apart.
func parseImage(t *testing.T, image string) imageRef {
	t.Helper()
	base, digest, _ := strings.Cut(image, "@")
	var tag string
	if colon := strings.LastIndex(base, ":"); colon > strings.LastIndex(base, "/") {
		base, tag = base[:colon], base[colon+1:]
	}
	repo, err := name.NewRepository(base)
	require.NoError(t, err, image)
	return imageRef{host: repo.RegistryStr(), path: repo.RepositoryStr(), tag: tag, digest: digest}
}

// on is the reference written back, on host.
func (r imageRef) on(host string) string {
	s := host + "/" + r.path
	if r.tag != "" {
		s += ":" + r.tag
	}
	if r.digest != "" {
		s += "@" + r.digest
	}
	return s
}

// goldenImages is the list of a case: images.txt, or the images of images.json.
func goldenImages(t *testing.T, c goldenCase) []string {
	t.Helper()
	if text := c.expected(t, "images.txt"); text != "" {
		return strings.Fields(text)
	}
	var list struct {
		Images []struct {
			Image string `json:"image"`
		} `json:"images"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.expected(t, "images.json")), &list))
	var out []string
	for _, im := range list.Images {
		out = append(out, im.Image)
	}
	return out
}

// newRegistry starts an in-process registry and returns its host.
func newRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// pushImages pushes a small random image for every image of list into the registry at host,
// under the same repository path and tag; an image named by digest is referenced by the
// digest of the image pushed instead. It returns the generated list, in list's order.
func pushImages(t *testing.T, host string, list []string) []imageRef {
	t.Helper()
	origin := map[string]string{}
	var out []imageRef
	for _, image := range list {
		ref := parseImage(t, image)
		if prev, ok := origin[ref.path]; ok && prev != ref.host {
			require.Failf(t, "two registries' repositories share a path", "%s and %s/%s: the mirror would mix them", prev, ref.host, ref.path)
		}
		origin[ref.path] = ref.host
		img, err := random.Image(256, 1)
		require.NoError(t, err)
		digest, err := img.Digest()
		require.NoError(t, err)
		target := host + "/" + ref.path + "@" + digest.String()
		if ref.tag != "" {
			target = host + "/" + ref.path + ":" + ref.tag
		}
		dst, err := name.ParseReference(target)
		require.NoError(t, err)
		require.NoError(t, remote.Write(dst, img), target)
		if ref.digest != "" {
			ref.digest = digest.String()
		}
		out = append(out, ref)
	}
	return out
}

// testMirrorSets is a golden mirror-sets.yaml moved onto the test's registries: each source's
// host replaced by src, and the mirror (REGISTRY[/PREFIX] followed by the source's path, as
// oc-mirror places it) on dst with the same prefix, which it returns (dst/PREFIX).
func testMirrorSets(t *testing.T, golden, src, dst string) (digest, tag []mirrorEntry, to string) {
	t.Helper()
	digest, tag = decodeMirrorSets(t, golden)
	prefixes := map[string]bool{}
	move := func(entries []mirrorEntry) []mirrorEntry {
		var out []mirrorEntry
		for _, e := range entries {
			_, path, ok := strings.Cut(e.Source, "/")
			require.True(t, ok, "source %s is a registry host and a path", e.Source)
			require.Len(t, e.Mirrors, 1, e.Source)
			prefix, ok := strings.CutSuffix(e.Mirrors[0], "/"+path)
			require.True(t, ok, "mirror %s of %s is REGISTRY[/PREFIX]/%s", e.Mirrors[0], e.Source, path)
			prefixes[prefix] = true
			_, under, _ := strings.Cut(prefix, "/")
			to = strings.TrimSuffix(dst+"/"+under, "/")
			out = append(out, mirrorEntry{Source: src + "/" + path, Mirrors: []string{to + "/" + path}})
		}
		return out
	}
	digest, tag = move(digest), move(tag)
	require.Len(t, prefixes, 1, "one mirror registry")
	return digest, tag, to
}

// byMirror maps each entry's source to its mirrors.
func byMirror(entries []mirrorEntry) map[string][]string {
	out := map[string][]string{}
	for _, e := range entries {
		out[e.Source] = e.Mirrors
	}
	return out
}

// exactEntry is the entry whose source is the repository itself: where a mirroring tool
// following the sets copies the image.
func exactEntry(t *testing.T, entries []mirrorEntry, repo string) mirrorEntry {
	t.Helper()
	for _, e := range entries {
		if e.Source == repo {
			return e
		}
	}
	require.Failf(t, "no entry", "no mirror set entry has source %s", repo)
	return mirrorEntry{}
}

// clusterLooksAt is where a cluster pulls ref from, as CRI-O applies the sets: the entries of
// the ImageDigestMirrorSet for a reference with a digest (its tag then plays no part), of the
// ImageTagMirrorSet for one by tag; of those whose source is the repository or one of its
// parent namespaces, the most specific; the mirrors in order, the source's part of the
// repository replaced by the mirror. The pull names the digest, or the tag.
func clusterLooksAt(ref imageRef, src string, digest, tag []mirrorEntry) []string {
	entries, suffix := tag, ":"+ref.tag
	if ref.digest != "" {
		entries, suffix = digest, "@"+ref.digest
	}
	repo := src + "/" + ref.path
	var best *mirrorEntry
	for i, e := range entries {
		if (repo == e.Source || strings.HasPrefix(repo, e.Source+"/")) && (best == nil || len(e.Source) > len(best.Source)) {
			best = &entries[i]
		}
	}
	if best == nil {
		return nil
	}
	var out []string
	for _, m := range best.Mirrors {
		out = append(out, m+strings.TrimPrefix(repo, best.Source)+suffix)
	}
	return out
}

// TestMirrorGoldenImagesBetweenRegistries mirrors each golden case that has mirror-sets.yaml
// for real: a source registry serves a small random image for every image of the case's
// list (the same repository paths and tags; images by digest referenced by the digest pushed),
// each image is copied to a second registry where the sets map its repository, and a pull
// resolved as a cluster resolves it through the ImageDigestMirrorSet and ImageTagMirrorSet
// finds every image there, with its digest.
func TestMirrorGoldenImagesBetweenRegistries(t *testing.T) {
	t.Parallel()
	n := 0
	for _, c := range goldenCases(t) {
		sets := c.expected(t, "mirror-sets.yaml")
		if sets == "" {
			continue
		}
		n++
		t.Run(filepath.Base(c.Dir), func(t *testing.T) {
			t.Parallel()
			src, dst := newRegistry(t), newRegistry(t)
			refs := pushImages(t, src, goldenImages(t, c))
			digestSets, tagSets, to := testMirrorSets(t, sets, src, dst)
			// the generated list gives the same sets, on the test's registries
			var plan mirror.Plan
			for _, ref := range refs {
				plan.Images = append(plan.Images, mirror.Image{Image: ref.on(src)})
			}
			generated, err := plan.MirrorSets(to)
			require.NoError(t, err)
			gotDigest, gotTag := decodeMirrorSets(t, string(generated))
			assert.Equal(t, byMirror(digestSets), byMirror(gotDigest))
			assert.Equal(t, byMirror(tagSets), byMirror(gotTag))
			for _, ref := range refs {
				entries, target := tagSets, ":"+ref.tag
				if ref.digest != "" {
					entries, target = digestSets, "@"+ref.digest
				}
				e := exactEntry(t, entries, src+"/"+ref.path)
				require.NoError(t, crane.Copy(ref.on(src), e.Mirrors[0]+target), ref.on(src))
			}
			for _, ref := range refs {
				want, err := crane.Digest(ref.on(src))
				require.NoError(t, err)
				looks := clusterLooksAt(ref, src, digestSets, tagSets)
				require.NotEmpty(t, looks, "no mirror set applies to %s", ref.on(src))
				got, err := crane.Digest(looks[0])
				require.NoError(t, err, "%s: the cluster looks at %s", ref.on(src), looks[0])
				assert.Equal(t, want, got, "%s at %s", ref.on(src), looks[0])
				assert.True(t, strings.HasPrefix(looks[0], dst+"/"), "%s is on the mirror", looks[0])
			}
		})
	}
	assert.GreaterOrEqual(t, n, 4, "golden cases with --to")
}
