package channel

import (
	"regexp"
	"slices"
	"sort"

	"golang.org/x/mod/semver"
)

// noVersion is what FindSemantic returns for a name without a version.
const noVersion = "v0.0.0"

var semanticRE = regexp.MustCompile(`\bv?(\d+)(\.\d+)?(\.\d+)?\b`)

// FindSemantic returns the first version-like part of a channel name (the
// first match of `\bv?(\d+)(\.\d+)?(\.\d+)?\b`, with Go's ASCII \b), or
// "v0.0.0" when there is none: "stable-v2.0" → "v2.0", "4.0" → "4.0",
// "release-2023" → "2023", "alpha" → "v0.0.0".
func FindSemantic(s string) string {
	if m := semanticRE.FindString(s); m != "" {
		return m
	}
	return noVersion
}

// Valid reports whether the pruned form of s is a valid semantic version.
func Valid(s string) bool {
	return semver.IsValid(FindSemantic(s))
}

// Compare compares the pruned forms of two channel names with
// semver.Compare: -1, 0 or +1. Invalid forms sort below valid ones and
// equal to each other.
func Compare(a, b string) int {
	return semver.Compare(FindSemantic(a), FindSemantic(b))
}

// Min returns the channel with the smallest pruned version, the rule used
// when several requests ask for different channels of one operator. A
// name without a version counts as v0.0.0; an invalid pruned form (such
// as "4.0" or "2023") sorts below every valid one, even v0.0.0. Ties go to
// the earliest channel in the slice. An empty slice gives "".
func Min(channels []string) string {
	if len(channels) == 0 {
		return ""
	}
	best := channels[0]
	for _, c := range channels[1:] {
		if Compare(c, best) < 0 {
			best = c
		}
	}
	return best
}

// PickFallback returns the fallback channel ODLM uses when the requested
// channel is not in the catalog: fallbacks are tried by descending pruned
// version (stable: equal versions keep their order) and the first whose
// pruned form (not the fallback itself) is literally one of
// catalogChannels is returned as written in fallbacks. So a fallback
// "stable-v2.0" only matches a catalog channel named "v2.0". The second
// result is false when no fallback matches.
func PickFallback(catalogChannels []string, fallbacks []string) (string, bool) {
	ordered := slices.Clone(fallbacks)
	sort.SliceStable(ordered, func(i, j int) bool {
		return Compare(ordered[i], ordered[j]) > 0
	})
	for _, fb := range ordered {
		if slices.Contains(catalogChannels, FindSemantic(fb)) {
			return fb, true
		}
	}
	return "", false
}

// ODLMFindMinSemver mirrors ODLM's FindMinSemver over the channel names in
// list: "" for an empty list; cur when it is non-empty and its pruned form
// is among the pruned forms of list; otherwise the channel whose pruned
// form is smallest under semver.ByVersion (semver order, then string
// order). When several channels share that pruned form, the last one wins,
// as in ODLM's pruned-to-channel map.
func ODLMFindMinSemver(cur string, list []string) string {
	if len(list) == 0 {
		return ""
	}
	pruned := make([]string, len(list))
	original := make(map[string]string, len(list))
	for i, c := range list {
		pruned[i] = FindSemantic(c)
		original[pruned[i]] = c
	}
	if cur != "" && slices.Contains(pruned, FindSemantic(cur)) {
		return cur
	}
	sort.Sort(semver.ByVersion(pruned))
	return original[pruned[0]]
}
