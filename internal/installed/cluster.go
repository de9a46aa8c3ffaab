// Package installed computes the "Installed" view of OLM's Installed Operator API proposal
// (packages.operators.coreos.com/v2alpha1 Installed): for every namespace an operator is
// configured to watch, one object per installed operator that embeds its Subscription and a
// sanitized ClusterServiceVersion. The proposal synthesizes the view in an extension API
// server; this package computes the same thing from Subscriptions, ClusterServiceVersions
// and OperatorGroups read from a snapshot or (read-only) from a live cluster.
//
// It also compares the view with a rendered manifest set (Against): which rendered
// Subscriptions are installed, pending, failed, missing or drifted from their pin.
package installed

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// OLM's API group and the kinds this package reads.
const (
	OLMGroup             = "operators.coreos.com"
	KindSubscription     = "Subscription"
	KindCSV              = "ClusterServiceVersion"
	KindOperatorGroup    = "OperatorGroup"
	annotationTargets    = "olm.targetNamespaces"
	annotationGroup      = "olm.operatorGroup"
	labelCopiedFrom      = "olm.copiedFrom"
	phaseSucceeded       = "Succeeded"
	phaseFailed          = "Failed"
	reasonCopied         = "Copied"
	approvalRequired     = "RequiresApproval"
	stateUpgradeFailed   = "UpgradeFailed"
	conditionIPPending   = "InstallPlanPending"
	conditionIPMissing   = "InstallPlanMissing"
	conditionStatusTrue  = "True"
	allNamespacesTarget  = ""
	operatorGroupVersion = "v1"
)

// Cluster is the cluster state the view is computed from.
type Cluster struct {
	Subscriptions  []*manifest.Object
	CSVs           []*manifest.Object // copied CSVs included: they are skipped by the view
	OperatorGroups []*manifest.Object
	// Namespaces are the names of the Namespace objects known to exist (for -A: operators
	// watching all namespaces are listed in each).
	Namespaces []string
}

// FromObjects picks Subscriptions, ClusterServiceVersions, OperatorGroups and Namespaces out
// of a snapshot (any version of operators.coreos.com; other objects are ignored). The same
// object twice (group, kind, namespace and name) is taken once: the later one wins, as in
// cluster.Snapshot.
func FromObjects(objs []*manifest.Object) Cluster {
	byKey := map[manifest.Key]*manifest.Object{}
	var keys []manifest.Key
	for _, o := range objs {
		k := o.Ref().Key()
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = o
	}
	var c Cluster
	for _, k := range keys {
		o := byKey[k]
		switch {
		case o.Group() == "" && o.Kind() == "Namespace":
			if n := o.Name(); n != "" {
				c.Namespaces = append(c.Namespaces, n)
			}
		case o.Group() != OLMGroup:
		case o.Kind() == KindSubscription:
			c.Subscriptions = append(c.Subscriptions, o)
		case o.Kind() == KindCSV:
			c.CSVs = append(c.CSVs, o)
		case o.Kind() == KindOperatorGroup:
			c.OperatorGroups = append(c.OperatorGroups, o)
		}
	}
	c.sort()
	return c
}

// Empty reports a cluster state without any OLM object.
func (c Cluster) Empty() bool {
	return len(c.Subscriptions)+len(c.CSVs)+len(c.OperatorGroups) == 0
}

func (c *Cluster) sort() {
	for _, l := range [][]*manifest.Object{c.Subscriptions, c.CSVs, c.OperatorGroups} {
		sortObjects(l)
	}
	sort.Strings(c.Namespaces)
}

func sortObjects(l []*manifest.Object) {
	sort.SliceStable(l, func(i, j int) bool {
		if a, b := l[i].Namespace(), l[j].Namespace(); a != b {
			return a < b
		}
		return l[i].Name() < l[j].Name()
	})
}

// field says a field the view reads and the type it must have.
type field struct {
	path []string
	kind string // "string", "strings" (a list of strings), "map", "list"
}

