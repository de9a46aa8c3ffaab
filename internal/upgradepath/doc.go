// Package upgradepath owns one question about a catalog: which path OLM v0 takes, hop by hop,
// from the CSV a Subscription has installed to a target bundle of a channel, or why there is
// none. It reads a pkg/catalog Package and knows nothing of ODLM or of a cluster.
//
// How OLM v0 picks an update (operator-lifecycle-manager's resolver, getSubscriptionVariables
// and sortChannel; operator-registry's FBC model), which Find follows:
//   - OLM finds the installed CSV by name among the CSVs on the cluster, not in the channel,
//     and takes as candidates the entries of the Subscription's channel that replace it, list
//     it in skips, or whose skipRange contains its version. So after a channel change the
//     installed CSV need not be an entry of the new channel: some entry must have an edge from
//     it.
//   - Candidates are ordered as sortChannel orders the channel: from the head down the
//     replaces chain, leaving out every entry that another entry skips (OLM never updates to a
//     skipped entry). The solver prefers the first candidate, so OLM takes the one nearest
//     the head.
//   - One update is one hop; OLM resolves again from the new CSV, until no entry has an edge
//     from it (the head, normally).
//   - A skipRange that does not parse as a semver range is ignored, as OLM ignores it.
//   - The installed version is the cluster CSV's spec.version (FindFrom), so a CSV the
//     catalog pruned is still reached by a skipRange; Find takes the catalog bundle's.
//   - A bundle with the olm.deprecated property is never a candidate.
//   - At the channel head OLM keeps resolving: an older entry whose skipRange holds the
//     head's version takes the operator back, and the head replaces it again (Path.Loop).
//
// OLM's own resolver is the oracle: oracle_test.go runs OLM v0's step resolver
// (internal/olmresolve) on every channel and installed bundle of the test catalogs and
// requires the same hops. Dependencies are not this package's: a bundle whose dependency no
// catalog offers is not installed by OLM at all (internal/olmresolve answers that).
//
// What it must not do: panic on any catalog (cycles, several heads, missing bundles are
// errors or "no path"), or depend on map order (output is deterministic).
package upgradepath
