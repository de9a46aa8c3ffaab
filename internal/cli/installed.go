package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/cluster/live"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/installed"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

type installedFlags struct {
	snapshots   []string
	live        bool
	kubeconfig  string
	context     string
	timeout     time.Duration
	deadline    time.Duration
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
odlm-render render) instead: each is installed, pending, failed, missing or drifted (see the
README). --fail-on-drift exits 1 when any drifted.

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
	cmd.Flags().BoolVar(&f.live, "live", false, "read the cluster of the kubeconfig (LIST requests of Subscriptions, ClusterServiceVersions and OperatorGroups in all namespaces; read-only)")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context for --live (default: the current context)")
	cmd.Flags().DurationVar(&f.timeout, "live-timeout", live.DefaultTimeout, "timeout of each --live request")
	cmd.Flags().DurationVar(&f.deadline, "live-deadline", live.DefaultDeadline, "deadline of the whole --live read, all requests together")
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
	case len(f.snapshots) == 0 && !f.live:
		return usage("installed needs --snapshot PATH or --live")
	case len(f.snapshots) > 0 && f.live:
		return usage("--snapshot and --live are exclusive: installed reads one cluster state")
	case !f.live && (f.kubeconfig != "" || f.context != ""):
		return usage("--kubeconfig and --context only apply with --live")
	case f.live && f.deadline <= 0:
		return usage("--live-deadline must be more than 0 (got %s)", f.deadline)
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
	var (
		state   installed.Cluster
		results diag.Results
		lister  *installed.LiveLister
	)
	if f.live {
		var err error
		lister, err = installed.NewLiveLister(installed.LiveOptions{Kubeconfig: f.kubeconfig, Context: f.context, Timeout: f.timeout, Deadline: f.deadline})
		if err != nil {
			return fmt.Errorf("--live: %w", err)
		}
		var rs diag.Results
		state, rs, err = lister.Read(f.all)
		if err != nil {
			return fmt.Errorf("--live: %w", err)
		}
		results = append(results, rs...)
	} else {
		objs, err := readInstalledPaths(f.snapshots, stdin)
		if err != nil {
			return fmt.Errorf("--snapshot: %w", err)
		}
		state = installed.FromObjects(objs)
		if state.Empty() {
			results = append(results, diag.Result{Severity: diag.Warning, Message: fmt.Sprintf("--snapshot %s holds no Subscription, ClusterServiceVersion or OperatorGroup (%s)", strings.Join(f.snapshots, " "), installed.OLMGroup)})
		}
	}
	results = append(results, state.Validate()...)
	if results.HasErrors() {
		printResults(stderr, results.Sort(), false)
		return errReported
	}

	var buf bytes.Buffer
	if len(f.against) > 0 {
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
		if drifted := installed.DriftedChecks(checks); f.failOnDrift && len(drifted) > 0 {
			names := make([]string, len(drifted))
			for i, c := range drifted {
				names[i] = c.Namespace + "/" + c.Name
			}
			return fmt.Errorf("%d Subscription(s) drifted from the rendered ones: %s", len(drifted), strings.Join(names, ", "))
		}
		return nil
	}

	opts := installed.Options{Namespace: f.namespace, AllNamespaces: f.all}
	if opts.Namespace == "" && lister != nil {
		opts.Namespace = lister.Namespace()
	}
	items, rs := installed.Compute(state, opts)
	results = append(results, rs...)
	var err error
	if len(items) > 0 {
		if f.output == "yaml" {
			rs, err = installed.WriteYAML(&buf, items)
			results = append(results, rs...)
		} else {
			err = installed.WriteTable(&buf, items, f.all)
		}
		if err != nil {
			return err
		}
	}
	printResults(stderr, results.Sort(), false)
	if len(items) == 0 {
		if f.all {
			fmt.Fprintln(stderr, "No resources found.")
		} else {
			fmt.Fprintf(stderr, "No resources found in %s namespace.\n", opts.Namespace)
		}
		return nil
	}
	_, err = stdout.Write(buf.Bytes())
	return err
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
