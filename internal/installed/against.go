package installed

import (
	"fmt"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Status is what became of a rendered Subscription in the cluster.
type Status string

// The statuses, from the most to the least urgent (a Subscription gets the first that
// applies; Check.Drifted tells drift apart whatever the status).
const (
	// StatusMissing: the cluster has no such Subscription (not applied yet, or deleted).
	StatusMissing Status = "missing"
	// StatusFailed: a Subscription condition OLM does not get past (InstallPlanFailed,
	// BundleUnpackFailed, ResolutionFailed; InstallPlanMissing while nothing is installed),
	// state UpgradeFailed, or the CSV (installedCSV's, else currentCSV's) in phase Failed.
	StatusFailed Status = "failed"
	// StatusDrifted: the cluster Subscription's channel, package, source or sourceNamespace
	// differs from the rendered one, or an installedCSV is set and is not the rendered
	// startingCSV pin.
	StatusDrifted Status = "drifted"
	// StatusPending: no installedCSV yet (resolving, or the InstallPlan awaits approval),
	// or its CSV does not exist or is not Succeeded yet.
	StatusPending Status = "pending"
	// StatusInstalled: installedCSV is set (and is the pin, when pinned) and its CSV is
	// Succeeded.
	StatusInstalled Status = "installed"
)

// Check is the verdict on one rendered Subscription.
type Check struct {
	Namespace, Name string
	Status          Status
	// Drifted is set when the Subscription drifted, even if its Status is failed.
	Drifted bool
	// Channel and Pin are the rendered spec.channel and spec.startingCSV.
	Channel, Pin string
	// Subscription is the cluster's Subscription matched ("" when missing); InstalledCSV
	// its status.installedCSV and Phase that CSV's phase.
	Subscription, InstalledCSV, Phase string
	// Details explain the status, in a fixed order.
	Details []string
}

// RenderedSubscriptions picks the Subscriptions out of a rendered manifest set and checks
// the fields Against reads. It is an error when there is none.
func RenderedSubscriptions(objs []*manifest.Object, what string) ([]*manifest.Object, diag.Results) {
	var subs []*manifest.Object
	var rs diag.Results
	for _, o := range objs {
		if o.Group() != OLMGroup || o.Kind() != KindSubscription {
			continue
		}
		subs = append(subs, o)
		rs = append(rs, validateObject(o, true, subscriptionFields)...)
	}
	if len(subs) == 0 {
		rs = append(rs, diag.Result{Severity: diag.Error, Message: fmt.Sprintf("%s holds no Subscription (%s): nothing to check", what, OLMGroup)})
	}
	sortObjects(subs)
	return subs, rs
}

// Against checks each rendered Subscription (of namespace, or all when "") against the
// cluster: the cluster Subscription of the same namespace and name, else the only one of
// the same namespace and package. Checks are sorted by namespace and name.
func Against(rendered []*manifest.Object, c Cluster, namespace string) []Check {
	csvs := indexCSVs(c)
	byName := map[string]*manifest.Object{}
	byPackage := map[string][]*manifest.Object{}
	for _, s := range c.Subscriptions {
		byName[s.Namespace()+"/"+s.Name()] = s
		if p := str(s, "spec", "name"); p != "" {
			byPackage[s.Namespace()+"/"+p] = append(byPackage[s.Namespace()+"/"+p], s)
		}
	}
	var checks []Check
	for _, want := range rendered {
		if namespace != "" && want.Namespace() != namespace {
			continue
		}
		ch := Check{
			Namespace: want.Namespace(),
			Name:      want.Name(),
			Channel:   str(want, "spec", "channel"),
			Pin:       str(want, "spec", "startingCSV"),
		}
		have := byName[want.Namespace()+"/"+want.Name()]
		if have == nil {
			if same := byPackage[want.Namespace()+"/"+str(want, "spec", "name")]; len(same) == 1 {
				have = same[0]
				ch.Details = append(ch.Details, fmt.Sprintf("matched Subscription %s by package", have.Name()))
			}
		}
		if have == nil {
			ch.Status = StatusMissing
			ch.Details = append(ch.Details, "no such Subscription in the cluster")
			checks = append(checks, ch)
			continue
		}
		ch.Subscription = have.Name()
		ch.check(want, have, csvs)
		checks = append(checks, ch)
	}
	sort.SliceStable(checks, func(i, j int) bool {
		if checks[i].Namespace != checks[j].Namespace {
			return checks[i].Namespace < checks[j].Namespace
		}
		return checks[i].Name < checks[j].Name
	})
	return checks
}

// check gives the verdict on a rendered Subscription (want) the cluster has (have): the
// details of each status, from the most to the least urgent, and the first status with any.
func (ch *Check) check(want, have *manifest.Object, csvs csvIndex) {
	st := observe(have, csvs)
	ch.InstalledCSV, ch.Phase = st.installed, st.phase
	failed := st.failures()
	drift := ch.drifts(want, have)
	pending := st.pending()
	ch.Drifted = len(drift) > 0
	switch {
	case len(failed) > 0:
		ch.Status = StatusFailed
	case ch.Drifted:
		ch.Status = StatusDrifted
	case len(pending) > 0:
		ch.Status = StatusPending
	default:
		ch.Status = StatusInstalled
	}
	for _, l := range [][]string{failed, drift, pending, st.notes()} {
		ch.Details = append(ch.Details, l...)
	}
}

// subState is what the cluster shows of a Subscription's install.
type subState struct {
	sub *manifest.Object
	// installed and current are status.installedCSV and status.currentCSV; csv is the
	// installed CSV (nil when there is none or it is not found) and phase its phase.
	installed, current, phase string
	csv                       *manifest.Object
	// phaseCSV is the CSV whose phase tells a failure: the installed one, else the current one.
	phaseCSV *manifest.Object
	// plan names the InstallPlan; awaitsApproval is set when it waits for a manual approval.
	plan           string
	awaitsApproval bool
}

func observe(sub *manifest.Object, csvs csvIndex) subState {
	ns := sub.Namespace()
	st := subState{sub: sub, installed: str(sub, "status", "installedCSV"), current: str(sub, "status", "currentCSV"), plan: installPlanName(sub)}
	st.csv = csvs.get(ns, st.installed)
	st.phaseCSV = st.csv
	if st.phaseCSV == nil {
		st.phaseCSV = csvs.get(ns, st.current)
	}
	if st.csv != nil {
		st.phase = str(st.csv, "status", "phase")
	}
	approval := conditionTrue(sub, conditionIPPending)
	st.awaitsApproval = approval != nil && approval["reason"] == approvalRequired
	return st
}

// failures are the Subscription's failure and its CSV's Failed phase.
func (st subState) failures() []string {
	var failed []string
	if f := subscriptionFailure(st.sub); f != "" {
		failed = append(failed, f)
	}
	if st.phaseCSV != nil && str(st.phaseCSV, "status", "phase") == phaseFailed {
		failed = append(failed, "ClusterServiceVersion "+st.phaseCSV.Name()+" is Failed"+suffix(str(st.phaseCSV, "status", "reason"), str(st.phaseCSV, "status", "message")))
	}
	return failed
}

// drifts are the spec fields the cluster's Subscription changed and an installed CSV other
// than the pin.
func (ch *Check) drifts(want, have *manifest.Object) []string {
	var drift []string
	for _, f := range []string{"name", "channel", "source", "sourceNamespace"} {
		if w, h := str(want, "spec", f), str(have, "spec", f); w != h {
			drift = append(drift, fmt.Sprintf("spec.%s is %s, rendered %s", f, quoted(h), quoted(w)))
		}
	}
	if installed := ch.InstalledCSV; ch.Pin != "" && installed != "" && installed != ch.Pin {
		drift = append(drift, fmt.Sprintf("installed %s, pinned %s", installed, ch.Pin))
	}
	return drift
}

// pending tells why nothing is installed yet, or why the installed CSV is not Succeeded.
func (st subState) pending() []string {
	switch {
	case st.installed == "" && st.awaitsApproval:
		return []string{fmt.Sprintf("the install of %s awaits approval of %s", orUnknown(st.current), st.plan)}
	case st.installed == "":
		return []string{"nothing installed yet" + suffix(str(st.sub, "status", "state"), "")}
	case st.csv == nil:
		return []string{"ClusterServiceVersion " + st.installed + " not found"}
	case st.phase != phaseSucceeded && st.phase != phaseFailed: // Failed is told by failures
		return []string{"ClusterServiceVersion " + st.installed + " is " + orUnknown(st.phase)}
	}
	return nil
}

// notes tell an upgrade that awaits approval.
func (st subState) notes() []string {
	if st.installed != "" && st.awaitsApproval && st.current != "" && st.current != st.installed {
		return []string{fmt.Sprintf("the upgrade to %s awaits approval of %s", st.current, st.plan)}
	}
	return nil
}

// subscriptionFailure describes a Subscription failure OLM does not get past, or "".
func subscriptionFailure(sub *manifest.Object) string {
	for _, t := range []string{"InstallPlanFailed", "BundleUnpackFailed", "ResolutionFailed"} {
		if c := conditionTrue(sub, t); c != nil {
			return t + suffix(condString(c, "reason", t), condString(c, "message", ""))
		}
	}
	if str(sub, "status", "state") == stateUpgradeFailed {
		return "state " + stateUpgradeFailed + suffix(str(sub, "status", "reason"), "")
	}
	if c := conditionTrue(sub, conditionIPMissing); c != nil && str(sub, "status", "installedCSV") == "" {
		return conditionIPMissing + suffix(condString(c, "reason", conditionIPMissing), condString(c, "message", ""))
	}
	return ""
}

func condString(c map[string]any, key, skip string) string {
	s, _ := c[key].(string)
	if s == skip {
		return ""
	}
	return s
}

func installPlanName(sub *manifest.Object) string {
	for _, key := range []string{"installPlanRef", "installplan"} {
		if n := str(sub, "status", key, "name"); n != "" {
			return "InstallPlan " + n
		}
	}
	return "its InstallPlan"
}

// suffix is ": a: b" for the non-empty parts.
func suffix(parts ...string) string {
	var out strings.Builder
	for _, p := range parts {
		if p != "" {
			out.WriteString(": ")
			out.WriteString(p)
		}
	}
	return out.String()
}

func quoted(s string) string {
	if s == "" {
		return "unset"
	}
	return fmt.Sprintf("%q", s)
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// DriftedChecks returns the checks that drifted.
func DriftedChecks(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if c.Drifted {
			out = append(out, c)
		}
	}
	return out
}
