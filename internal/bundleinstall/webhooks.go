package bundleinstall

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Annotations through which a certificate provider injects its CA or serving certificate.
const (
	certManagerInjectCA    = "cert-manager.io/inject-ca-from"
	serviceCAServingSecret = "service.beta.openshift.io/serving-cert-secret-name"
	serviceCAInjectBundle  = "service.beta.openshift.io/inject-cabundle"
	namespaceNameLabel     = "kubernetes.io/metadata.name"
	admissionAPIVersion    = "admissionregistration.k8s.io/v1"
	certManagerAPIVersion  = "cert-manager.io/v1"
	defaultWebhookPort     = 443 // the CSV's default containerPort
)

// servingNames are the names of what serves a Deployment's webhooks: the Service in front of
// it and the certificate (and Secret) of that Service.
type servingNames struct {
	service, cert string
}

func (in *install) certsFor(deployment string) servingNames {
	service := objectName(strings.ReplaceAll(deployment, ".", "-"), "service")
	return servingNames{service: service, cert: objectName(service, "cert")}
}

func containerPort(wh v1alpha1.WebhookDescription) int32 {
	if wh.ContainerPort > 0 {
		return wh.ContainerPort
	}
	return defaultWebhookPort
}

// injectCA annotates what calls a webhook (webhook configurations, converted CRDs) so that the
// provider writes the CA bundle into it.
func (in *install) injectCA(o *manifest.Object, names servingNames) {
	switch in.opts.Certs {
	case CertManager:
		o.SetMetadataString("annotations", certManagerInjectCA, in.opts.InstallNamespace+"/"+names.cert)
	case ServiceCA:
		o.SetMetadataString("annotations", serviceCAInjectBundle, "true")
	}
}

// namespaceSelector confines a webhook to the target namespaces (nil for all namespaces).
func namespaceSelector(targets []string) *metav1.LabelSelector {
	if allNamespaces(targets) {
		return nil
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: namespaceNameLabel, Operator: metav1.LabelSelectorOpIn, Values: targets},
	}}
}

func (in *install) clientConfig(wh v1alpha1.WebhookDescription) admissionregistrationv1.WebhookClientConfig {
	port := containerPort(wh)
	return admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
		Namespace: in.opts.InstallNamespace, Name: in.certsFor(wh.DeploymentName).service, Path: wh.WebhookPath, Port: &port,
	}}
}

func validatingWebhooks(in *install) ([]Object, error) {
	return in.webhookConfigurations(v1alpha1.ValidatingAdmissionWebhook, "ValidatingWebhookConfiguration", func(wh v1alpha1.WebhookDescription) any {
		return admissionregistrationv1.ValidatingWebhook{
			Name: webhookName(wh), Rules: wh.Rules, FailurePolicy: wh.FailurePolicy, MatchPolicy: wh.MatchPolicy,
			ObjectSelector: wh.ObjectSelector, SideEffects: wh.SideEffects, TimeoutSeconds: wh.TimeoutSeconds,
			AdmissionReviewVersions: wh.AdmissionReviewVersions, ClientConfig: in.clientConfig(wh),
			NamespaceSelector: namespaceSelector(in.opts.TargetNamespaces),
		}
	})
}

func mutatingWebhooks(in *install) ([]Object, error) {
	return in.webhookConfigurations(v1alpha1.MutatingAdmissionWebhook, "MutatingWebhookConfiguration", func(wh v1alpha1.WebhookDescription) any {
		return admissionregistrationv1.MutatingWebhook{
			Name: webhookName(wh), Rules: wh.Rules, FailurePolicy: wh.FailurePolicy, MatchPolicy: wh.MatchPolicy,
			ObjectSelector: wh.ObjectSelector, SideEffects: wh.SideEffects, TimeoutSeconds: wh.TimeoutSeconds,
			AdmissionReviewVersions: wh.AdmissionReviewVersions, ClientConfig: in.clientConfig(wh),
			ReinvocationPolicy: wh.ReinvocationPolicy, NamespaceSelector: namespaceSelector(in.opts.TargetNamespaces),
		}
	})
}

