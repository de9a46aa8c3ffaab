package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/suggest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// newCatalogCmd is `odlm-render catalog`: commands about OLM catalogs.
func newCatalogCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newCatalogCmdWith(stdin, stdout, stderr, defaultProgress)
}

// newCatalogCmdWith is newCatalogCmd printing extract's progress lines at the given times.
func newCatalogCmdWith(stdin io.Reader, stdout, stderr io.Writer, progress progressTiming) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Work with OLM catalogs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError{errors.New("catalog needs a command: extract")}
		},
	}
	cmd.AddCommand(newCatalogExtractCmd(stdin, stdout, stderr, progress))
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

type extractFlags struct {
	froms      []string
	registries []string
	packages   []string
	output     string
	name       string
	timeout    time.Duration
	// bundle contents: keep what the catalog carries, pull the rest, or drop them all
	contents     string
	imageSources []string
	cacheDir     string
	progress     progressTiming
}

// Values of --bundle-contents.
const (
	contentsKeep = "keep"
	contentsPull = "pull"
	contentsDrop = "drop"
)

// pullWorkers is how many bundle images are read at once.
const pullWorkers = 4

// progressTiming is when extract starts printing progress lines (after), and how often it
// prints them then (every).
type progressTiming struct{ after, every time.Duration }

var defaultProgress = progressTiming{after: time.Second, every: 5 * time.Second}

// extractLong is extract's help.
const extractLong = `Extract reads an OLM catalog and writes the packages a render needs as one YAML document of
kind CatalogSnapshot (apiVersion odlm-render.io/v1alpha1): every channel with its entries and
head, every bundle with its version, image, skipRange, install modes, provided and required
APIs, alm-examples (parsed), annotations and related images (as the catalog lists them, for
mirroring), and the deprecations; no icons, no descriptions.
The output depends only on the catalog's content: the same catalog in any file order gives
the same bytes. "render --catalog" reads it like a file-based catalog.

SOURCE is one of:
  a file-based catalog folder or file (or a CatalogSnapshot)
  an OCI image layout folder (or oci:DIR)
  a docker-archive tarball, as "docker save" writes it, gzipped or not (or docker-archive:FILE)
  an image reference in a registry (or docker://REF): credentials come from the docker config
    and its credential helpers, anonymous otherwise
An image's catalog is the folder named by its label
operators.operatorframework.io.index.configs.v1 (default /configs).

The packages kept are the packageNames of the entries of every OperandRegistry in the
--registry files and folders (entries with installMode no-op install nothing and are
skipped), plus every --package; with neither, all packages.

--from may be given several times. Each catalog is named by NAME= or after its folder, file or
image; a registry entry's package is looked for in the catalogs named like its sourceName when
there are any, else in all of them, and is kept from the first that has it. Each catalog that
keeps a package writes its own CatalogSnapshot document. A registry package that is in none
of the catalogs it is looked for in is a warning saying where it was looked for, and is left
out; a --package that is in none is an error, and so is finding none of the packages.

Bundle contents (the CRDs and the CSV's install strategy, against which render checks the
custom resources it emits): catalogs rendered the older way carry them (olm.bundle.object
properties), and the snapshot keeps them (--bundle-contents keep, the default). Newer catalogs
carry only olm.csv.metadata: --bundle-contents pull reads the bundle images (their "image"
field) of the kept packages' channel heads, the bundles OLM installs, from their registries
like catalog images (docker config credentials), cached by digest in --cache-dir.
--bundle-image-source FROM=TO reads them from a mirror (FROM a registry or repository prefix,
TO its replacement) or from a local image (FROM one image reference, TO an OCI layout folder
or a docker-archive tarball). --bundle-contents drop writes none.

Exit status: 0 success, 1 when any error was found (nothing is written then), 2 for wrong usage.`

