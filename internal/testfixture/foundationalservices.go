package testfixture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// FoundationalServices names the CatalogSnapshot `odlm-render catalog extract --from catalog
// --name real-foundational-services-pulled --bundle-contents pull` writes for the catalog of
// IBM's foundational services cases (FoundationalServicesCatalog), every channel head's image
// served by an in-process registry and built from its real bundle folder (Heads). Case files
// name it "generated:real-foundational-services".
const FoundationalServices = "real-foundational-services"

// foundationalServicesVersion is the version of the generator, part of the file's key:
// bump it when the generator changes what it writes.
const foundationalServicesVersion = "1"

// FoundationalServicesCatalog is the catalog folder as the repository held it, relative to
// the repository root: IBM's two operators and the rhbk-operator stand-in as FBC, EDB's
// package as a CatalogSnapshot, one folder per package. Only the stand-in
// (FoundationalServicesOwnPackages) is still there; the other packages, third-party, are
// read from the reference folder's copy (refdata.TestdataCopy + "/testdata/" + the same
// path). AssembleFoundationalServicesCatalog puts them together again.
const FoundationalServicesCatalog = "testdata/render/real-foundational-services/catalog"

// FoundationalServicesReferencePackages are the package folders of FoundationalServicesCatalog
// read from the reference folder (EDB's and IBM's catalogs).
var FoundationalServicesReferencePackages = []string{"cloud-native-postgresql", "ibm-commonui-operator-app", "ibm-iam-operator"}

// FoundationalServicesOwnPackages are the package folders of FoundationalServicesCatalog the
// repository holds (the project's rhbk-operator stand-in).
var FoundationalServicesOwnPackages = []string{"rhbk-operator"}

// foundationalServicesReference is FoundationalServicesCatalog in the reference folder.
const foundationalServicesReference = refdata.TestdataCopy + "/testdata/render/real-foundational-services/catalog"

// BundlesDir is the folder of the real bundle folders, relative to the reference folder (the
// copy of testdata/bundles).
const BundlesDir = refdata.TestdataCopy + "/testdata/bundles"

// BundleHost is the registry the generated catalog names for the heads' images
// (BundleHost/<repository>@sha256:…); extract reads it from the in-process registry.
const BundleHost = "bundles.odlm-render.test"

// PulledName is the generated snapshot's metadata.name.
const PulledName = "real-foundational-services-pulled"

// Head is a channel head of FoundationalServicesCatalog and the real bundle its image is
// built from.
type Head struct {
	Bundle  string // the bundle's name in the catalog
	Image   string // the image the catalog names for it
	Dir     string // the bundle folder under BundlesDir (in the reference folder)
	Package string // the package its metadata/annotations.yaml names (the image's label)
}

