// Command odlmrenderoracle answers, with operator-controller v1.11.0's own code, which bundle
// a ClusterExtension installs: each catalog folder is stored and served by catalogd's storage
// handler (LocalDirV1), read through operator-controller's catalog client and cache, and
// resolved by its CatalogResolver with the validations operator-controller's main wires.
//
// Input (stdin, JSON): {"catalogs": [{"name", "priority", "unavailable", "dir"}], "requests":
// [{"package", "channels", "version", "selfCertified", "installed": {"name", "version"} or
// null}]}. Output (stdout, JSON): one answer per request, [{"bundle", "version"} or {"error"}].
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"

	ocv1 "github.com/operator-framework/operator-controller/api/v1"
	"github.com/operator-framework/operator-controller/internal/catalogd/storage"
	"github.com/operator-framework/operator-controller/internal/operator-controller/catalogmetadata/cache"
	catalogclient "github.com/operator-framework/operator-controller/internal/operator-controller/catalogmetadata/client"
	"github.com/operator-framework/operator-controller/internal/operator-controller/resolve"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type input struct {
	Catalogs []struct {
		Name        string `json:"name"`
		Priority    int32  `json:"priority"`
		Unavailable bool   `json:"unavailable"`
		Dir         string `json:"dir"`
	} `json:"catalogs"`
	Requests []request `json:"requests"`
}

type request struct {
	Package       string   `json:"package"`
	Channels      []string `json:"channels"`
	Version       string   `json:"version"`
	SelfCertified bool     `json:"selfCertified"`
	Installed     *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"installed"`
}

type output struct {
	Bundle  string `json:"bundle,omitempty"`
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail(err)
	}
	out, err := run(context.Background(), in)
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "odlmrenderoracle:", err)
	os.Exit(2)
}

func run(ctx context.Context, in input) ([]output, error) {
	root, err := os.MkdirTemp("", "odlmrenderoracle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	var store *storage.LocalDirV1
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		store.StorageServerHandler().ServeHTTP(w, r)
	}))
	defer server.Close()
	rootURL, err := url.Parse(server.URL + "/catalogs/")
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{root + "/store", root + "/cache"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	store = storage.NewLocalDirV1(root+"/store", rootURL, storage.MetasHandlerDisabled, storage.GraphQLQueriesDisabled)
	cl := catalogclient.New(cache.NewFilesystemCache(root+"/cache"), func() (*http.Client, error) { return server.Client(), nil })
	var catalogs []ocv1.ClusterCatalog
	for _, c := range in.Catalogs {
		if err := store.Store(ctx, c.Name, os.DirFS(c.Dir)); err != nil {
			return nil, fmt.Errorf("catalog %s: %w", c.Name, err)
		}
		cat := ocv1.ClusterCatalog{ObjectMeta: metav1.ObjectMeta{Name: c.Name}, Spec: ocv1.ClusterCatalogSpec{Priority: c.Priority, AvailabilityMode: ocv1.AvailabilityModeAvailable}}
		if c.Unavailable {
			cat.Spec.AvailabilityMode = ocv1.AvailabilityModeUnavailable
		}
		cat.Status.URLs = &ocv1.ClusterCatalogURLs{Base: store.BaseURL(c.Name)}
		cat.Status.ResolvedSource = &ocv1.ResolvedCatalogSource{Type: ocv1.SourceTypeImage, Image: &ocv1.ResolvedImageSource{Ref: "example.com/" + c.Name + "@sha256:0000000000000000000000000000000000000000000000000000000000000000"}}
		meta.SetStatusCondition(&cat.Status.Conditions, metav1.Condition{Type: ocv1.TypeServing, Status: metav1.ConditionTrue, Reason: ocv1.ReasonAvailable})
		if _, err := cl.PopulateCache(ctx, &cat); err != nil {
			return nil, fmt.Errorf("catalog %s: %w", c.Name, err)
		}
		catalogs = append(catalogs, cat)
	}
	resolver := &resolve.CatalogResolver{
		WalkCatalogsFunc: resolve.CatalogWalker(
			// a new list each time, as the API server's (the walker deletes from it in place)
			func(context.Context, ...client.ListOption) ([]ocv1.ClusterCatalog, error) {
				return slices.Clone(catalogs), nil
			},
			cl.GetPackage,
		),
		Validations: []resolve.ValidationFunc{resolve.NoDependencyValidation},
	}
	var outs []output
	for _, r := range in.Requests {
		outs = append(outs, resolveOne(ctx, resolver, r))
	}
	return outs, nil
}

// resolveOne asks the resolver for one ClusterExtension.
func resolveOne(ctx context.Context, resolver *resolve.CatalogResolver, in request) output {
	ext := &ocv1.ClusterExtension{Spec: ocv1.ClusterExtensionSpec{Source: ocv1.SourceConfig{SourceType: ocv1.SourceTypeCatalog, Catalog: &ocv1.CatalogFilter{
		PackageName: in.Package, Channels: in.Channels, Version: in.Version,
	}}}}
	if in.SelfCertified {
		ext.Spec.Source.Catalog.UpgradeConstraintPolicy = ocv1.UpgradeConstraintPolicySelfCertified
	}
	var installed *ocv1.BundleMetadata
	if in.Installed != nil {
		installed = &ocv1.BundleMetadata{Name: in.Installed.Name, Version: in.Installed.Version}
	}
	bundle, version, _, err := resolver.Resolve(ctx, ext, installed)
	if err != nil {
		return output{Error: err.Error()}
	}
	return output{Bundle: bundle.Name, Version: version.Version.String()}
}
