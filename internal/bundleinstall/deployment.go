package bundleinstall

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// OLM's annotations on an operator's pods: the namespaces its OperatorGroup targets (comma
// separated, "" for all) and the namespace it runs in. Operators read them through the
// downward API (WATCH_NAMESPACE).
const (
	targetNamespacesAnnotation  = "olm.targetNamespaces"
	operatorNamespaceAnnotation = "olm.operatorNamespace"
)

// deployments writes the install strategy's Deployments: the CSV's spec, the pod template
// annotated with the CSV's annotations (the template's own win) and OLM's two namespace
// annotations, one revision kept, the serving certificate mounted into webhook Deployments,
// and the Subscription's config applied.
func deployments(in *install) ([]Object, error) {
	serving := map[string]bool{}
	for _, wh := range in.strategy.Webhooks {
		serving[wh.DeploymentName] = true
	}
	var out []*manifest.Object
	for i, d := range in.strategy.Deployments {
		spec, err := in.contents.DeploymentSpec(i)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: deployment %s: %w", in.bundle.Name, d.Name, err)
		}
		in.annotateTemplate(spec)
		spec["revisionHistoryLimit"] = json.Number("1")
		o := newObject("apps/v1", "Deployment", in.opts.InstallNamespace, d.Name)
		if len(d.Label) > 0 {
			labels := map[string]any{}
			for k, v := range d.Label {
				labels[k] = v
			}
			o.Map["metadata"].(map[string]any)["labels"] = labels
		}
		o.Map["spec"] = spec
		switch {
		case serving[d.Name] && in.opts.Certs == CertNone:
			// as operator-controller with no certificate provider: the Deployment exactly as
			// the bundle has it, nothing mounted
			in.warnings = append(in.warnings, noCertsWarning(in.opts.InstallNamespace, d.Name, spec))
		case serving[d.Name] && in.opts.Certs != "":
			mountServingCert(spec, in.certsFor(d.Name).cert)
		}
		if err := applyConfig(o.Map, in.opts.Config); err != nil {
			return nil, fmt.Errorf("bundle %s: deployment %s: subscription config: %w", in.bundle.Name, d.Name, err)
		}
		out = append(out, o)
	}
	return workloads(out...), nil
}

// annotateTemplate gives the pod template the CSV's annotations under its own, then OLM's
// namespace annotations.
func (in *install) annotateTemplate(spec map[string]any) {
	meta := manifest.EnsureMap(manifest.EnsureMap(spec, "template"), "metadata")
	annotations := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(in.strategy.Annotations)) {
		annotations[k] = in.strategy.Annotations[k]
	}
	if own, ok := meta["annotations"].(map[string]any); ok {
		maps.Copy(annotations, own)
	}
	annotations[targetNamespacesAnnotation] = strings.Join(in.opts.TargetNamespaces, ",")
	annotations[operatorNamespaceAnnotation] = in.opts.InstallNamespace
	meta["annotations"] = annotations
}

// certVolume is where an operator expects a serving certificate: the volume and mount path
// operator SDK projects use for webhooks, and the one for aggregated API servers.
type certVolume struct {
	name, path, certFile, keyFile string
}

var certVolumes = []certVolume{
	{"webhook-cert", "/tmp/k8s-webhook-server/serving-certs", "tls.crt", "tls.key"},
	{"apiservice-cert", "/apiserver.local.config/certificates", "apiserver.crt", "apiserver.key"},
}

// noCertsWarning says, for a webhook Deployment installed with --webhook-certs none, which
// Secrets the bundle's Deployment itself mounts where a webhook server reads its serving
// certificate (the volumes named, or mounted at the paths, of certVolumes), or that it mounts
// none.
func noCertsWarning(namespace, name string, spec map[string]any) string {
	secrets := servingSecrets(spec)
	head := fmt.Sprintf("Deployment %s/%s serves webhooks, and --webhook-certs none writes it as the bundle has it, with no certificate (as operator-controller does without a certificate provider): ", namespace, name)
	if len(secrets) == 0 {
		return head + "it mounts no Secret for its webhook server, so supply its serving certificate some other way, and the CA bundle of what calls the webhooks"
	}
	return head + fmt.Sprintf("supply Secret(s) %s, which it mounts for its webhook server, and the CA bundle of what calls the webhooks", strings.Join(secrets, ", "))
}

// servingSecrets are the Secrets of the pod's certificate volumes (certVolumeNames), sorted,
// each once.
func servingSecrets(spec map[string]any) []string {
	podSpec, _ := manifest.Get(spec, "template", "spec").(map[string]any)
	certNames := certVolumeNames(podSpec)
	seen := map[string]bool{}
	volumes, _ := podSpec["volumes"].([]any)
	for _, v := range volumes {
		name, _ := manifest.Get(v, "name").(string)
		if secret, _ := manifest.Get(v, "secret", "secretName").(string); certNames[name] && secret != "" {
			seen[secret] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// certVolumeNames are the pod's certificate volumes: those named as certVolumes, and those a
// container mounts at one of their paths.
func certVolumeNames(podSpec map[string]any) map[string]bool {
	names := map[string]bool{}
	paths := map[string]bool{}
	for _, cv := range certVolumes {
		names[cv.name] = true
		paths[cv.path] = true
	}
	containers, _ := podSpec["containers"].([]any)
	for _, c := range containers {
		mounts, _ := manifest.Get(c, "volumeMounts").([]any)
		for _, m := range mounts {
			if p, _ := manifest.Get(m, "mountPath").(string); paths[p] {
				name, _ := manifest.Get(m, "name").(string)
				names[name] = true
			}
		}
	}
	return names
}

// mountServingCert replaces the Deployment's certificate volumes (by name, or by what a
// container mounts at a certificate path) with the serving Secret's, mounted into every
// container.
func mountServingCert(spec map[string]any, secret string) {
	podSpec := manifest.EnsureMap(manifest.EnsureMap(spec, "template"), "spec")
	replaced := certVolumeNames(podSpec)
	containers, _ := podSpec["containers"].([]any)
	keep := func(list []any) []any {
		return slices.DeleteFunc(slices.Clone(list), func(v any) bool {
			name, _ := manifest.Get(v, "name").(string)
			return replaced[name]
		})
	}
	volumes, _ := podSpec["volumes"].([]any)
	volumes = keep(volumes)
	var mountsToAdd []any
	for _, cv := range certVolumes {
		volumes = append(volumes, map[string]any{"name": cv.name, "secret": map[string]any{
			"secretName": secret,
			"items": []any{
				map[string]any{"key": "tls.crt", "path": cv.certFile},
				map[string]any{"key": "tls.key", "path": cv.keyFile},
			},
		}})
		mountsToAdd = append(mountsToAdd, map[string]any{"name": cv.name, "mountPath": cv.path})
	}
	podSpec["volumes"] = volumes
	for _, c := range containers {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		mounts, _ := cm["volumeMounts"].([]any)
		cm["volumeMounts"] = append(keep(mounts), mountsToAdd...)
	}
}