// Heads are every channel head of FoundationalServicesCatalog: extract pulls them all, not
// only the ones the registry's channels choose. The rhbk-operator heads are community
// keycloak-operator bundles of the stand-in's versions (Red Hat's are not public).
var Heads = []Head{
	{"ibm-iam-operator.v4.18.1", "icr.io/cpopen/ibm-iam-operator-bundle:4.18.1", "ibm-iam-operator-4.18.1", "ibm-iam-operator"},
	{"ibm-commonui-operator.v4.15.1", "icr.io/cpopen/ibm-commonui-operator-bundle:4.15.1", "ibm-commonui-operator-4.15.1", "ibm-commonui-operator-app"},
	{"rhbk-operator.v22.0.0", "registry.redhat.io/rhbk/keycloak-operator-bundle:placeholder-22", "keycloak-operator-22.0.0", "keycloak-operator"},
	{"rhbk-operator.v24.0.0", "registry.redhat.io/rhbk/keycloak-operator-bundle:placeholder-24", "keycloak-operator-24.0.0", "keycloak-operator"},
	{"rhbk-operator.v26.0.0", "registry.redhat.io/rhbk/keycloak-operator-bundle:placeholder-26", "keycloak-operator-26.0.0", "keycloak-operator"},
	{"cloud-native-postgresql.v1.25.9", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:1d6d00d7e62a5ba008e55686f88fa98cad572903f901df6f6b37a1039e2c9198", "cloud-native-postgresql-1.25.9", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.26.3", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:14ef013d84432c0901b5eaa7128e186d7dc604b699eb9b1cb3d63ca9d44366af", "cloud-native-postgresql-1.26.3", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.27.4", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:014af868d538bef2e99297fe3d95353bfca398f90b49fe00966da76668ad80f0", "cloud-native-postgresql-1.27.4", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.28.4", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:ac1d61d6cf0b9619dd592fd4afc4c88081f9ff470d70ebbd768472b73e0b8fc8", "cloud-native-postgresql-1.28.4", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.29.0", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:d8255798b01788849d0fd3c93f48c23336ef0c7dbb91d6a1dc829c354e485720", "cloud-native-postgresql-1.29.0", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.29.2", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:da9e72d272878ab2ca23481057e9cf5d113ca90a28f447f0671b6c672e695f01", "cloud-native-postgresql-1.29.2", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.30.0", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:0f0e3b6cac58677a5648f9578d12e2227c70f87f168409efd24464a73ee515c2", "cloud-native-postgresql-1.30.0", "cloud-native-postgresql"},
	{"cloud-native-postgresql.v1.30.0-rc1", "registry.connect.redhat.com/enterprisedb/cloud-native-postgresql@sha256:3261a56154b4570b0e08062c647d4758914dcb3ceba0e0ea3d3664350c3be5c8", "cloud-native-postgresql-1.30.0-rc1", "cloud-native-postgresql"},
}

// foundationalServicesKey hashes the generated snapshot's inputs: the generator's version,
// the catalog's files (the reference folder's and the repository's), the heads' bundle
// folders and the module's Go sources. The reference folder's files are hashed under their
// "reference:PATH" names, so that the key is the same wherever the folder is.
func foundationalServicesKey(root string) (string, error) {
	in := newInputs(root, foundationalServicesVersion)
	for _, h := range Heads {
		fmt.Fprintf(in.h, "head %s %s %s %s\n", h.Bundle, h.Image, h.Dir, h.Package)
	}
	for _, pkg := range FoundationalServicesReferencePackages {
		if err := in.addReference(foundationalServicesReference + "/" + pkg); err != nil {
			return "", err
		}
	}
	for _, pkg := range FoundationalServicesOwnPackages {
		if err := in.addTree(filepath.Join(FoundationalServicesCatalog, pkg), nil); err != nil {
			return "", err
		}
	}
	for _, h := range Heads {
		if err := in.addReference(BundlesDir + "/" + h.Dir); err != nil {
			return "", err
		}
	}
	if err := in.addGoSources(); err != nil {
		return "", err
	}
	return in.key(), nil
}

// AssembleFoundationalServicesCatalog writes FoundationalServicesCatalog as the repository
// held it into the folder dst (dst/<package>/…), given the repository root: the reference
// folder's packages and the repository's. The error wraps refdata.ErrMissing when there is
// no reference folder.
func AssembleFoundationalServicesCatalog(root, dst string) error {
	var parts []string
	for _, pkg := range FoundationalServicesReferencePackages {
		p, err := refdata.Lookup(foundationalServicesReference + "/" + pkg)
		if err != nil {
			return fmt.Errorf("catalog %s: %w", FoundationalServicesCatalog, err)
		}
		parts = append(parts, p)
	}
	for _, pkg := range FoundationalServicesOwnPackages {
		parts = append(parts, filepath.Join(root, FoundationalServicesCatalog, pkg))
	}
	for _, p := range parts {
		if err := CopyCatalogWithImages(p, filepath.Join(dst, filepath.Base(p)), nil); err != nil {
			return err
		}
	}
	return nil
}

// GenerateFoundationalServices writes the FoundationalServices snapshot, given the
// repository root: it serves the heads' images from an in-process registry, assembles the
// catalog (AssembleFoundationalServicesCatalog) and copies it with each head's image renamed
// under BundleHost into a temporary folder "catalog", and extracts it as `catalog extract
// --bundle-contents pull` does (ExtractPulled). Nothing leaves the process.
func GenerateFoundationalServices(ctx context.Context, root string) ([]byte, error) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	images, err := PushHeads(host)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "odlm-render-testfixture-*")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	plain := filepath.Join(tmp, "assembled")
	if err := AssembleFoundationalServicesCatalog(root, plain); err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "catalog")
	if err := CopyCatalogWithImages(plain, dir, images); err != nil {
		return nil, err
	}
	return ExtractPulled(ctx, dir, PulledName, []image.Rewrite{{From: BundleHost, To: host}})
}

