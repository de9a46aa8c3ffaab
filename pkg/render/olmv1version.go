package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/olmv1resolve"
	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// channelOf is the channel a ClusterExtension names for a Subscription: the Subscription's,
// else the package's default channel, which OLM v0 follows. A ClusterExtension that names no
// channel takes the highest version of every channel (a nightly, say), so it always names one
// when the catalog says which ("" when it does not).
func (v *olmV1) channelOf(sub *manifest.Object) string {
	if _, pkg := v.catalogOf(sub); pkg != nil {
		return pkg.ChannelOrDefault(sub.String("spec", "channel"))
	}
	return sub.String("spec", "channel")
}

// catalogOf is, for a Subscription, the ClusterCatalog its ClusterExtension selects (the one
// named after its CatalogSource, with that CatalogSource's catalog) and the package in it;
// nil, nil when the catalog does not have the package.
func (v *olmV1) catalogOf(sub *manifest.Object) ([]olmv1resolve.Catalog, *catalog.Package) {
	src := sub.String("spec", "source")
	content := v.catalogs.Of(sub.String("spec", "sourceNamespace"), src)
	if content == nil {
		return nil, nil
	}
	pkg, ok := content.Package(sub.String("spec", "name"))
	if !ok {
		return nil, nil
	}
	return []olmv1resolve.Catalog{{Name: src, Content: content}}, pkg
}

// noteDefaultChannel says, for a Subscription without a channel whose ClusterExtension names
// the package's default channel, what operator-controller would install without it (the
// highest version of every channel) when that is another bundle.
func (v *olmV1) noteDefaultChannel(p *subscriptionPlan, channel string) {
	sub := p.obj
	pkgName := sub.String("spec", "name")
	cats, pkg := v.catalogOf(sub)
	if pkg == nil {
		return
	}
	anyChannel, err := olmv1resolve.Resolve(cats, olmv1resolve.Request{Package: pkgName})
	if err != nil {
		return
	}
	named, err := olmv1resolve.Resolve(cats, olmv1resolve.Request{Package: pkgName, Channels: []string{channel}})
	if err == nil && named.Bundle.Name == anyChannel.Bundle.Name {
		return
	}
	about, field := p.about()
	v.add(diag.Infof(about, field, "ClusterExtension %s: the entry names no channel, so it names channel %s, the package's default, which OLM v0 follows: without a channel operator-controller would install the highest version of every channel, %s", sub.Name(), channel, anyChannel.Bundle.Name))
}

// pinVersion makes the ClusterExtension install what OLM v0 installs (want: the channel
// head, or the pin), by operator-controller's own rules (internal/olmv1resolve): where it
// would take another bundle of the channel (its highest version, or the highest successor of
// the extension the cluster has), spec.version names want's version, and a result says why. A
// startingCSV behind want is installed first by OLM v0: the extension pins it, and a result
// says that OLM v1 stays there. An update operator-controller refuses (no direct successor of
// the installed version) is a warning naming the versions it needs one by one.
func (v *olmV1) pinVersion(p *subscriptionPlan, want *catalog.Bundle, spec map[string]any) {
	sub := p.obj
	about, field := p.about()
	pkgName := sub.String("spec", "name")
	cats, pkg := v.catalogOf(sub)
	if pkg == nil {
		if v.opts.Pin && want.Version != "" {
			spec["version"] = want.Version
		}
		return
	}
	installed, err := v.installedExtension(sub.Name())
	if err != nil {
		v.add(diag.Warnf(about, field, "ClusterExtension %s: cannot read what the cluster's extension has installed, so the update is not checked against operator-controller's rules: %v", sub.Name(), err))
	}
	var channels []string
	if chs, ok := spec["channels"].([]any); ok {
		for _, c := range chs {
			channels = append(channels, fmt.Sprint(c))
		}
	}
	target, why := want, ""
	if start := sub.String("spec", "startingCSV"); start != "" && start != csvName(want) && installed == nil {
		if b := pkg.BundleByCSV(start); b != nil {
			target = b
			why = v.startingNote(sub, b, want)
		}
	}
	req := olmv1resolve.Request{Package: pkgName, Channels: channels, SelfCertified: v.opts.OLMv1SelfCertified, Installed: installed}
	if !v.opts.Pin && target == want {
		got, err := olmv1resolve.Resolve(cats, req)
		switch {
		case err == nil && got.Bundle.Name == want.Name:
			return // operator-controller installs what OLM v0 does without a version
		case err == nil && installed != nil:
			why = fmt.Sprintf("operator-controller would move the installed %s to %s, the highest version that directly succeeds it in channel %s, where OLM v0 goes on to %s: version %s names it", installed.Version, got.Bundle.Version, strings.Join(channels, ", "), want.Name, want.Version)
		case err == nil:
			why = fmt.Sprintf("operator-controller installs the highest version of channel %s, %s (%s), where OLM v0 installs the channel head %s: version %s names it", strings.Join(channels, ", "), got.Bundle.Version, got.Bundle.Name, want.Name, want.Version)
		case isDependencyRefusal(err):
			return // installableByOLMv1 said why
		}
	}
	if target.Version == "" {
		return
	}
	spec["version"] = target.Version
	if why != "" {
		v.add(diag.Infof(about, field, "ClusterExtension %s: %s", sub.Name(), why))
	}
	req.Version = target.Version
	if _, err := olmv1resolve.Resolve(cats, req); err != nil && !isDependencyRefusal(err) {
		v.add(diag.Warnf(about, field, "ClusterExtension %s: operator-controller will not install %s: %v%s", sub.Name(), target.Name, err, v.stepsNeeded(pkg, channels, installed, target)))
	}
}

