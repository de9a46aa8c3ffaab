package render

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// nameRule is how the API server validates the name of a kind (each kind's registry strategy
// picks one of apimachinery's rules): most kinds take a DNS-1123 subdomain; Namespaces a
// DNS-1123 label; Services a DNS-1035 label; RBAC's kinds any path segment.
func nameRule(group, kind string) func(string, bool) []string {
	switch {
	case group == "" && kind == "Namespace":
		return apivalidation.ValidateNamespaceName
	case group == "" && kind == "Service":
		return apivalidation.NameIsDNS1035Label
	case group == "rbac.authorization.k8s.io":
		return pathSegmentName
	}
	return apivalidation.NameIsDNSSubdomain
}

// pathSegmentName is apimachinery's deprecated path.ValidatePathSegmentName: a name that
// can be a path segment (not "." or "..", no "/" or "%").
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// checkNames refuses output objects whose name or namespace the API server refuses: a name
// from an input (an OperandConfig resource named "../../Evil Name") would otherwise be written
// out, and front doors derive file paths from names. Messages point at the input the object
// came from where there is one.
func (sk *servedIndex) checkNames(objs []*manifest.Object) {
	for _, o := range objs {
		if name := o.Name(); name != "" {
			if msgs := nameRule(o.Group(), o.Kind())(name, false); len(msgs) > 0 {
				sk.refuseName(o, "name", name, msgs)
			}
		}
		if ns := o.Namespace(); ns != "" {
			if msgs := apivalidation.ValidateNamespaceName(ns, false); len(msgs) > 0 {
				sk.refuseName(o, "namespace", ns, msgs)
			}
		}
	}
}

// refuseName reports o's metadata.<what>, at the input field it came from when o was
// rendered from one, else at o itself.
func (sk *servedIndex) refuseName(o *manifest.Object, what, value string, msgs []string) {
	why := fmt.Sprintf("%q: %s: the API server refuses it", value, strings.Join(msgs, "; "))
	a, ok := sk.r.facts.anchorOf(o)
	if !ok {
		sk.r.add(diag.Errorf(o, "metadata."+what, "%s", why))
		return
	}
	field := a.field
	if a.data && what == "name" { // an OperandConfig resource: its name is a field of its own
		field += ".name"
	}
	sk.r.add(diag.Errorf(a.about, field, "%s: metadata.%s %s", o.Ref(), what, why))
}
