package render

import (
	"fmt"

	"github.com/odlm-render/odlm-render/internal/channel"
)

// noteUserManaged adds what the operators the registries mark userManaged serve (docs/semantics.md, Decided deviations: what a cluster serves).
// The user installed them, so ODLM creates no Subscription, yet the cluster serves their
// kinds: the OperandConfig resources of IBM's configurations are cert-manager Issuers and
// Certificates next to a cert-manager the user runs. The head of the entry's channel in the
// catalog stands for what the user installed: its CRDs serve and are readable, and its
// olm.gvks, when the catalog carries no contents, make its kinds unvalidated rather than
// unknown. Where it is installed is the user's business, so no CSV is made readable.
func (sk *servedIndex) noteUserManaged() {
	seen := map[string]bool{}
	for _, k := range sortedKeys(sk.r.inputs.registries) {
		reg := sk.r.inputs.registries[k]
		for _, e := range reg.entries {
			if !e.UserManaged || seen[e.PackageName] {
				continue
			}
			seen[e.PackageName] = true
			what := fmt.Sprintf("userManaged %q in OperandRegistry %s", e.Name, reg.key)
			b := sk.knownBundle(e.SourceNamespace, e.SourceName, e.PackageName, sk.userManagedChannel(e), what, nil)
			if b == nil {
				continue
			}
			sk.subscribed = append(sk.subscribed, subscribedBundle{bundle: b, userManaged: fmt.Sprintf("%q (OperandRegistry %s)", e.Name, reg.key)})
			sk.addBundleCRDs(b)
		}
	}
}

// userManagedChannel is the channel whose head stands for a userManaged operator: the
// entry's channel when the package has it, else the fallback ODLM's rule picks, else the
// entry's (the head is then unknown).
func (sk *servedIndex) userManagedChannel(e *entry) string {
	pkg, ok := sk.r.packageOfEntry(e)
	if !ok || e.Channel == "" {
		return e.Channel
	}
	if _, ok := pkg.Channels[e.Channel]; ok {
		return e.Channel
	}
	if fb, ok := channel.PickFallback(pkg.ChannelNames(), e.FallbackChannels); ok {
		return fb
	}
	return e.Channel
}