// webhookConfigurations writes one configuration of kind per webhook of type t, named after
// the webhook, calling the Service of its Deployment.
func (in *install) webhookConfigurations(t v1alpha1.WebhookAdmissionType, kind string, hook func(v1alpha1.WebhookDescription) any) ([]Object, error) {
	var out []*manifest.Object
	for _, wh := range in.strategy.Webhooks {
		if wh.Type != t {
			continue
		}
		tree, err := manifest.ToValue(hook(wh))
		if err != nil {
			return nil, fmt.Errorf("bundle %s: webhook %s: %w", in.bundle.Name, webhookName(wh), err)
		}
		o := newObject(admissionAPIVersion, kind, "", webhookName(wh))
		o.Map["webhooks"] = []any{tree}
		in.injectCA(o, in.certsFor(wh.DeploymentName))
		out = append(out, o)
	}
	return workloads(out...), nil
}

// webhookServices writes the Service in front of each Deployment that serves webhooks: one
// port per distinct container and target port, selecting the Deployment's pods.
func webhookServices(in *install) ([]Object, error) {
	ports := map[string]map[string]any{} // deployment → port key → port
	for _, wh := range in.strategy.Webhooks {
		port := containerPort(wh)
		target := intstr.FromInt32(port)
		if wh.TargetPort != nil {
			target = *wh.TargetPort
		}
		if ports[wh.DeploymentName] == nil {
			ports[wh.DeploymentName] = map[string]any{}
		}
		key := fmt.Sprintf("%010d/%010d/%s", port, target.IntValue(), target.String())
		ports[wh.DeploymentName][key] = map[string]any{"name": fmt.Sprint(port), "port": json.Number(fmt.Sprint(port)), "targetPort": intOrString(target)}
	}
	var out []*manifest.Object
	for i, d := range in.strategy.Deployments {
		byKey, ok := ports[d.Name]
		if !ok {
			continue
		}
		spec, err := in.contents.DeploymentSpec(i)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: deployment %s: %w", in.bundle.Name, d.Name, err)
		}
		var list []any
		for _, k := range slices.Sorted(maps.Keys(byKey)) {
			list = append(list, byKey[k])
		}
		names := in.certsFor(d.Name)
		svc := newObject("v1", "Service", in.opts.InstallNamespace, names.service)
		svcSpec := map[string]any{"ports": list}
		if sel, ok := manifest.Get(spec, "selector", "matchLabels").(map[string]any); ok && len(sel) > 0 {
			svcSpec["selector"] = sel
		}
		svc.Map["spec"] = svcSpec
		if in.opts.Certs == ServiceCA {
			svc.SetMetadataString("annotations", serviceCAServingSecret, names.cert)
		}
		out = append(out, svc)
	}
	return prerequisites(out...), nil
}

func intOrString(v intstr.IntOrString) any {
	if v.Type == intstr.String {
		return v.StrVal
	}
	return json.Number(fmt.Sprint(v.IntVal))
}

// cert-manager's certificate as OLM v0 rotates it: valid two years, renewed a day before.
const (
	certDuration    = "17520h0m0s"
	certRenewBefore = "24h0m0s"
)

// certificates writes, with cert-manager, a self-signed Issuer and a Certificate for the
// Service of each Deployment that serves webhooks (sorted by Deployment).
func certificates(in *install) ([]Object, error) {
	if in.opts.Certs != CertManager {
		return nil, nil
	}
	deployments := map[string]bool{}
	for _, wh := range in.strategy.Webhooks {
		deployments[wh.DeploymentName] = true
	}
	var out []*manifest.Object
	for _, d := range slices.Sorted(maps.Keys(deployments)) {
		names := in.certsFor(d)
		ns := in.opts.InstallNamespace
		issuer := newObject(certManagerAPIVersion, "Issuer", ns, objectName(names.cert, "selfsigned-issuer"))
		issuer.Map["spec"] = map[string]any{"selfSigned": map[string]any{}}
		cert := newObject(certManagerAPIVersion, "Certificate", ns, names.cert)
		host := names.service + "." + ns
		cert.Map["spec"] = map[string]any{
			"secretName":  names.cert,
			"commonName":  host,
			"usages":      []any{"server auth"},
			"dnsNames":    []any{host, host + ".svc", host + ".svc.cluster.local"},
			"issuerRef":   map[string]any{"name": issuer.Name()},
			"duration":    certDuration,
			"renewBefore": certRenewBefore,
		}
		out = append(out, issuer, cert)
	}
	return prerequisites(out...), nil
}
