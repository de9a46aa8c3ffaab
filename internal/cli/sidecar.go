package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/inputs"
)

// The sidecar's own environment: set by the administrator of the Argo CD repo-server, never by
// an Application (whose plugin env arrives prefixed ARGOCD_ENV_ and whose parameters arrive
// as ARGOCD_APP_PARAMETERS and PARAM_*).
const (
	// EnvArgoAllowLive lets Applications ask for --live ("true"): every tenant can then read
	// what the sidecar's credentials can read.
	EnvArgoAllowLive = "ODLM_RENDER_ARGOCD_ALLOW_LIVE"
	// EnvArgoKubeconfig is the kubeconfig --live uses (default: $KUBECONFIG, ~/.kube/config,
	// then the in-cluster service account, all the sidecar's).
	EnvArgoKubeconfig = "ODLM_RENDER_ARGOCD_KUBECONFIG"
	// EnvArgoAllowCredentialPlugins lets that kubeconfig run exec or auth-provider
	// credential plugins ("true").
	EnvArgoAllowCredentialPlugins = "ODLM_RENDER_ARGOCD_ALLOW_CREDENTIAL_PLUGINS"
	// EnvArgoReadPaths lists folders, besides the application's repository, that paths in
	// parameters may name (colon-separated): catalogs baked into the sidecar image, say.
	EnvArgoReadPaths = "ODLM_RENDER_ARGOCD_READ_PATHS"
)

// adminOnlyOptions are the render flags an Application may not set, and why: they pick
// credentials, bound what the shared sidecar spends, or are safety switches.
var adminOnlyOptions = map[string]string{
	"kubeconfig":    "the kubeconfig is the sidecar's (" + EnvArgoKubeconfig + ")",
	"context":       "the kubeconfig context is the sidecar's (its kubeconfig's current context)",
	"live-timeout":  "live read limits are the sidecar's",
	"live-deadline": "live read limits are the sidecar's",
	"fail-empty":    "the guard against an empty render is always on",
}

// pathOptions are the render flags whose values are paths to read.
var pathOptions = []string{"catalog", "snapshot"}

// sidecarPolicy is what the administrator of the sidecar allows.
type sidecarPolicy struct {
	live              bool
	kubeconfig        string
	credentialPlugins bool
	readPaths         []string
}

func sidecarPolicyFrom(getenv func(string) string) (sidecarPolicy, error) {
	var p sidecarPolicy
	var err error
	if p.live, err = envBool(getenv, EnvArgoAllowLive); err != nil {
		return p, err
	}
	if p.credentialPlugins, err = envBool(getenv, EnvArgoAllowCredentialPlugins); err != nil {
		return p, err
	}
	p.kubeconfig = getenv(EnvArgoKubeconfig)
	for _, d := range filepath.SplitList(getenv(EnvArgoReadPaths)) {
		if d = strings.TrimSpace(d); d != "" {
			if !filepath.IsAbs(d) {
				return p, fmt.Errorf("%s: %q is not an absolute path", EnvArgoReadPaths, d)
			}
			p.readPaths = append(p.readPaths, d)
		}
	}
	return p, nil
}

func envBool(getenv func(string) string, name string) (bool, error) {
	v := getenv(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

// check refuses what an Application asked for and the sidecar does not allow.
func (p sidecarPolicy) check(values map[string][]string) error {
	for _, name := range sortedNames(values) {
		if why, ok := adminOnlyOptions[name]; ok {
			return fmt.Errorf("option %q is not an Application parameter: %s", name, why)
		}
	}
	if liveOn(values) && !p.live {
		return fmt.Errorf("option \"live\": reading the cluster is off in this sidecar (its administrator allows it with %s=true)", EnvArgoAllowLive)
	}
	return nil
}

// liveOn reports values that turn --live on (as the flag parses them).
func liveOn(values map[string][]string) bool {
	v := values["live"]
	if len(v) == 0 {
		return false
	}
	on, err := strconv.ParseBool(v[len(v)-1])
	return err == nil && on
}

// sourceRoot is the application's repository as Argo CD hands it to the plugin: the working
// directory is the application's path (ARGOCD_APP_SOURCE_PATH) inside a fresh copy of the
// repository, so the root is as many folders up as that path has. When the path does not
// lead back to the working directory, the application's folder alone is the root.
func sourceRoot(getenv func(string) string) (string, error) {
	cwd, err := fileread.Resolve(".")
	if err != nil {
		return "", err
	}
	rel := filepath.Clean(filepath.FromSlash(getenv("ARGOCD_APP_SOURCE_PATH")))
	if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return cwd, nil
	}
	root := cwd
	for range strings.Split(rel, string(filepath.Separator)) {
		root = filepath.Dir(root)
	}
	if back, err := fileread.Resolve(filepath.Join(root, rel)); err != nil || back != cwd {
		return cwd, nil
	}
	return root, nil
}

// confine checks that every path is, and every file below it links to, somewhere inside
// roots: an Application may read its own repository (and the folders the administrator
// lists), never another tenant's folder of the repo-server or the sidecar's files.
func confine(what string, paths, roots []string) error {
	for _, p := range paths {
		if !fileread.Inside(p, roots...) {
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%s %s: %w", what, p, err)
			}
			return &fileread.OutsideError{What: what, Path: p, Roots: roots}
		}
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if _, err := os.Stat(path); err != nil {
				return nil // a dangling link: the read reports it
			}
			if !fileread.Inside(path, roots...) {
				return &fileread.OutsideError{What: what + " " + p + ": link", Path: path, Roots: roots}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// confinePaths applies confine to PATH and to every path option, and returns the folders
// every file the render then reads must stay in (renderFlags.within: a link inside a folder
// a parameter names, followed by the readers, is checked there).
func (p sidecarPolicy) confinePaths(getenv func(string) string, path string, values map[string][]string) ([]string, error) {
	root, err := sourceRoot(getenv)
	if err != nil {
		return nil, err
	}
	roots := append([]string{root}, p.readPaths...)
	sort.Strings(roots[1:])
	// PATH is the administrator's (plugin.yaml's generate command): only the links below it
	// are the Application's
	if err := confine("PATH", []string{path}, append([]string{path}, roots...)); err != nil {
		return nil, err
	}
	for _, name := range pathOptions {
		if err := confine("option \""+name+"\":", pathsOf(name, values[name]), roots); err != nil {
			return nil, err
		}
	}
	return append([]string{path}, roots...), nil
}

// pathsOf are the paths an option's values read: a catalog "NAME=PATH" reads PATH
// (inputs.SplitNamedPath, which splits whatever the global catalog namespace is).
func pathsOf(option string, values []string) []string {
	if option != "catalog" {
		return values
	}
	var out []string
	for _, v := range values {
		if _, path, err := inputs.SplitNamedPath(v, "global"); err == nil {
			v = path
		}
		out = append(out, v)
	}
	return out
}
