package render

import (
	"fmt"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// packageAdvice says what OLM v0 would install from the catalog for an olm.package.required
// dependency (catalog.PackageCandidate, OLM's order; its own resolver is the oracle in the
// tests), so that a render that cannot resolve dependencies (OLM v1, no OLM) names what to add
// to the registry.
func packageAdvice(cat *catalog.Catalog, q catalog.PackageRequirement) string {
	if cat == nil {
		return "no catalog given offers it"
	}
	if c, ok := cat.PackageCandidate(q); ok {
		return advice(c)
	}
	return "no catalog given offers it"
}

// gvkAdvice is packageAdvice for an olm.gvk.required dependency.
func gvkAdvice(cat *catalog.Catalog, g catalog.GVK) string {
	if cat == nil {
		return "no catalog given provides it"
	}
	if c, ok := cat.GVKCandidate(g); ok {
		return advice(c)
	}
	return "no catalog given provides it"
}

func advice(c catalog.Candidate) string {
	return fmt.Sprintf("OLM v0 would install %s (package %s, channel %s): add package %s to the registry and request it",
		c.Bundle.Name, c.Bundle.Package, c.Channel, c.Bundle.Package)
}
