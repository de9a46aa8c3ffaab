package inputs

import (
	"fmt"
	"io"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// Request is what a front door hands the loader. The CLI, the KRM function and the golden
// harness each fill it from their own settings; Load does the rest the same way for all.
type Request struct {
	// Given are documents the front door sorted itself (a ResourceList's items, which the
	// function keeps or drops item by item); they come before the documents read from Paths.
	Given Set
	// Paths are files and folders to read and classify; "-" reads Stdin.
	Paths []string
	Stdin io.Reader
	// Catalogs are catalog files and folders, read with the catalog data among the documents;
	// "NAME=PATH" is the content of one CatalogSource (SplitNamedPath: NAME is
	// "namespace/name", or "name" in GlobalCatalogNamespace).
	Catalogs []string
	// GlobalCatalogNamespace is where a CatalogSource NAME without a namespace lives (OLM's
	// global catalog namespace: render.Options.GlobalCatalogNamespace).
	GlobalCatalogNamespace string
	// CatalogOptions tune the catalog's load (the mirror command keeps relatedImages).
	CatalogOptions catalog.LoadOptions
	// Snapshots are files and folders of objects exported from a cluster.
	Snapshots []string
	// Live, when not nil, opens a live cluster, read after the snapshots. It is the CLI's
	// alone (a function stays hermetic), and its error is returned as it is.
	Live func() (cluster.Reader, error)
	// Names prefix the errors of Paths and Snapshots with what the front door calls them.
	Names Names
	// Within, when set, confines every file read (of Paths, Catalogs and Snapshots, links
	// followed) to these folders: what the caller of a shared front door may read.
	Within []string
}

// Names are what a front door calls the paths of a Request in its messages ("--snapshot",
// "snapshots"); an empty name adds no prefix.
type Names struct {
	Paths, Snapshots string
}

// Load reads and classifies the request's paths, builds one catalog from its catalogs and
// the catalog data among the documents, and chains its snapshots and live cluster: what
// render.Render reads, in the look-up order the engine expects (snapshots, then live).
func Load(req Request) (render.Inputs, cluster.Chain, error) {
	set, err := req.documents()
	if err != nil {
		return render.Inputs{}, nil, named(req.Names.Paths, err)
	}
	opts := req.CatalogOptions
	opts.Within = req.Within
	cats, err := LoadCatalogSet(opts, req.GlobalCatalogNamespace, req.Catalogs, set.CatalogBlobs)
	if err != nil {
		return render.Inputs{}, nil, err
	}
	sources, err := req.sources()
	if err != nil {
		return render.Inputs{}, nil, err
	}
	return render.Inputs{Objects: set.Resources, Catalog: cats.Plain, SourceCatalogs: cats.Named}, sources, nil
}

// LoadCatalogSet loads the catalogs of a request: the plain paths and the blobs into one
// catalog (LoadCatalogWith), and each CatalogSource's "NAME=PATH"s into one catalog of its
// own (the same NAME given twice, spelt with or without the global namespace, is one
// catalog of both paths).
func LoadCatalogSet(opts catalog.LoadOptions, globalNamespace string, values []string, blobs []*manifest.Object) (catalog.Set, error) {
	var plain []string
	named := map[string][]string{}
	var order []string
	for _, v := range values {
		key, path, err := SplitNamedPath(v, globalNamespace)
		if err != nil {
			return catalog.Set{}, fmt.Errorf("--catalog %w", err)
		}
		if key == "" {
			plain = append(plain, path)
			continue
		}
		if _, seen := named[key]; !seen {
			order = append(order, key)
		}
		named[key] = append(named[key], path)
	}
	var set catalog.Set
	var err error
	if set.Plain, err = LoadCatalogWith(opts, plain, blobs); err != nil {
		return catalog.Set{}, err
	}
	for _, key := range order {
		c, err := LoadCatalogWith(opts, named[key], nil)
		if err != nil {
			return catalog.Set{}, fmt.Errorf("catalog of CatalogSource %s: %w", key, err)
		}
		if set.Named == nil {
			set.Named = map[string]*catalog.Catalog{}
		}
		set.Named[key] = c
	}
	return set, nil
}

// documents are the given documents, then those read from the paths.
func (req Request) documents() (Set, error) {
	set := req.Given
	if len(req.Paths) == 0 {
		return set, nil
	}
	docs, err := ReadPathsWithin(req.Paths, req.Stdin, req.Within)
	if err != nil {
		return Set{}, err
	}
	read, err := Classify(docs)
	if err != nil {
		return Set{}, err
	}
	set.Resources = append(set.Resources[:len(set.Resources):len(set.Resources)], read.Resources...)
	set.CatalogBlobs = append(set.CatalogBlobs[:len(set.CatalogBlobs):len(set.CatalogBlobs)], read.CatalogBlobs...)
	set.Local = append(set.Local[:len(set.Local):len(set.Local)], read.Local...)
	return set, nil
}

// sources are the snapshots (one source), then the live cluster.
func (req Request) sources() (cluster.Chain, error) {
	var chain cluster.Chain
	if len(req.Snapshots) > 0 {
		snap, err := LoadSnapshotWithin(req.Within, req.Snapshots...)
		if err != nil {
			return nil, named(req.Names.Snapshots, err)
		}
		chain = append(chain, cluster.Source{Origin: cluster.OriginSnapshot, Reader: snap})
	}
	if req.Live != nil {
		reader, err := req.Live()
		if err != nil {
			return nil, err
		}
		chain = append(chain, cluster.Source{Origin: cluster.OriginLive, Reader: reader})
	}
	return chain, nil
}

// named prefixes err with name, when there is one.
func named(name string, err error) error {
	if name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
