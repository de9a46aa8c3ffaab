package upgradepath

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/odlm-render/odlm-render/pkg/catalog"
)

const (
	schemaBundle            = "olm.bundle"
	propMaxOpenShiftVersion = "olm.maxOpenShiftVersion"
)

// maxOpenShiftText is the olm.maxOpenShiftVersion of a bundle as written, "" when it has
// none; several are joined with ", ".
func maxOpenShiftText(b *catalog.Bundle) string {
	var values []string
	for _, p := range b.Properties {
		if p.Type == propMaxOpenShiftVersion {
			values = append(values, scalarText(p.Value))
		}
	}
	return strings.Join(values, ", ")
}

// scalarText is a property value as text: a string, or a number as the catalog wrote it
// (json.Number keeps "4.10" as "4.10").
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// AllowsOpenShift reports whether To may run on the OpenShift version given (such as "4.20"
// or "4.20.3"): true when To has no olm.maxOpenShiftVersion, or when its major.minor is not
// above it. OLM marks a cluster not Upgradeable to any minor version above the installed CSVs'
// maximum, reading the property as it is read here: quotes trimmed, a tolerant semver that
// must be <major>.<minor> only, exactly one per CSV, and 4.23 taken as 5.0. The error names
// the bundle when the property or the version does not read.
func (h Hop) AllowsOpenShift(version string) (bool, error) {
	if h.MaxOpenShiftVersion == "" {
		return true, nil
	}
	maxVersion, err := parseMaxOpenShift(h.MaxOpenShiftVersion)
	if err != nil {
		return false, fmt.Errorf("bundle %s: %s %q: %w", h.To, propMaxOpenShiftVersion, h.MaxOpenShiftVersion, err)
	}
	v, err := semver.ParseTolerant(version)
	if err != nil {
		return false, fmt.Errorf("OpenShift version %q: %w", version, err)
	}
	return !majorMinor(maxVersion).LT(majorMinor(v)), nil
}

// parseMaxOpenShift reads an olm.maxOpenShiftVersion value as OLM does.
func parseMaxOpenShift(text string) (semver.Version, error) {
	if strings.Contains(text, ", ") {
		return semver.Version{}, fmt.Errorf("more than one %s property (OLM rejects it)", propMaxOpenShiftVersion)
	}
	value := strings.Trim(text, `"`)
	if value == "" {
		return semver.Version{}, fmt.Errorf("empty value")
	}
	v, err := semver.ParseTolerant(value)
	if err != nil {
		return semver.Version{}, err
	}
	if !v.EQ(semver.Version{Major: v.Major, Minor: v.Minor}) {
		return semver.Version{}, fmt.Errorf("not <major>.<minor> only")
	}
	return v, nil
}

// majorMinor keeps the major and minor of v, 4.23 being 5.0 (OpenShift's own equivalence,
// which OLM applies).
func majorMinor(v semver.Version) semver.Version {
	if v.Major == 4 && v.Minor == 23 {
		return semver.Version{Major: 5}
	}
	return semver.Version{Major: v.Major, Minor: v.Minor}
}
