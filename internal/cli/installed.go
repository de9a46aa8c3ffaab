package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/installed"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

type installedFlags struct {
	snapshots   []string
	live        liveFlags
	namespace   string
	all         bool
	output      string
	against     []string
	failOnDrift bool
}

// newInstalledCmd is `odlm-render installed`: OLM's proposed Installed view, from a snapshot
// or a live cluster, or a check of rendered Subscriptions against it (--against).
func newInstalledCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f installedFlags
	cmd := &cobra.Command{
		Use:   "installed (--snapshot PATH... | --live) [-n NS | -A] [-o table|yaml] [--against PATH... [--fail-on-drift]]",
		Short: "Show the operators installed for each watched namespace, or check rendered Subscriptions against them",
		Long: `installed reads Subscriptions, ClusterServiceVersions and OperatorGroups from a snapshot
(kubectl get -o yaml exports; "-" is stdin) or a live cluster (LIST requests only, read-only)
and prints, for each namespace an operator is configured to watch, OLM's proposed Installed
view: a table (NAME, INSTALLATION_NAMESPACE, CHANNEL, CURRENT_VERSION, TARGET_VERSION, PHASE)
or, with -o yaml, packages.operators.coreos.com/v2alpha1 Installed objects embedding the
Subscription and a sanitized CSV.

With --against, it checks the Subscriptions of a rendered manifest set (the output of
odlm-render render) instead: each is installed, pending, failed, missing or drifted (see
docs/installed.md). --fail-on-drift exits 1 when any drifted.

Exit status: 0 success, 1 when any error was found (or a drift with --fail-on-drift),
2 for wrong usage.`,
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkInstalledFlags(f, args); err != nil {
				return err
			}
			return runInstalled(f, stdin, stdout, stderr)
		},
	}
	cmd.Flags().StringArrayVar(&f.snapshots, "snapshot", nil, "objects exported from a cluster (kubectl get -o yaml): a file or folder, \"-\" for stdin; repeatable")
	f.live.bind(cmd.Flags(), liveHelp{
		live:     "read the cluster of the kubeconfig (LIST requests of Subscriptions, ClusterServiceVersions and OperatorGroups in all namespaces; read-only)",
		deadline: "deadline of the whole --live read, all requests together",
	})
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "the watched namespace to show (default with --live: the kubeconfig context's); with --against, check only its Subscriptions")
	cmd.Flags().BoolVarP(&f.all, "all-namespaces", "A", false, "show every namespace")
	cmd.Flags().StringVarP(&f.output, "output", "o", "table", "output format: table or yaml")
	cmd.Flags().StringArrayVar(&f.against, "against", nil, "a rendered manifest set (files or folders, \"-\" for stdin; repeatable): report which of its Subscriptions are installed, pending, failed, missing or drifted")
	cmd.Flags().BoolVar(&f.failOnDrift, "fail-on-drift", false, "with --against: exit 1 when any Subscription drifted from the rendered one")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

func checkInstalledFlags(f installedFlags, args []string) error {
	usage := func(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }
	switch {
	case len(args) > 0:
		return usage("installed takes no PATH arguments (got %q): give --snapshot PATH or --live", args[0])
	case len(f.snapshots) == 0 && !f.live.on:
		return usage("installed needs --snapshot PATH or --live")
	case len(f.snapshots) > 0 && f.live.on:
		return usage("--snapshot and --live are exclusive: installed reads one cluster state")
	case f.live.kubeconfigWithoutLive():
		return errKubeconfigWithoutLive
	case f.live.on && f.live.deadline <= 0:
		return usage("--live-deadline must be more than 0 (got %s)", f.live.deadline)
	case f.namespace != "" && f.all:
		return usage("-n and -A are exclusive")
	case f.output != "table" && f.output != "yaml":
		return usage("-o must be table or yaml, not %q", f.output)
	case f.failOnDrift && len(f.against) == 0:
		return usage("--fail-on-drift goes with --against")
	case len(f.against) > 0 && f.all:
		return usage("-A does not apply with --against (every rendered Subscription is checked; -n restricts to one namespace)")
	case len(f.snapshots) > 0 && len(f.against) == 0 && f.namespace == "" && !f.all:
		return usage("with --snapshot, give -n NS or -A")
	case countStdin(f.snapshots)+countStdin(f.against) > 1:
		return usage("stdin (\"-\") can be read only once")
	}
	return nil
}

func countStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	return n
}

