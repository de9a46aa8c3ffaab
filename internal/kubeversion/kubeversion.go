// Package kubeversion owns reading Kubernetes versions the way OLM v0 compares them for a
// CSV's spec.minKubeVersion: the cluster's version leniently (1.31, v1.31.2, 1.31.2+k3s1),
// the CSV's strictly (major.minor.patch after an optional v, or OLM does not install the CSV),
// and the verdict between the two. pkg/render's catalog checks and odlm-render plan's hops
// share it.
package kubeversion

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
)

// ParseCluster reads a cluster's Kubernetes version: a leading v is dropped, a missing minor
// or patch is 0, and what follows the patch number (-rc.1, +k3s1) is left out, as OLM leaves
// out what follows a "-" of the server's version (build metadata does not count in a
// comparison).
func ParseCluster(text string) (semver.Version, error) {
	parts := strings.SplitN(strings.TrimPrefix(text, "v"), ".", 3)
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	if i := strings.IndexAny(parts[2], "-+"); i >= 0 {
		parts[2] = parts[2][:i]
	}
	var n [3]uint64
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return semver.Version{}, fmt.Errorf("%q is not a number", p)
		}
		n[i] = v
	}
	return semver.Version{Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

// ParseMin reads a CSV's minKubeVersion as OLM does: a leading v is dropped, and the rest
// must be a whole semantic version, major.minor.patch ("1.25" is not one: OLM reports "CSV
// version parsing error" and does not install the CSV).
func ParseMin(text string) (semver.Version, error) {
	return semver.Parse(strings.TrimPrefix(text, "v"))
}

// Problem says why OLM refuses to install bundle, whose CSV has minKubeVersion min, on a
// cluster of version cluster (cluster as given, clusterVersion as ParseCluster read it); ""
// when it installs it (min empty or not above the cluster's).
func Problem(bundle, minVersion, cluster string, clusterVersion semver.Version) string {
	if minVersion == "" {
		return ""
	}
	v, err := ParseMin(minVersion)
	if err != nil {
		return fmt.Sprintf("bundle %s has minKubeVersion %q, which OLM cannot read as major.minor.patch (%v)", bundle, minVersion, err)
	}
	if v.GT(clusterVersion) {
		return fmt.Sprintf("bundle %s needs Kubernetes %s or later (minKubeVersion), and the cluster is %s (--kube-version)", bundle, minVersion, cluster)
	}
	return ""
}