// startingNote says what a startingCSV behind the channel head does under each OLM.
func (v *olmV1) startingNote(sub *manifest.Object, start, head *catalog.Bundle) string {
	if sub.String("spec", "installPlanApproval") == "Manual" {
		return fmt.Sprintf("OLM v0 installs the startingCSV %s and updates it towards %s one approved InstallPlan at a time; version %s makes OLM v1 install %s, and it stays there until the version changes", start.Name, head.Name, start.Version, start.Name)
	}
	return fmt.Sprintf("OLM v0 installs the startingCSV %s and then updates it to %s by itself (Automatic approval); version %s makes OLM v1 install %s, and it stays there until the version changes", start.Name, head.Name, start.Version, start.Name)
}

// stepsNeeded says, for an update operator-controller refuses, which versions OLM v0 goes
// through (the versions to name one after the other) and the opt-out.
func (v *olmV1) stepsNeeded(pkg *catalog.Package, channels []string, installed *olmv1resolve.Installed, target *catalog.Bundle) string {
	if installed == nil || v.opts.OLMv1SelfCertified {
		return ""
	}
	channel := ""
	if len(channels) > 0 {
		channel = channels[0]
	}
	path, err := upgradepath.FindFrom(pkg, channel, upgradepath.Installed{CSV: installed.Name, Version: installed.Version}, target.Name)
	steps := ""
	if versions := path.Versions(); err == nil && len(versions) > 1 {
		steps = fmt.Sprintf("; OLM v0 goes through %s: set version to each in turn, letting each install", strings.Join(versions, ", then "))
	}
	return steps + "; or --olm-v1-self-certified (upgradeConstraintPolicy SelfCertified) to skip operator-controller's successor check"
}

// installedExtension is the bundle the cluster's ClusterExtension named name has installed
// (status.install.bundle), nil when there is none.
func (v *olmV1) installedExtension(name string) (*olmv1resolve.Installed, error) {
	obj, found, err := v.lookup(olmV1APIVersion, kindClusterExtension, "", name)
	if err != nil || !found {
		return nil, err
	}
	bundleName, _ := manifest.Get(obj, "status", "install", "bundle", "name").(string)
	version, _ := manifest.Get(obj, "status", "install", "bundle", "version").(string)
	if bundleName == "" || version == "" {
		return nil, nil
	}
	return &olmv1resolve.Installed{Name: bundleName, Version: version}, nil
}

// isDependencyRefusal tells operator-controller's refusal of a bundle with dependencies
// (reported by installableByOLMv1) from the others.
func isDependencyRefusal(err error) bool {
	var e *olmv1resolve.Error
	return errors.As(err, &e) && strings.Contains(e.Msg, "has a dependency declared via property")
}

// warnExperimentalWatch says once that spec.config.inline.watchNamespace needs
// operator-controller's experimental CRD.
func (v *olmV1) warnExperimentalWatch(p *subscriptionPlan) {
	if v.watchWarned {
		return
	}
	v.watchWarned = true
	about, field := p.about()
	v.add(diag.Warnf(about, field, "--olm-v1-watch-namespace writes spec.config.inline.watchNamespace, a field of operator-controller's experimental ClusterExtension CRD only (its experimental manifests, feature gate SingleOwnNamespaceInstallSupport): the standard CRD drops it, and the extension then installs for all namespaces"))
}
