package image

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// A registry may be run by an attacker, who may answer a tag with one digest and serve
// another image, or serve any bytes for a digest. So an image is read by digest only: a tag
// is resolved to a digest once, the manifest is fetched by that digest and its bytes are
// hashed here (not only by the client: go-containerregistry takes a schema 1 manifest's
// digest from the registry's header), and the image read is the one the digest names, so
// that what is cached under a digest is that digest's image.

// resolve gives the digest a reference names: its own, or the registry's answer for a tag.
func resolve(r name.Reference, ropts []remote.Option) (name.Digest, error) {
	if d, ok := r.(name.Digest); ok {
		return d, nil
	}
	desc, herr := remote.Head(r, ropts...)
	if herr == nil {
		return r.Context().Digest(desc.Digest.String()), nil
	}
	// a HEAD answer has no body to say what went wrong, and a few registries refuse HEAD:
	// ask again with GET, and take the digest of the bytes it serves
	got, err := remote.Get(r, ropts...)
	if err != nil {
		return name.Digest{}, err
	}
	return r.Context().Digest("sha256:" + sha256Hex(got.Manifest)), nil
}

// fetch reads the image a digest names, checked as above. A digest of an index gives the
// image of the platform, which the index (checked) must list.
func fetch(d name.Digest, ropts []remote.Option) (v1.Image, error) {
	desc, err := remote.Get(d, ropts...)
	if err != nil {
		return nil, err
	}
	if got := "sha256:" + sha256Hex(desc.Manifest); got != d.DigestStr() {
		return nil, fmt.Errorf("the registry served a manifest that does not match the digest %s asked for (its bytes hash to %s)", d.DigestStr(), got)
	}
	img, err := desc.Image()
	if err != nil || !desc.MediaType.IsIndex() {
		return img, err
	}
	idx, err := v1.ParseIndexManifest(bytes.NewReader(desc.Manifest))
	if err != nil {
		return nil, err
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, err
	}
	got := "sha256:" + sha256Hex(raw)
	for _, m := range idx.Manifests {
		if m.Digest.String() == got {
			return img, nil
		}
	}
	return nil, fmt.Errorf("the registry served an image manifest (%s) that the index %s does not list", got, d.DigestStr())
}

// remoteImage resolves and fetches a registry image; the digest is the one the reference
// names (an index's, for a multi-platform image).
func (opts Options) remoteImage(ctx context.Context, ref string) (v1.Image, name.Digest, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return nil, name.Digest{}, err
	}
	ropts := opts.remoteOptions(ctx)
	d, err := resolve(r, ropts)
	if err != nil {
		return nil, name.Digest{}, err
	}
	img, err := fetch(d, ropts)
	return img, d, err
}

// checkManifest bounds what an image's manifest promises before anything else is read: its
// layers, and the size of its config (which is read into memory; over HTTP a registry may
// gzip it, so its bytes on the wire say nothing).
func checkManifest(img v1.Image, lim Limits) error {
	m, err := img.Manifest()
	if err != nil {
		return err
	}
	if len(m.Layers) > lim.MaxLayers {
		return fmt.Errorf("%d layers: %w", len(m.Layers), &LimitError{What: "layers", Limit: int64(lim.MaxLayers), Field: "MaxLayers"})
	}
	if m.Config.Size > maxConfigBytes {
		return fmt.Errorf("the image config (%s): %w", m.Config.Digest, &LimitError{What: "in the image config", Limit: maxConfigBytes, Bytes: true})
	}
	return nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
