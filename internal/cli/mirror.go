package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/mirror"
	"github.com/odlm-render/odlm-render/internal/output"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// mirrorFlags are the render's flags (the same Subscriptions are decided) and where the
// mirror's files go.
type mirrorFlags struct {
	renderFlags
	dir, to, format string
}

func newMirrorCmd(stdin io.Reader, stdout, stderr io.Writer, eng engine) *cobra.Command {
	var f mirrorFlags
	cmd := &cobra.Command{
		Use:   "mirror [flags] PATH... -o DIR",
		Short: "List exactly the images the render installs, for a disconnected cluster",
		Long: `Mirror renders PATH... as render does (the same flags decide the same Subscriptions:
channels, fallback channels, --pin, nested OperandRequests, --olm) and writes into DIR what a
disconnected cluster needs copied, and nothing more:

  images.txt             each catalog image the Subscriptions use, each installed bundle's
                         image and its relatedImages; sorted, each once (--format json:
                         images.json, with the installs that need each image)
  imageset-config.yaml   an oc-mirror v2 ImageSetConfiguration: each catalog with each
                         installed package at exactly its channel and installed version
  mirror-sets.yaml       with --to REGISTRY[/PREFIX]: an ImageDigestMirrorSet and an
                         ImageTagMirrorSet mapping every listed repository to the mirror

A summary on stderr gives, per operator, its bundle and image count, and what mirroring its
whole channel would copy. The catalogs must keep relatedImages: an FBC does; a snapshot
does when catalog extract wrote them.

Exit status: 0 success, 1 when any error was found (nothing is written then), 2 for wrong
usage.`,
		Args: needPaths("mirror"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return runMirror(f, args, stdin, output.Stream{Stdout: stdout, Stderr: stderr, Verbose: f.verbose}, eng)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.dir, "output", "o", "", "the folder to write the mirror's files into (created if missing)")
	fs.StringVar(&f.to, "to", "", "the mirror registry, REGISTRY[/PREFIX]: also write mirror-sets.yaml")
	fs.StringVar(&f.format, "format", "text", "the image list: text (images.txt) or json (images.json, with what needs each image)")
	f.output = "yaml"
	f.bindInputFlags(cmd, inputHelp{
		catalog:  "an OLM file-based catalog or a CatalogSnapshot (repeatable), as for render",
		snapshot: "objects exported from a cluster, as for render (repeatable)",
		live:     "also read the cluster of the kubeconfig, read-only, as for render",
	})
	return cmd
}

func (f mirrorFlags) check() error {
	if f.dir == "" {
		return usageError{errors.New("mirror needs -o DIR, the folder to write into")}
	}
	if f.format != "text" && f.format != "json" {
		return usageError{fmt.Errorf("--format %q: text or json", f.format)}
	}
	return f.renderFlags.check()
}

// mirrorFiles are the files a plan writes, by name.
func mirrorFiles(f mirrorFlags, plan mirror.Plan) (map[string][]byte, error) {
	files := map[string][]byte{}
	if f.format == "json" {
		b, err := plan.ImagesJSON()
		if err != nil {
			return nil, err
		}
		files["images.json"] = b
	} else {
		files["images.txt"] = plan.ImagesText()
	}
	isc, err := plan.ImageSetConfiguration()
	if err != nil {
		return nil, err
	}
	files["imageset-config.yaml"] = isc
	if f.to != "" {
		sets, err := plan.MirrorSets(f.to)
		if err != nil {
			return nil, err
		}
		files["mirror-sets.yaml"] = sets
	}
	return files, nil
}

func runMirror(f mirrorFlags, paths []string, stdin io.Reader, out output.Stream, eng engine) error {
	in, _, answer, err := f.renderPaths(paths, stdin, eng, catalog.LoadOptions{RelatedImages: true})
	if err != nil {
		return err
	}
	deps, depWarnings, err := mirror.Dependencies(answer.Installs, in.Catalogs(), answer.CatalogSources)
	if err != nil {
		return err
	}
	plan := mirror.New(answer.Installs, in.Catalogs(), deps...)
	plan.Warnings = append(depWarnings, plan.Warnings...)
	results := answer.Results
	for _, w := range plan.Warnings {
		results = append(results, diag.Warnf(w.About, w.Field, "%s", w.Msg))
	}
	for _, e := range plan.Errors {
		results = append(results, diag.Errorf(e.About, e.Field, "%s", e.Msg))
	}
	if out.Results(results.Sort()) {
		return errReported
	}
	files, err := mirrorFiles(f, plan)
	if err != nil {
		return err
	}
	if err := writeFiles(f.dir, files, mirrorFileNames); err != nil {
		return err
	}
	_, err = io.WriteString(out.Stderr, plan.Summary())
	return err
}

// writeFiles writes every file into dir, or none: each is written beside its place first and
// renamed into it once all are written, in name order, after checking that no place is a
// folder (a rename onto one fails, after the files before it were replaced).
func writeFiles(dir string, files map[string][]byte, owned []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.IsDir() {
			return fmt.Errorf("%s is a folder, not a file: nothing is written", filepath.Join(dir, name))
		}
	}
	tmp := map[string]string{}
	defer func() {
		for _, t := range tmp {
			_ = os.Remove(t)
		}
	}()
	for _, name := range names {
		data := files[name]
		f, err := os.CreateTemp(dir, "."+name+".*")
		if err != nil {
			return err
		}
		tmp[name] = f.Name()
		if _, err := f.Write(data); err != nil {
			_ = f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if err := swapIn(dir, names, tmp); err != nil {
		return err
	}
	// a file of an earlier run that this one does not write (mirror-sets.yaml of a run with
	// --to, images.json of one with --format json) would be taken for this run's
	for _, name := range owned {
		path := filepath.Join(dir, name)
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && files[name] == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// renameFile is os.Rename; tests replace it to make a rename fail (a fault no real file
// system here can be made to show between two renames in one folder).
var renameFile = os.Rename

// swapIn renames each written file (tmp, by name) into its place in dir, in order. The files
// it replaces are first set aside; when a rename fails, the files already swapped in are
// taken out and the ones set aside put back, so that dir holds the earlier run's files, not a
// mix of both runs.
func swapIn(dir string, names []string, tmp map[string]string) (err error) {
	type swapped struct{ place, aside string }
	var done []swapped
	defer func() {
		if err == nil {
			for _, s := range done {
				if s.aside != "" {
					_ = os.Remove(s.aside)
				}
			}
			return
		}
		for i := len(done) - 1; i >= 0; i-- {
			s := done[i]
			_ = os.Remove(s.place)
			if s.aside != "" {
				if rerr := os.Rename(s.aside, s.place); rerr != nil {
					err = errors.Join(err, fmt.Errorf("%s could not be put back from %s: %w", s.place, s.aside, rerr))
				}
			}
		}
	}()
	for _, name := range names {
		place := filepath.Join(dir, name)
		s := swapped{place: place}
		if _, statErr := os.Lstat(place); statErr == nil {
			s.aside = filepath.Join(dir, "."+name+".previous")
			if err := renameFile(place, s.aside); err != nil {
				return fmt.Errorf("%s: %w: nothing is written", place, err)
			}
		}
		if err := renameFile(tmp[name], place); err != nil {
			if s.aside != "" {
				_ = os.Rename(s.aside, place)
			}
			return fmt.Errorf("%s: %w: nothing is written", place, err)
		}
		delete(tmp, name)
		done = append(done, s)
	}
	return nil
}

// mirrorFileNames are every file the mirror command may write into its folder.
var mirrorFileNames = []string{"images.txt", "images.json", "imageset-config.yaml", "mirror-sets.yaml"}
