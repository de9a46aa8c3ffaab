package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/output"
	"github.com/odlm-render/odlm-render/internal/plan"
	"github.com/odlm-render/odlm-render/internal/template/secret"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// planFlags are the render's flags (the same Subscriptions are decided) and how the plan is
// written.
type planFlags struct {
	renderFlags
	format, openShiftVersion string
	failOn                   []string
}

// planHelp is plan's --help: what it compares, the JSON shape, the exit status.
const planHelp = `Plan renders PATH... as render does (the same flags decide the same Subscriptions) and
compares, for every operator the render installs, the cluster as exported in --snapshot (or
read with --live) with what the render leads to:

  from -> to     the CSV installed now (the Subscription's status.installedCSV, else a CSV of
                 the package in its namespace; with --olm v1, else the ClusterExtension's
                 status.install.bundle) and the one the render's Subscription leads to;
                 new installs, and ODLM's Subscriptions (label operator.ibm.com/opreq-control;
                 with --olm v1, also its ClusterExtensions) whose package the render no
                 longer installs, are listed as such; "channel
                 A -> B" when the render moves the Subscription to another channel, where
                 OLM's path is then found
  path           the hops OLM v0 takes, with deprecations, olm.maxOpenShiftVersion
                 (flagged when below --openshift-version) and the CSV's minKubeVersion
                 (flagged when above --kube-version: OLM does not install that bundle)
  CRDs           OLM v1's CRD upgrade safety checks of the CRDs of each hop's bundle whose
                 contents the catalog carries (against the CRD the cluster has by then: its
                 own, or the previous hop's) and of the target bundle, and the cluster's custom
                 resources each new schema refuses or prunes
  permissions    the rules the target bundle grants or drops against the installed CSV's,
                 escalations marked (wildcards, secrets, escalate/bind/impersonate, a rule
                 moved from namespaced to cluster-wide)

  objects        the target bundle's other manifests, each created or updated (whether it
                 exists in the install namespace or cluster-wide; their contents are not
                 compared)

and, for the render as a whole, every object it generates against the cluster's object of
the same group, kind, namespace and name: added (not in the cluster), changed (the JSON
paths of the fields it adds or changes, old and new values shortened to 60 characters;
status, metadata.uid, resourceVersion, generation, creationTimestamp, managedFields,
selfLink and the annotations kubectl.kubernetes.io/last-applied-configuration and
deployment.kubernetes.io/revision are ignored, and so is a field the cluster has that the
render does not set, which apply leaves), unchanged (counted), and removed: objects with
the label operator.ibm.com/opreq-control: "true" the render no longer generates, searched
among every kind the cluster holds (--snapshot: the kinds of its objects; --live: every
kind discovery lists with the list verb, in its preferred version, asked for with a label
selector so that no other object is read) and the kinds the render generates. A kind the
--live user may not list is not searched, and a plan note names it. A Secret's data and
stringData, every field the render filled from a Secret (its value before and after), and
any value holding a value (3 characters or more) of a Secret the render writes or the
cluster has with ODLM's label, print as "(value hidden)".

A cluster that serves no OLM kinds (OLM not installed yet) is no error: every operator is
a new install, and a plan note says that installed versions, upgrade paths and removed
operators could not be read. A read the --live user is forbidden (other than the search
for removed objects) is an error naming the resource and the verb RBAC must allow.

-o text (default), json (a stable shape: {"operators": [{name, namespace, package, channel, fromChannel,
action, from, to, path [{from, to, via, version, maxOpenShiftVersion, openShiftBlocked, minKubeVersion,
kubeBlocked}],
pathError, deprecations, crdChanges [{bundle, crd, version, field, rule, safe, message}],
storedObjects [{crd, object, field, reason}], rbac {added, removed} (rules: scope,
serviceAccount, apiGroups, resources, resourceNames, nonResourceURLs, verbs, escalations),
objects [{apiVersion, kind, name, action}], notes, dependencyOf (the operators of the
namespace OLM installs or updates it with, as their bundles require it: "" for the render's
own), dependencyReason}], objects {added [{apiVersion, kind,
namespace, name}], changed [{apiVersion, kind, namespace, name, fields [{path, change
(added, changed or removed), old, new}]}], unchanged (a count), removed [{apiVersion, kind,
namespace, name}]}, notes [what could not be read of the cluster as a whole, and why]};
every list is present, [] when empty) or markdown (a pull-request comment). Text and
markdown print the plan notes first.

Exit status: 0 success, 1 when any error was found or, with --fail-on unsafe, when any CRD
change or stored object is unsafe or any added rule escalates, or, with --fail-on blocked,
when OLM will not bring an operator to its target (no path, a target behind the installed
CSV, a hop blocked by --openshift-version or --kube-version); 2 for wrong usage.`