var (
	subscriptionFields = []field{
		{[]string{"spec"}, "map"},
		{[]string{"spec", "channel"}, "string"},
		{[]string{"spec", "name"}, "string"},
		{[]string{"spec", "source"}, "string"},
		{[]string{"spec", "sourceNamespace"}, "string"},
		{[]string{"spec", "startingCSV"}, "string"},
		{[]string{"status"}, "map"},
		{[]string{"status", "installedCSV"}, "string"},
		{[]string{"status", "currentCSV"}, "string"},
		{[]string{"status", "state"}, "string"},
		{[]string{"status", "reason"}, "string"},
		{[]string{"status", "conditions"}, "list"},
	}
	csvFields = []field{
		{[]string{"metadata", "annotations", annotationTargets}, "string"},
		{[]string{"metadata", "annotations", annotationGroup}, "string"},
		{[]string{"metadata", "labels", labelCopiedFrom}, "string"},
		{[]string{"spec"}, "map"},
		{[]string{"spec", "version"}, "string"},
		{[]string{"spec", "replaces"}, "string"},
		{[]string{"status"}, "map"},
		{[]string{"status", "phase"}, "string"},
		{[]string{"status", "reason"}, "string"},
		{[]string{"status", "message"}, "string"},
	}
	operatorGroupFields = []field{
		{[]string{"spec"}, "map"},
		{[]string{"spec", "targetNamespaces"}, "strings"},
		{[]string{"spec", "selector"}, "map"},
		{[]string{"status"}, "map"},
		{[]string{"status", "namespaces"}, "strings"},
	}
)

// Validate checks what the view reads: names and namespaces, and the type of every field
// it uses. Each problem is an error naming the object, the field and its source line.
func (c Cluster) Validate() diag.Results {
	var rs diag.Results
	check := func(objs []*manifest.Object, fields []field) {
		for _, o := range objs {
			rs = append(rs, validateObject(o, true, fields)...)
		}
	}
	check(c.Subscriptions, subscriptionFields)
	check(c.CSVs, csvFields)
	check(c.OperatorGroups, operatorGroupFields)
	return rs
}

func validateObject(o *manifest.Object, namespaced bool, fields []field) diag.Results {
	var rs diag.Results
	if _, ok := manifest.Get(o.Map, "metadata", "name").(string); !ok || o.Name() == "" {
		rs = append(rs, diag.Errorf(o, "metadata.name", "a %s needs a name", o.Kind()))
	}
	if ns, ok := manifest.Get(o.Map, "metadata", "namespace").(string); namespaced && (!ok || ns == "") {
		rs = append(rs, diag.Errorf(o, "metadata.namespace", "a %s needs a namespace", o.Kind()))
	}
	for _, f := range fields {
		v, present := lookup(o.Map, f.path)
		if !present || v == nil {
			continue
		}
		path := manifest.Field("", pathSteps(f.path)...)
		switch f.kind {
		case "string":
			if _, ok := v.(string); !ok {
				rs = append(rs, diag.Errorf(o, path, "must be a string, not %s", describe(v)))
			}
		case "map":
			if _, ok := v.(map[string]any); !ok {
				rs = append(rs, diag.Errorf(o, path, "must be a map, not %s", describe(v)))
			}
		case "list":
			if _, ok := v.([]any); !ok {
				rs = append(rs, diag.Errorf(o, path, "must be a list, not %s", describe(v)))
			}
		case "strings":
			l, ok := v.([]any)
			if !ok {
				rs = append(rs, diag.Errorf(o, path, "must be a list of namespace names, not %s", describe(v)))
				continue
			}
			for i, e := range l {
				if _, ok := e.(string); !ok {
					rs = append(rs, diag.Errorf(o, manifest.Field(path, i), "must be a namespace name, not %s", describe(e)))
				}
			}
		}
	}
	if conds, ok := manifest.Get(o.Map, "status", "conditions").([]any); ok {
		for i, cnd := range conds {
			if _, ok := cnd.(map[string]any); !ok {
				rs = append(rs, diag.Errorf(o, manifest.Field("status.conditions", i), "must be a map, not %s", describe(cnd)))
			}
		}
	}
	return rs
}

func pathSteps(path []string) []any {
	out := make([]any, len(path))
	for i, p := range path {
		out[i] = p
	}
	return out
}

func lookup(m map[string]any, path []string) (any, bool) {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok = mm[k]
		if !ok {
			return nil, false
		}
	}
	return v, true
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case json.Number:
		return "the number " + x.String()
	}
	return manifest.Describe(v)
}

// str returns the string at path (validated beforehand), or "".
func str(o *manifest.Object, path ...string) string {
	if o == nil {
		return ""
	}
	return o.String(path...)
}

// stringList returns the list of strings at path and whether the field is set.
func stringList(o *manifest.Object, path ...string) ([]string, bool) {
	l, ok := manifest.Get(o.Map, path...).([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// isCopied reports a copy OLM makes of a CSV into each namespace its operator watches.
func isCopied(csv *manifest.Object) bool {
	return str(csv, "metadata", "labels", labelCopiedFrom) != "" || str(csv, "status", "reason") == reasonCopied
}

// conditionTrue returns the first condition of a type whose status is "True".
func conditionTrue(o *manifest.Object, ctype string) map[string]any {
	conds, _ := manifest.Get(o.Map, "status", "conditions").([]any)
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == ctype && m["status"] == conditionStatusTrue {
			return m
		}
	}
	return nil
}

// deepCopy copies a value tree.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