func newCatalogExtractCmd(stdin io.Reader, stdout, stderr io.Writer, progress progressTiming) *cobra.Command {
	f := extractFlags{progress: progress}
	cmd := &cobra.Command{
		Use:   "extract --from [NAME=]SOURCE... [--registry FILE|DIR]... [--package P]... [-o FILE]",
		Short: "Write the catalog data a render needs as a compact CatalogSnapshot",
		Long:  extractLong,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("extract takes no arguments (got %q): the source is --from", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExtract(cmd.Context(), f, stdin, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.froms, "from", nil, "a catalog: an FBC folder or file, an OCI image layout folder, a docker-archive tarball or an image reference; NAME=SOURCE gives the CatalogSource name registry entries use as sourceName (default: the folder's, file's or image's name); repeatable")
	fl.StringArrayVar(&f.registries, "registry", nil, `files or folders holding OperandRegistries whose packages to keep ("-" is stdin); repeatable`)
	fl.StringArrayVar(&f.packages, "package", nil, "a package to keep; repeatable")
	fl.StringVarP(&f.output, "output", "o", "-", `where to write the snapshot ("-" is stdout)`)
	fl.StringVar(&f.name, "name", "", "metadata.name of the snapshot (default: from the source's name)")
	fl.DurationVar(&f.timeout, "timeout", image.DefaultTimeout, "give up reading an image (from a registry, an OCI layout or a docker-archive) after this long")
	fl.StringVar(&f.contents, "bundle-contents", contentsKeep, "bundle CRDs and install strategies: keep (what the catalog carries), pull (read the bundle images of the kept bundles that lack them) or drop")
	fl.StringArrayVar(&f.imageSources, "bundle-image-source", nil, "FROM=TO: read bundle images under FROM (a registry, repository or image reference) from TO (a mirror prefix, or for one image an OCI layout folder or docker-archive tarball); repeatable")
	fl.StringVar(&f.cacheDir, "cache-dir", defaultCacheDir(), `where pulled bundle contents are cached by image digest ("" for no cache)`)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

func runExtract(ctx context.Context, f extractFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rewrites, err := checkExtractFlags(f)
	if err != nil {
		return err
	}
	sources, err := parseSources(f.froms)
	if err != nil {
		return err
	}
	if len(sources) > 1 && f.name != "" {
		return usageError{errors.New("--name names the snapshot of one --from; with several, each snapshot is named after its catalog (NAME=SOURCE)")}
	}
	wanted, err := wantedPackages(f, stdin)
	if err != nil {
		return err
	}
	fbc.TuneGCForExtract()
	warn := func(msg string) { fmt.Fprintf(stderr, "odlm-render: warning: %s\n", msg) }
	cats := make([]*catalog.Catalog, len(sources))
	infos := make([]image.Info, len(sources))
	for i, src := range sources {
		var pkgs []string
		if wanted != nil {
			if pkgs = wanted.packagesFor(i, sources); len(pkgs) == 0 {
				continue // no package is looked for there
			}
		}
		if cats[i], infos[i], err = loadSource(ctx, f, src.source, pkgs, stderr, warn); err != nil {
			return err
		}
	}
	kept, err := assignPackages(wanted, sources, cats, warn)
	if err != nil {
		return err
	}
	docs, err := snapshotDocs(ctx, f, sources, infos, kept, rewrites, stderr, warn)
	if err != nil {
		return err
	}
	if f.output == "-" || f.output == "" {
		return docs(stdout)
	}
	return writeFileAtomic(f.output, docs)
}

// snapshotDocs completes the bundle contents of each catalog and returns the writer of
// their snapshots: one per catalog that keeps a package ("---" between them), or the one
// catalog's even when empty.
func snapshotDocs(ctx context.Context, f extractFlags, sources []extractSource, infos []image.Info, kept []*catalog.Catalog, rewrites []image.Rewrite, stderr io.Writer, warn func(string)) (func(io.Writer) error, error) {
	var docs []func(io.Writer) error
	for i, cat := range kept {
		if cat == nil || (len(sources) > 1 && len(cat.PackageNames()) == 0) {
			continue
		}
		catWarn := warn
		if len(sources) > 1 {
			name := sources[i].name
			catWarn = func(msg string) { warn(name + ": " + msg) }
		}
		if err := bundleContents(ctx, f, cat, rewrites, stderr, catWarn); err != nil {
			return nil, err
		}
		meta := fbc.SnapshotMeta{Name: f.name, Source: infos[i].SnapshotSource()}
		if meta.Name == "" {
			meta.Name = sources[i].name
		}
		docs = append(docs, func(w io.Writer) error { return fbc.WriteSnapshot(cat, w, meta) })
	}
	return func(w io.Writer) error {
		for i, doc := range docs {
			if i > 0 {
				if _, err := io.WriteString(w, "---\n"); err != nil {
					return err
				}
			}
			if err := doc(w); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// checkExtractFlags checks --from, --bundle-contents and --bundle-image-source.
func checkExtractFlags(f extractFlags) ([]image.Rewrite, error) {
	if len(f.froms) == 0 {
		return nil, usageError{errors.New("extract needs --from SOURCE")}
	}
	switch f.contents {
	case contentsKeep, contentsPull, contentsDrop:
	default:
		return nil, usageError{fmt.Errorf("--bundle-contents %q: must be keep, pull or drop%s", f.contents, suggest.DidYouMean(f.contents, []string{contentsKeep, contentsPull, contentsDrop}))}
	}
	var rewrites []image.Rewrite
	for _, s := range f.imageSources {
		r, err := image.ParseRewrite(s)
		if err != nil {
			return nil, usageError{fmt.Errorf("--bundle-image-source %w", err)}
		}
		rewrites = append(rewrites, r)
	}
	if len(rewrites) > 0 && f.contents != contentsPull {
		return nil, usageError{errors.New("--bundle-image-source needs --bundle-contents pull")}
	}
	return rewrites, nil
}

// loadSource reads one catalog, keeping the named packages (nil: all) and their bundles'
// related images (the snapshot carries them), with a progress line when it takes long.
func loadSource(ctx context.Context, f extractFlags, source string, packages []string, stderr io.Writer, warn func(string)) (*catalog.Catalog, image.Info, error) {
	b := fbc.NewBuilder(catalog.LoadOptions{Packages: packages, RelatedImages: true})
	var layerBytes atomic.Int64
	stop := startProgress(stderr, source, f.progress, func() string {
		st := b.Stats()
		read := st.BytesRead
		if n := layerBytes.Load(); n > read {
			read = n
		}
		return fmt.Sprintf("%s read, %d packages, %d bundles kept", megabytes(read), st.Packages, st.Bundles)
	})
	info, err := image.Load(ctx, source, b, image.Options{
		Timeout: f.timeout,
		OnRead:  func(n int64) { layerBytes.Add(n) },
		Warn:    warn,
	})
	var cat *catalog.Catalog
	if err == nil {
		cat, err = b.Catalog()
	}
	stop(err == nil)
	if err != nil {
		return nil, info, err
	}
	if ignored := fbc.IgnoredBlobs(cat); len(ignored) > 0 {
		var list []string
		for _, schema := range slices.Sorted(maps.Keys(ignored)) {
			list = append(list, fmt.Sprintf("%s (%d)", schema, ignored[schema]))
		}
		warn("blobs of schemas odlm-render does not read were ignored: " + strings.Join(list, ", "))
	}
	return cat, info, nil
}

// startProgress prints a progress line on w once the work has taken more
// than timing.after, then every timing.every; stop ends it (with a last
// line if any was printed).
func startProgress(w io.Writer, source string, timing progressTiming, status func() string) (stop func(ok bool)) {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var printed atomic.Bool
	line := func(suffix string) {
		fmt.Fprintf(w, "odlm-render: extracting %s: %s (%s)%s\n", source, status(), time.Since(start).Round(100*time.Millisecond), suffix)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(timing.after)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				printed.Store(true)
				line("…")
				t.Reset(timing.every)
			}
		}
	}()
	return func(ok bool) {
		close(done)
		wg.Wait()
		if printed.Load() && ok {
			line(", done")
		}
	}
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

var nameRe = regexp.MustCompile(`[^a-z0-9.-]+`)

// snapshotName makes a metadata.name from the source: the last path
// element, or the repository and tag of an image reference.
func snapshotName(source string, kind image.Kind) string {
	s := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(source, "docker://"), "oci:"), "docker-archive:")
	if kind == image.KindRegistry {
		s = s[strings.LastIndex(s, "/")+1:]
		if i := strings.Index(s, "@"); i >= 0 {
			s = s[:i]
		}
		s = strings.ReplaceAll(s, ":", "-")
	} else {
		s = filepath.Base(filepath.Clean(s))
		for _, ext := range []string{".gz", ".tgz", ".tar", ".yaml", ".yml", ".json"} {
			s = strings.TrimSuffix(s, ext)
		}
	}
	s = strings.Trim(nameRe.ReplaceAllString(strings.ToLower(s), "-"), "-.")
	if len(s) > 63 {
		s = strings.Trim(s[:63], "-.")
	}
	if s == "" {
		return "catalog"
	}
	return s
}

// writeFileAtomic writes a file through a temporary file in the same folder, so that a
// failed write leaves the old file. Only a new path or a regular file (through its links) is
// replaced that way: a device, FIFO or anything else that is not a regular file (-o
// /dev/null, even as root) is written in place, and a folder is refused.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	target, mode := path, os.FileMode(0o644)
	switch fi, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a folder: give a file name", path)
	case !fi.Mode().IsRegular():
		return writeInPlace(path, write)
	default:
		// a link to a regular file: replace the file it points to and keep the link
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// writeInPlace writes to what is not a regular file (a device, a FIFO) as a shell redirection
// would.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