func newPlanCmd(stdin io.Reader, stdout, stderr io.Writer, eng engine) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan [flags] PATH... --snapshot CLUSTER-EXPORT",
		Short: "Say what applying the render will do to a cluster, before it is applied",
		Long:  planHelp,
		Args:  needPaths("plan"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			return runPlan(f, args, stdin, output.Stream{Stdout: stdout, Stderr: stderr, Verbose: f.verbose}, eng)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&f.format, "output", "o", "text", "text, json or markdown")
	fs.StringSliceVar(&f.failOn, "fail-on", nil, "unsafe (an unsafe CRD change, a stored object the new schema breaks, an escalating rule) or blocked (no path, a target behind the installed CSV, a hop the cluster's version blocks): exit 1 when any is found; repeatable or comma-separated")
	fs.StringVar(&f.openShiftVersion, "openshift-version", "", "the cluster's OpenShift version X.Y: flag hops whose olm.maxOpenShiftVersion is below it")
	f.output = "yaml"
	f.bindInputFlags(cmd, inputHelp{
		catalog:  "an OLM file-based catalog or a CatalogSnapshot (repeatable): the new catalog",
		snapshot: "objects exported from the cluster (repeatable)",
		live:     "read the cluster of the kubeconfig, read-only, instead of or after --snapshot",
	})
	return cmd
}

func (f planFlags) check() error {
	switch f.format {
	case "text", "json", "markdown":
	default:
		return usageError{fmt.Errorf("-o %q: text, json or markdown", f.format)}
	}
	for _, v := range f.failOn {
		if v != failOnUnsafe && v != failOnBlocked {
			return usageError{fmt.Errorf("--fail-on %q: unsafe or blocked", v)}
		}
	}
	if len(f.snapshots) == 0 && !f.live.on {
		return usageError{errors.New("plan needs --snapshot CLUSTER-EXPORT or --live: the cluster to compare with")}
	}
	return f.renderFlags.check()
}

// planBytes is the plan in the chosen format.
func planBytes(format string, p plan.Plan) ([]byte, error) {
	switch format {
	case "json":
		return p.JSON()
	case "markdown":
		return p.Markdown(), nil
	}
	return p.Text(), nil
}

// generated are the objects the render made (not the inputs it passes through), in its order.
func generated(out render.Output) []map[string]any {
	var objs []map[string]any
	for _, o := range out.Objects {
		if out.Generated[o] {
			objs = append(objs, o.Map)
		}
	}
	return objs
}

// secretFieldsByKey are the render's marks of Secret-derived fields, by object key.
func secretFieldsByKey(out render.Output) map[manifest.Key]secret.Fields {
	m := make(map[manifest.Key]secret.Fields, len(out.SecretFields))
	for o, f := range out.SecretFields {
		m[o.Ref().Key()] = f
	}
	return m
}

func runPlan(f planFlags, paths []string, stdin io.Reader, out output.Stream, eng engine) error {
	in, sources, answer, err := f.renderPaths(paths, stdin, eng, catalog.LoadOptions{AllContents: true})
	if err != nil {
		return err
	}
	if out.Results(answer.Results.Sort()) {
		return errReported
	}
	p, err := plan.Build(plan.Request{Installs: answer.Installs, Catalogs: in.Catalogs(), CatalogSources: answer.CatalogSources, Cluster: sources,
		Rendered: generated(answer), SecretFields: secretFieldsByKey(answer), OpenShiftVersion: f.openShiftVersion, KubeVersion: f.opts.KubeVersion, OLMv1: f.opts.OLM == render.OLMv1})
	if err != nil {
		return err
	}
	b, err := planBytes(f.format, p)
	if err != nil {
		return err
	}
	if _, err := out.Stdout.Write(b); err != nil {
		return err
	}
	return f.failed(p, out.Stderr)
}

// The --fail-on values.
const (
	failOnUnsafe  = "unsafe"
	failOnBlocked = "blocked"
)

// failed reports, and returns errReported, when the plan has what --fail-on names.
func (f planFlags) failed(p plan.Plan, stderr io.Writer) error {
	failed := false
	if n := p.Unsafe(); slices.Contains(f.failOn, failOnUnsafe) && n > 0 {
		fmt.Fprintf(stderr, "odlm-render: plan: %d unsafe finding(s) (--fail-on unsafe)\n", n)
		failed = true
	}
	if n := p.Blocked(); slices.Contains(f.failOn, failOnBlocked) && n > 0 {
		fmt.Fprintf(stderr, "odlm-render: plan: %d operator(s) OLM will not bring to the target (--fail-on blocked)\n", n)
		failed = true
	}
	if failed {
		return errReported
	}
	return nil
}
