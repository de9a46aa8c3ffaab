package mirror

import (
	"errors"
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/upgradepath"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// onTheWay are the bundles OLM v0 installs before an install's Bundle: from the
// Subscription's startingCSV (that bundle included) or from the CSV it has installed (that one
// excluded: the cluster has it), every hop OLM takes to Bundle, in order (upgradepath, checked
// against OLM's own resolver). A mirror holding only Bundle cannot install the startingCSV,
// nor update the installed CSV. A path the catalog does not hold, or on which OLM does not
// reach Bundle, is a warning; the bundles OLM installs anyway are still returned.
func (b *builder) onTheWay(in render.Install, cat *catalog.Catalog) []*catalog.Bundle {
	from, first := in.InstalledCSV, false
	if from == "" {
		from, first = in.StartingCSV, true
	}
	if from == "" || cat == nil {
		return nil
	}
	op := in.Namespace + "/" + in.Name
	pkg, ok := cat.Package(in.Package)
	if !ok {
		return nil
	}
	start := pkg.BundleByCSV(from)
	if start == nil {
		start = pkg.Bundles[from]
	}
	if start == nil {
		if first {
			b.warn(in, "Subscription %s: its startingCSV %s is not a bundle of package %s in the catalog: OLM cannot install it, and its images are not listed", op, from, in.Package)
		} else if _, err := upgradepath.FindFrom(pkg, in.Channel, upgradepath.Installed{CSV: from}, in.Bundle.Name); err != nil {
			b.warn(in, "Subscription %s: OLM's updates from the installed CSV %s to %s are not known, so the bundles on the way are not listed: %v", op, from, in.Bundle.Name, err)
		}
		return nil
	}
	var out []*catalog.Bundle
	if first {
		out = append(out, start)
	}
	path, err := upgradepath.Find(pkg, in.Channel, start.Name, in.Bundle.Name)
	hops := path.Hops
	if err != nil {
		if npe := (*upgradepath.NoPathError)(nil); errors.As(err, &npe) {
			hops = npe.Hops
		}
		b.warn(in, "Subscription %s: OLM does not reach %s from %s %s, so what it installs on the way is listed instead: %v", op, in.Bundle.Name, startedAs(first), from, err)
	}
	for _, h := range hops {
		if h.To == in.Bundle.Name {
			continue
		}
		if bundle := pkg.Bundles[h.To]; bundle != nil {
			out = append(out, bundle)
		}
	}
	return out
}

// startedAs names what OLM starts from.
func startedAs(first bool) string {
	if first {
		return "the startingCSV"
	}
	return "the installed CSV"
}

// alsoInRange counts the entries of the install's channel whose version lies between the
// lowest version on OLM's way and Bundle's, but which OLM does not install on its way: oc-mirror
// copies them too (it selects bundles by version range).
func alsoInRange(in render.Install, cat *catalog.Catalog, way []*catalog.Bundle) int {
	if len(way) == 0 || cat == nil {
		return 0
	}
	pkg, ok := cat.Package(in.Package)
	if !ok {
		return 0
	}
	ch, ok := pkg.Channels[pkg.ChannelOrDefault(in.Channel)]
	if !ok {
		return 0
	}
	low := in.Bundle.Version
	installs := map[string]bool{in.Bundle.Name: true}
	for _, b := range way {
		low = lower(low, b.Version)
		installs[b.Name] = true
	}
	n := 0
	for _, e := range ch.Entries {
		b := pkg.Bundles[e.Name]
		if b == nil || installs[b.Name] {
			continue
		}
		if compareVersions(b.Version, low) >= 0 && compareVersions(b.Version, in.Bundle.Version) <= 0 {
			n++
		}
	}
	return n
}

// pathNote says which bundles an operator's mirror holds besides its Bundle ("" for none),
// and how many more the ImageSetConfiguration's range copies.
func pathNote(o Operator) string {
	if len(o.OnTheWay) == 0 {
		return ""
	}
	note := fmt.Sprintf(", and %s on OLM's way to it", strings.Join(o.OnTheWay, ", "))
	switch o.AlsoInRange {
	case 0:
	case 1:
		note += " (the ImageSetConfiguration's version range also copies 1 bundle OLM skips)"
	default:
		note += fmt.Sprintf(" (the ImageSetConfiguration's version range also copies %d bundles OLM skips)", o.AlsoInRange)
	}
	return note
}
