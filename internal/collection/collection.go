// Package collection reads an Ansible collection that follows the OperatorCollection
// specification (the `operator-config` file that IBM z/OS Cloud Broker imports as an
// operator), checks it against every MUST of the specification, and renders what an import
// creates in the cluster: one CustomResourceDefinition per resource, with an OpenAPI schema
// made from the resource's `vars`, and the operator's ClusterRole and Role from
// `clusterRoles` and `roles`.
//
// The collection is a folder, a built collection archive (.tar.gz, as `ansible-galaxy
// collection build` writes it) or the operator-config file itself. Diagnostics name the
// file and line they are about; nothing here writes files or talks to a cluster.
//
// A collection is untrusted input (an Argo CD plugin renders every tenant's in one
// sidecar): only regular files are read, each within a size limit, and an archive is
// unpacked within limits on its bytes and members (see files.go).
package collection

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// ConfigNames are the file names of the operator-config, at the collection's root.
var ConfigNames = []string{"operator-config.yml", "operator-config.yaml"}

// Options tune the render.
type Options struct {
	// Namespace is the namespace of the Role rendered from `roles` ("" leaves it unset, so
	// that it lands in the namespace it is applied to).
	Namespace string
}

// Output is what Render produces. Objects are sorted (CRDs first) and deterministic; when
// Results hold an error, front doors write no objects.
type Output struct {
	Objects []*manifest.Object
	Results diag.Results
	// Config is the parsed operator-config (nil when it could not be read).
	Config *Config
}

// Render reads the collection at path (a folder, a .tar.gz archive or the operator-config
// file) and renders it. The error is for a path that cannot be read at all; everything
// about the collection's content is a Result.
func Render(p string, opts Options) (Output, error) {
	fsys, display, configName, err := Open(p)
	if err != nil {
		return Output{}, err
	}
	return render(fsys, display, configName, opts), nil
}

// RenderFS renders the collection whose root is fsys; display is the path printed before
// file names in diagnostics ("" for none).
func RenderFS(fsys fs.FS, display string, opts Options) Output {
	return render(fsys, display, "", opts)
}

// Open returns the collection at p as a file system, the display path of its root, and the
// operator-config's name when p names that file ("" to look for ConfigNames).
func Open(p string) (fs.FS, string, string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, "", "", err
	}
	display := filepath.ToSlash(p)
	switch {
	case st.IsDir():
		return dirFS(p), display, "", nil
	case strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz"):
		fsys, err := readArchive(p, defaultArchiveLimits)
		if err != nil {
			return nil, "", "", fmt.Errorf("%s: %w", display, err)
		}
		return fsys, display, "", nil
	default:
		dir := filepath.Dir(p)
		return dirFS(dir), filepath.ToSlash(dir), filepath.Base(p), nil
	}
}

func render(fsys fs.FS, display, configName string, opts Options) Output {
	c := &checker{fsys: fsys, display: display}
	cfg := c.load(configName)
	out := Output{Config: cfg}
	if cfg != nil {
		c.checkGalaxy(cfg)
		c.checkVarReferences(cfg)
		c.checkCRDs(cfg)
		out.Objects = cfg.objects(opts)
		manifest.Sort(out.Objects)
	}
	out.Results = c.results.Sort()
	return out
}

// displayPath is the path of a file of the collection as diagnostics print it.
func (c *checker) displayPath(name string) string {
	if c.display == "" {
		return name
	}
	return path.Join(c.display, name)
}
