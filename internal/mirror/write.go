package mirror

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// ImagesText is images.txt: one image per line, sorted, each once.
func (p Plan) ImagesText() []byte {
	var b strings.Builder
	for _, im := range p.Images {
		b.WriteString(im.Image)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// ImagesJSON is images.json: each image with the installs that need it.
func (p Plan) ImagesJSON() ([]byte, error) {
	images := p.Images
	if images == nil {
		images = []Image{}
	}
	out, err := json.MarshalIndent(map[string]any{"images": images}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// ImageSetConfiguration is oc-mirror v2's configuration that copies what the plan lists:
// each catalog image with, under it, each installed package with exactly its channel, the
// installed version as maxVersion and as minVersion the lowest version OLM installs on its
// way there (the installed version itself when OLM goes straight to it), and the images from
// outside the catalogs as additionalImages. oc-mirror copies every bundle of the channel in
// that range: a superset of OLM's way where OLM skips some (Operator.AlsoInRange counts them).
func (p Plan) ImageSetConfiguration() ([]byte, error) {
	var operators []any
	for _, c := range p.Catalogs {
		operators = append(operators, map[string]any{"catalog": c.Image, "packages": iscPackages(c.Packages)})
	}
	mirror := map[string]any{}
	if len(operators) > 0 {
		mirror["operators"] = operators
	}
	if len(p.Additional) > 0 {
		var extra []any
		for _, im := range p.Additional {
			extra = append(extra, map[string]any{"name": im})
		}
		mirror["additionalImages"] = extra
	}
	return manifest.MarshalYAML(map[string]any{
		"apiVersion": "mirror.openshift.io/v2alpha1",
		"kind":       "ImageSetConfiguration",
		"mirror":     mirror,
	})
}

// iscPackages are a catalog's packages as an ImageSetConfiguration lists them, by name, each
// with its channels. oc-mirror refuses to filter out a package's default channel unless the
// package names another (catalog-filter's mirror filter: "the default channel %q was filtered
// out, a new default channel must be configured for this package"), so a package installed
// only from other channels names the first of them.
func iscPackages(pkgs []Package) []any {
	channels, keepsDefault, defaults := map[string][]any{}, map[string]bool{}, map[string]string{}
	for _, pkg := range pkgs {
		ch := map[string]any{"name": pkg.Channel}
		if pkg.Version != "" {
			ch["minVersion"] = pkg.lowest()
			ch["maxVersion"] = pkg.Version
		}
		channels[pkg.Name] = append(channels[pkg.Name], ch)
		defaults[pkg.Name] = pkg.DefaultChannel
		keepsDefault[pkg.Name] = keepsDefault[pkg.Name] || pkg.DefaultChannel == "" || pkg.Channel == pkg.DefaultChannel
	}
	var out []any
	for _, name := range slices.Sorted(maps.Keys(channels)) {
		entry := map[string]any{"name": name, "channels": channels[name]}
		if !keepsDefault[name] {
			entry["defaultChannel"] = channels[name][0].(map[string]any)["name"]
		}
		out = append(out, entry)
	}
	return out
}

// source is the repository a cluster matches an image against a mirror set's sources (registry
// host and path, without tag or digest, as qualified names), and whether the image names a
// digest (then the tag of a "repo:tag@digest" reference plays no part in the pull).
func source(image string) (repo string, byDigest bool) {
	ref := image
	if i := strings.Index(image, "@"); i >= 0 {
		ref, byDigest = image[:i], true
	}
	slash := strings.LastIndex(ref, "/")
	if colon := strings.LastIndex(ref, ":"); colon > slash {
		ref = ref[:colon]
	}
	return qualified(ref), byDigest
}

// dockerHub is the registry of a name without a registry host, as container runtimes read it.
const dockerHub = "docker.io"

// splitHost splits a repository into its registry host ("" when the first component is not
// one: no dot, no port, not localhost) and its path.
func splitHost(repo string) (host, path string) {
	first, rest, ok := strings.Cut(repo, "/")
	if ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return first, rest
	}
	return "", repo
}

// qualified is a repository as a container runtime resolves it: a name without a registry
// host is Docker Hub's, and a Docker Hub name of one component is in its library/ namespace.
func qualified(repo string) string {
	host, path := splitHost(repo)
	if host == "" {
		host = dockerHub
	}
	if host == dockerHub && !strings.Contains(path, "/") {
		path = "library/" + path
	}
	return host + "/" + path
}

// mirrorOf is where oc-mirror puts a repository (qualified) under a mirror: REGISTRY[/PREFIX]
// followed by the repository's path without its registry host.
func mirrorOf(repo, to string) string {
	_, path := splitHost(repo)
	return strings.TrimSuffix(to, "/") + "/" + path
}

// MirrorSets is mirror-sets.yaml: an ImageDigestMirrorSet for the repositories of images
// named by digest and an ImageTagMirrorSet for those named by tag, each repository mapped to
// the same path under to (REGISTRY[/PREFIX]). A set with no entry is left out.
func (p Plan) MirrorSets(to string) ([]byte, error) {
	if to == "" {
		return nil, fmt.Errorf("no mirror registry given")
	}
	digests, tags := map[string]bool{}, map[string]bool{}
	for _, im := range p.Images {
		repo, byDigest := source(im.Image)
		if byDigest {
			digests[repo] = true
		} else {
			tags[repo] = true
		}
	}
	var docs [][]byte
	for _, set := range []struct {
		kind, field string
		repos       map[string]bool
	}{{"ImageDigestMirrorSet", "imageDigestMirrors", digests}, {"ImageTagMirrorSet", "imageTagMirrors", tags}} {
		if len(set.repos) == 0 {
			continue
		}
		var entries []any
		for _, repo := range slices.Sorted(maps.Keys(set.repos)) {
			entries = append(entries, map[string]any{"source": repo, "mirrors": []any{mirrorOf(repo, to)}})
		}
		doc, err := manifest.MarshalYAML(map[string]any{
			"apiVersion": "config.openshift.io/v1",
			"kind":       set.kind,
			"metadata":   map[string]any{"name": "odlm-render-mirror"},
			"spec":       map[string]any{set.field: entries},
		})
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	var b strings.Builder
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(d)
	}
	return []byte(b.String()), nil
}

// Summary is the per-operator account printed on stderr: each install's bundle and image
// count, the total, and what mirroring each whole channel would copy.
func (p Plan) Summary() string {
	var b strings.Builder
	for _, o := range p.Operators {
		channel := "unknown"
		if o.ChannelImagesKnown {
			channel = fmt.Sprint(o.ChannelImages)
		}
		dependency := ""
		if o.DependencyOf != "" {
			dependency = ", a dependency OLM adds for " + o.DependencyOf
		}
		fmt.Fprintf(&b, "%s: bundle %s%s, %d images (its whole channel: %s)%s\n", o.Operator, o.Bundle, pathNote(o), o.Images, channel, dependency)
	}
	deps := 0
	for _, o := range p.Operators {
		if o.DependencyOf != "" {
			deps++
		}
	}
	fmt.Fprintf(&b, "total: %d images to mirror", len(p.Images))
	switch {
	case deps == 1:
		b.WriteString(" (for 1 install OLM adds as a dependency among them)")
	case deps > 1:
		fmt.Fprintf(&b, " (for %d installs OLM adds as dependencies among them)", deps)
	}
	fmt.Fprintf(&b, "; mirroring each installed package's whole channel would copy %d\n", p.ChannelTotal)
	return b.String()
}