// BundleDir is the absolute path of h's bundle folder in the reference folder; the error
// wraps refdata.ErrMissing when there is no reference folder.
func BundleDir(h Head) (string, error) {
	return refdata.Lookup(BundlesDir + "/" + h.Dir)
}

// PushHeads builds each head's bundle image from its folder (BundleDir), pushes it by digest
// to the registry at host, and returns the catalog's image of each head mapped to the image
// name under BundleHost that a rewrite BundleHost=host sends to it.
func PushHeads(host string) (map[string]string, error) {
	images := map[string]string{}
	for _, h := range Heads {
		dir, err := BundleDir(h)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", h.Bundle, err)
		}
		img, err := BundleImage(dir, h.Package)
		if err != nil {
			return nil, err
		}
		digest, err := img.Digest()
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", h.Bundle, err)
		}
		ref, err := name.ParseReference(h.Image)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: image %s: %w", h.Bundle, h.Image, err)
		}
		repo := ref.Context().RepositoryStr()
		target, err := name.ParseReference(host + "/" + repo + "@" + digest.String())
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", h.Bundle, err)
		}
		if err := remote.Write(target, img); err != nil {
			return nil, fmt.Errorf("bundle %s: pushing %s: %w", h.Bundle, target, err)
		}
		images[h.Image] = BundleHost + "/" + repo + "@" + digest.String()
	}
	return images, nil
}

// CopyCatalogWithImages copies the catalog folder src to dst, each image named in images
// (the value of an "image:" line) replaced by its value. Every image must occur exactly once;
// nil images copies the folder as it is.
func CopyCatalogWithImages(src, dst string, images map[string]string) error {
	seen := map[string]int{}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := string(data)
		for from, to := range images {
			seen[from] += strings.Count(text, "image: "+from+"\n")
			text = strings.ReplaceAll(text, "image: "+from+"\n", "image: "+to+"\n")
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(text), 0o644)
	})
	if err != nil {
		return err
	}
	for _, from := range slices.Sorted(maps.Keys(images)) {
		if seen[from] != 1 {
			return fmt.Errorf("catalog %s: image %s occurs %d times, not once", src, from, seen[from])
		}
	}
	return nil
}

// ExtractPulled is what `odlm-render catalog extract --from DIR --name NAME --bundle-contents
// pull --cache-dir ""` with a --bundle-image-source per rewrite writes for one FBC folder
// dir: the whole catalog with its related images, every channel head that lacks contents
// given the contents of its bundle image, the snapshot's source.ref the folder's name.
func ExtractPulled(ctx context.Context, dir, snapshotName string, rewrites []image.Rewrite) ([]byte, error) {
	b := fbc.NewBuilder(catalog.LoadOptions{RelatedImages: true})
	info, err := image.Load(ctx, dir, b, image.Options{})
	if err != nil {
		return nil, err
	}
	cat, err := b.Catalog()
	if err != nil {
		return nil, err
	}
	puller := &image.BundlePuller{Rewrites: rewrites}
	for _, bundle := range fbc.HeadsWithoutContents(cat) {
		c, _, err := puller.Pull(ctx, bundle.Image)
		if err != nil {
			return nil, fmt.Errorf("bundle %s (package %s): %w", bundle.Name, bundle.Package, err)
		}
		bundle.Contents = c
	}
	source := info.SnapshotSource()
	source.Ref = filepath.Base(dir)
	var out bytes.Buffer
	if err := fbc.WriteSnapshot(cat, &out, fbc.SnapshotMeta{Name: snapshotName, Source: source}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