func runInstalled(f installedFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	state, results, namespace, err := readClusterState(f, stdin)
	if err != nil {
		return err
	}
	results = append(results, state.Validate()...)
	if results.HasErrors() {
		printResults(stderr, results.Sort(), false)
		return errReported
	}
	if len(f.against) > 0 {
		return checkAgainst(f, state, results, stdin, stdout, stderr)
	}
	if f.namespace != "" {
		namespace = f.namespace
	}
	return showInstalled(f, state, results, namespace, stdout, stderr)
}

// readClusterState reads the cluster state installed shows, from a live cluster or
// snapshots; namespace is the kubeconfig context's ("" for snapshots).
func readClusterState(f installedFlags, stdin io.Reader) (state installed.Cluster, rs diag.Results, namespace string, err error) {
	if f.live.on {
		lister, err := f.live.lister()
		if err != nil {
			return state, nil, "", err
		}
		state, rs, err = lister.Read(f.all)
		if err != nil {
			return state, nil, "", fmt.Errorf("--live: %w", err)
		}
		return state, rs, lister.Namespace(), nil
	}
	objs, err := readInstalledPaths(f.snapshots, stdin)
	if err != nil {
		return state, nil, "", fmt.Errorf("--snapshot: %w", err)
	}
	state = installed.FromObjects(objs)
	if state.Empty() {
		rs = append(rs, diag.Result{Severity: diag.Warning, Message: fmt.Sprintf("--snapshot %s holds no Subscription, ClusterServiceVersion or OperatorGroup (%s)", strings.Join(f.snapshots, " "), installed.OLMGroup)})
	}
	return state, rs, "", nil
}

// checkAgainst checks the rendered Subscriptions of --against against the cluster state.
func checkAgainst(f installedFlags, state installed.Cluster, results diag.Results, stdin io.Reader, stdout, stderr io.Writer) error {
	objs, err := readInstalledPaths(f.against, stdin)
	if err != nil {
		return fmt.Errorf("--against: %w", err)
	}
	subs, rs := installed.RenderedSubscriptions(objs, "--against "+strings.Join(f.against, " "))
	results = append(results, rs...)
	printResults(stderr, results.Sort(), false)
	if results.HasErrors() {
		return errReported
	}
	checks := installed.Against(subs, state, f.namespace)
	if len(checks) == 0 {
		fmt.Fprintf(stderr, "No rendered Subscription in namespace %s.\n", f.namespace)
		return nil
	}
	var buf bytes.Buffer
	if f.output == "yaml" {
		err = installed.WriteChecksYAML(&buf, checks)
	} else {
		err = installed.WriteChecksTable(&buf, checks)
	}
	if err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	return driftError(f.failOnDrift, checks)
}

// driftError is the error of --fail-on-drift when Subscriptions drifted.
func driftError(failOnDrift bool, checks []installed.Check) error {
	drifted := installed.DriftedChecks(checks)
	if !failOnDrift || len(drifted) == 0 {
		return nil
	}
	names := make([]string, len(drifted))
	for i, c := range drifted {
		names[i] = c.Namespace + "/" + c.Name
	}
	return fmt.Errorf("%d Subscription(s) drifted from the rendered ones: %s", len(drifted), strings.Join(names, ", "))
}

// showInstalled prints the Installed view of namespace (or every namespace with -A).
func showInstalled(f installedFlags, state installed.Cluster, results diag.Results, namespace string, stdout, stderr io.Writer) error {
	items, rs := installed.Compute(state, installed.Options{Namespace: namespace, AllNamespaces: f.all})
	results = append(results, rs...)
	var buf bytes.Buffer
	if len(items) > 0 {
		rs, err := writeInstalled(&buf, items, f)
		results = append(results, rs...)
		if err != nil {
			return err
		}
	}
	printResults(stderr, results.Sort(), false)
	switch {
	case len(items) > 0:
		_, err := stdout.Write(buf.Bytes())
		return err
	case f.all:
		fmt.Fprintln(stderr, "No resources found.")
	default:
		fmt.Fprintf(stderr, "No resources found in %s namespace.\n", namespace)
	}
	return nil
}

// writeInstalled writes the Installed view as -o says.
func writeInstalled(w io.Writer, items []installed.Item, f installedFlags) (diag.Results, error) {
	if f.output == "yaml" {
		return installed.WriteYAML(w, items)
	}
	return nil, installed.WriteTable(w, items, f.all)
}

// readInstalledPaths reads files and folders of objects ("-" is stdin).
func readInstalledPaths(paths []string, stdin io.Reader) ([]*manifest.Object, error) {
	docs, err := inputs.ReadPaths(paths, stdin)
	if err != nil {
		return nil, err
	}
	set, err := inputs.Classify(docs)
	if err != nil {
		return nil, err
	}
	return set.Resources, nil
}
