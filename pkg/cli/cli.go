// Package cli owns the odlm-render command line: flags, exit codes and how results are
// printed on stderr. It lives in a package (not in cmd/) so that tests run it in-process.
package cli

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/odlm-render/odlm-render/internal/crash"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/health"
	"github.com/odlm-render/odlm-render/pkg/cluster"
	"github.com/odlm-render/odlm-render/pkg/cluster/live"
	"github.com/odlm-render/odlm-render/pkg/diag"
	"github.com/odlm-render/odlm-render/pkg/inputs"
	"github.com/odlm-render/odlm-render/pkg/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
	"github.com/odlm-render/odlm-render/pkg/version"
)

// Exit codes.
const (
	ExitOK     = 0
	ExitErrors = 1
	ExitUsage  = 2
)

type usageError struct{ error }

// Main runs the command and returns its exit code. A panic anywhere below (a bug) is one
// internal-error line on stderr and exit status 1; commands write stdout only once they
// have succeeded, so nothing reaches it.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "odlm-render: %v\n", crash.FromPanic(p))
			code = ExitErrors
		}
	}()
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "odlm-render: %v\n", err)
		return ExitUsage
	}
	if !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "odlm-render: %v\n", err)
	}
	return ExitErrors
}

var errReported = errors.New("errors were reported")

// renderEngine is the engine the commands call (tests swap it to check Main's last line of
// defence).
var renderEngine = render.Render

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "odlm-render",
		Short:         "Render ODLM OperandRequests, OperandRegistries and OperandConfigs into plain manifests",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRenderCmd(stdin, stdout, stderr), newArgoCDCmd(stdin, stdout, stderr, os.Getenv), newArgoCDDiscoverCmd(stdout), newHealthCmd(stdout),
		newInstalledCmd(stdin, stdout, stderr), newConvertCmd(stdin, stdout, stderr),
		newCollectionCmd(stdout, stderr), newCatalogCmd(stdin, stdout, stderr), &cobra.Command{
			Use:   "version",
			Short: "Print the version",
			Run:   func(cmd *cobra.Command, _ []string) { fmt.Fprintln(stdout, version.Version) },
		})
	return root
}

type renderFlags struct {
	catalogs   []string
	snapshots  []string
	output     string
	keepInputs bool
	namespace  string
	verbose    bool
	explain    bool
	pending    string
	secrets    string
	bindinfo   string
	pin        bool
	manual     bool
	checkPins  bool
	failDeprec bool
	emitCS     bool
	kubeVer    string
	ordering   string
	failEmpty  bool
	noOLM      bool
	live       bool
	kubeconfig string
	context    string
	timeout    time.Duration
}

func newRenderCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f renderFlags
	cmd := &cobra.Command{
		Use:   "render [flags] PATH...",
		Short: "Render the objects the ODLM controller would create",
		Long: `Render reads files and folders (recursively: *.yaml, *.yml, *.json; "-" is stdin) holding
ODLM custom resources and any other objects, and prints the Subscriptions, OperatorGroups,
operand custom resources and OperandConfig resources the ODLM controller would have created
once converged, plus the input objects that are not ODLM inputs.

Exit status: 0 success, 1 when any error was found (nothing is printed on stdout then),
2 for wrong usage.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("render needs at least one PATH (\"-\" for stdin)")}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if f.output != "yaml" && f.output != "json" {
				return usageError{fmt.Errorf("-o must be yaml or json, not %q", f.output)}
			}
			if f.pending != render.PendingWarn && f.pending != render.PendingError {
				return usageError{fmt.Errorf("--pending must be warn or error, not %q", f.pending)}
			}
			if f.secrets != render.SecretsInline && f.secrets != render.SecretsForbid {
				return usageError{fmt.Errorf("--secrets must be inline or forbid, not %q", f.secrets)}
			}
			switch f.bindinfo {
			case render.BindInfoCopy, render.BindInfoExternalSecrets, render.BindInfoSkip:
			default:
				return usageError{fmt.Errorf("--bindinfo-secrets must be copy, external-secrets or skip, not %q", f.bindinfo)}
			}
			switch f.ordering {
			case "", render.OrderingArgoCD, render.OrderingKpt:
			default:
				return usageError{fmt.Errorf("--ordering must be argocd or kpt, not %q", f.ordering)}
			}
			if f.manual && !f.pin {
				return usageError{errors.New("--manual-approval goes with --pin")}
			}
			if !f.live && (f.kubeconfig != "" || f.context != "") {
				return usageError{errors.New("--kubeconfig and --context only apply with --live")}
			}
			return runRender(f, args, stdin, stdout, stderr)
		},
	}
	cmd.Flags().StringArrayVar(&f.catalogs, "catalog", nil, "an OLM file-based catalog: a folder or file of olm.package/olm.channel/olm.bundle blobs, or a CatalogSnapshot written by odlm-render catalog extract (repeatable)")
	cmd.Flags().StringVarP(&f.output, "output", "o", "yaml", "output format: yaml (a \"---\" separated stream) or json (a v1 List)")
	cmd.Flags().BoolVar(&f.keepInputs, "keep-inputs", false, "keep the consumed ODLM inputs in the output")
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "namespace for ODLM inputs that have none")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "also print info results")
	cmd.Flags().StringArrayVar(&f.snapshots, "snapshot", nil, "objects exported from a cluster (kubectl get -o yaml), read by templates and never emitted: a file or folder; repeatable")
	cmd.Flags().BoolVar(&f.explain, "explain", false, "say where every templatingValueFrom value came from (never a Secret's value)")
	cmd.Flags().StringVar(&f.pending, "pending", render.PendingWarn, "required template values that exist only once the output is applied: warn (render the rest) or error")
	cmd.Flags().StringVar(&f.secrets, "secrets", render.SecretsInline, "values templates read from Secrets: inline (as ODLM does) or forbid (an error outside a Secret)")
	cmd.Flags().StringVar(&f.bindinfo, "bindinfo-secrets", render.BindInfoCopy, "what an OperandBindInfo copy of a Secret becomes: copy (with its data, as ODLM does), external-secrets (an ExternalSecret reading the source at run time: no data in the output) or skip")
	cmd.Flags().BoolVar(&f.pin, "pin", false, "set each Subscription's startingCSV to the head of its channel in the catalog (a reproducible version lock)")
	cmd.Flags().BoolVar(&f.manual, "manual-approval", false, "with --pin: also set installPlanApproval: Manual")
	cmd.Flags().BoolVar(&f.checkPins, "check-pins", false, "warn about startingCSVs that are no longer channel heads or that OLM cannot reach from the installed CSV (from the inputs or --snapshot)")
	cmd.Flags().BoolVar(&f.failDeprec, "fail-on-deprecated", false, "make olm.deprecations of a package, channel or bundle in use an error, not a warning")
	cmd.Flags().BoolVar(&f.emitCS, "emit-catalogsources", false, "emit the CatalogSources the Subscriptions use (from the inputs or --snapshot), olm.catalogImageTemplate resolved for --kube-version")
	cmd.Flags().StringVar(&f.kubeVer, "kube-version", os.Getenv("KUBE_VERSION"), "the cluster's Kubernetes version (1.28.3), for olm.catalogImageTemplate (default $KUBE_VERSION)")
	cmd.Flags().StringVar(&f.ordering, "ordering", "", "ordering annotations on rendered objects: argocd (sync waves, SkipDryRunOnMissingResource) or kpt (depends-on); none by default")
	cmd.Flags().BoolVar(&f.noOLM, "no-olm", false, "render what ODLM's no-OLM controller creates: tracking ConfigMaps instead of Subscriptions and OperatorGroups, alm-examples from the operator Deployment (inputs or --snapshot)")
	cmd.Flags().BoolVar(&f.failEmpty, "fail-empty", false, "fail when the render produces no objects")
	_ = cmd.Flags().MarkHidden("fail-empty")
	cmd.Flags().BoolVar(&f.live, "live", false, "also read template references from the cluster of the kubeconfig (GET requests only), after the inputs and snapshots")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context for --live (default: the current context)")
	cmd.Flags().DurationVar(&f.timeout, "live-timeout", live.DefaultTimeout, "timeout of each --live request")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

func runRender(f renderFlags, paths []string, stdin io.Reader, stdout, stderr io.Writer) error {
	docs, err := inputs.ReadPaths(paths, stdin)
	if err != nil {
		return err
	}
	set, err := inputs.Classify(docs)
	if err != nil {
		return err
	}
	cat, err := inputs.LoadCatalog(f.catalogs, set.CatalogBlobs)
	if err != nil {
		return err
	}
	sources, err := readSources(f)
	if err != nil {
		return err
	}
	out := renderEngine(render.Inputs{Objects: set.Resources, Catalog: cat}, render.Options{
		KeepInputs:         f.keepInputs,
		DefaultNamespace:   f.namespace,
		Sources:            sources,
		Pending:            f.pending,
		Secrets:            f.secrets,
		Explain:            f.explain,
		BindInfoSecrets:    f.bindinfo,
		Pin:                f.pin,
		ManualApproval:     f.manual,
		CheckPins:          f.checkPins,
		FailOnDeprecated:   f.failDeprec,
		EmitCatalogSources: f.emitCS,
		KubeVersion:        f.kubeVer,
		Ordering:           f.ordering,
		NoOLM:              f.noOLM,
	})
	printResults(stderr, out.Results, f.verbose || f.explain)
	if out.Results.HasErrors() {
		return errReported
	}
	if f.failEmpty && len(out.Objects) == 0 {
		return errEmptyRender
	}
	var buf bytes.Buffer
	if f.output == "json" {
		err = manifest.WriteJSONList(&buf, out.Objects)
	} else {
		err = manifest.WriteYAML(&buf, out.Objects)
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

// readSources builds what templates read after the inputs: snapshots, then a live cluster.
func readSources(f renderFlags) (cluster.Chain, error) {
	var chain cluster.Chain
	if len(f.snapshots) > 0 {
		snap, err := inputs.LoadSnapshot(f.snapshots...)
		if err != nil {
			return nil, fmt.Errorf("--snapshot: %w", err)
		}
		chain = append(chain, cluster.Source{Origin: cluster.OriginSnapshot, Reader: snap})
	}
	if f.live {
		reader, err := live.NewReader(live.Options{Kubeconfig: f.kubeconfig, Context: f.context, Timeout: f.timeout})
		if err != nil {
			return nil, fmt.Errorf("--live: %w", err)
		}
		chain = append(chain, cluster.Source{Origin: cluster.OriginLive, Reader: reader})
	}
	return chain, nil
}

// newHealthCmd prints the Argo CD health checks for OLM's and ODLM's kinds.
func newHealthCmd(stdout io.Writer) *cobra.Command {
	var configMap bool
	cmd := &cobra.Command{
		Use:   "health-checks",
		Short: "Print Argo CD health checks (Lua) for Subscription, CSV, InstallPlan, OperatorGroup and the ODLM kinds",
		Long: `health-checks prints the resource.customizations.health.* keys to add to Argo CD's
argocd-cm ConfigMap, or with --configmap a whole ConfigMap to merge into it.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if configMap {
				_, err := io.WriteString(stdout, health.ConfigMap())
				return err
			}
			_, err := io.WriteString(stdout, health.Snippet())
			return err
		},
	}
	cmd.Flags().BoolVar(&configMap, "configmap", false, "print a whole argocd-cm ConfigMap (to merge) instead of its data keys")
	return cmd
}

func printResults(w io.Writer, results diag.Results, verbose bool) {
	for _, r := range results {
		if r.Severity == diag.Info && !verbose {
			continue
		}
		fmt.Fprintln(w, r.String())
	}
}
