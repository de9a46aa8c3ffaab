// Package cli owns the odlm-render command line: flags, exit codes and how results are
// printed on stderr. It lives in a package (not in cmd/) so that tests run it in-process.
package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/odlm-render/odlm-render/health"
	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/cluster/live"
	"github.com/odlm-render/odlm-render/internal/crash"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/version"
	"github.com/odlm-render/odlm-render/pkg/render"
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
	err := fileread.CheckEnv()
	if err == nil {
		err = root.Execute()
	}
	if err == nil {
		return ExitOK
	}
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		// where help is: the command the arguments name, else the root
		cmdPath := root.CommandPath()
		if c, _, ferr := root.Find(args); ferr == nil && c != nil {
			cmdPath = c.CommandPath()
		}
		fmt.Fprintf(stderr, "odlm-render: %s\nrun '%s --help' for usage\n", strings.TrimRight(err.Error(), "\n"), cmdPath)
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
		Version:       version.Version,
		Short:         "Render ODLM OperandRequests, OperandRegistries and OperandConfigs into plain manifests",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.SetVersionTemplate("{{.Version}}\n") // --version prints what the version command prints
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
	catalogs  []string
	snapshots []string
	output    string
	// opts holds the engine's options, one flag each (bindOptionFlags)
	opts       render.Options
	verbose    bool
	failEmpty  bool
	live       bool
	kubeconfig string
	context    string
	timeout    time.Duration
	deadline   time.Duration
	// refuseCredentialPlugins refuses a kubeconfig that runs exec or auth-provider plugins
	// (the Argo CD plugin, unless its administrator allows them)
	refuseCredentialPlugins bool
}

func newRenderCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return newRenderCmdFor(stdin, stdout, stderr, nil)
}

// newRenderCmdFor is the render command, with adjust (if any) applied to its flags before it
// runs: settings a front door fixes rather than the user (the Argo CD plugin's policy).
func newRenderCmdFor(stdin io.Reader, stdout, stderr io.Writer, adjust func(*renderFlags)) *cobra.Command {
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
			if err := flagErrors(f.options().Validate()); err != nil {
				return usageError{err}
			}
			if !f.live && (f.kubeconfig != "" || f.context != "") {
				return usageError{errors.New("--kubeconfig and --context only apply with --live")}
			}
			if f.timeout <= 0 || f.deadline <= 0 {
				return usageError{errors.New("--live-timeout and --live-deadline must be positive")}
			}
			if adjust != nil {
				adjust(&f)
			}
			return runRender(f, args, stdin, stdout, stderr)
		},
	}
	cmd.Flags().StringArrayVar(&f.catalogs, "catalog", nil, "an OLM file-based catalog: a folder or file of olm.package/olm.channel/olm.bundle blobs, or a CatalogSnapshot written by odlm-render catalog extract (repeatable)")
	cmd.Flags().StringVarP(&f.output, "output", "o", "yaml", "output format: yaml (a \"---\" separated stream) or json (a v1 List)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "also print info results")
	cmd.Flags().StringArrayVar(&f.snapshots, "snapshot", nil, "objects exported from a cluster (kubectl get -o yaml), read by templates and never emitted: a file or folder; repeatable")
	f.opts.KubeVersion = os.Getenv("KUBE_VERSION") // the flag's default
	bindOptionFlags(cmd.Flags(), &f.opts)
	cmd.Flags().BoolVar(&f.failEmpty, "fail-empty", false, "fail when the render produces no objects")
	_ = cmd.Flags().MarkHidden("fail-empty")
	cmd.Flags().BoolVar(&f.live, "live", false, "also read the cluster of the kubeconfig, read-only (GETs of referenced objects, LISTs for ODLM's searches), after the inputs and snapshots")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context for --live (default: the current context)")
	cmd.Flags().DurationVar(&f.timeout, "live-timeout", live.DefaultTimeout, "timeout of each --live request")
	cmd.Flags().DurationVar(&f.deadline, "live-deadline", live.DefaultDeadline, "timeout of all --live requests together")
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
	opts := f.options()
	opts.Sources = sources
	out := renderEngine(render.Inputs{Objects: set.Resources, Catalog: cat}, opts)
	printResults(stderr, out.Results, f.verbose || f.opts.Explain)
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

// options are the engine's options as the flags set them ("" for a default).
func (f renderFlags) options() render.Options { return f.opts }

// bindOptionFlags defines one flag per engine option, named, typed, defaulted and described
// by render.Options itself (render.OptionList), so the CLI and the engine cannot disagree.
func bindOptionFlags(fs *pflag.FlagSet, o *render.Options) {
	v := reflect.ValueOf(o).Elem()
	for _, opt := range render.OptionList() {
		field := v.FieldByName(opt.Field)
		help := opt.Help
		switch field.Kind() {
		case reflect.Bool:
			fs.BoolVar(field.Addr().Interface().(*bool), opt.Flag, false, help)
		case reflect.String:
			ptr := field.Addr().Interface().(*string)
			def := *ptr
			if def == "" {
				def = opt.Default
			}
			if opt.Flag == "namespace" {
				fs.StringVarP(ptr, opt.Flag, "n", def, help)
			} else {
				fs.StringVar(ptr, opt.Flag, def, help)
			}
		}
	}
}

// flagErrors says what Options.Validate refused in terms of flags.
func flagErrors(err error) error {
	if err == nil {
		return nil
	}
	var msgs []string
	for _, oe := range render.OptionErrors(err) {
		msgs = append(msgs, "--"+oe.Option.Flag+": "+oe.Msg)
	}
	return errors.New(strings.Join(msgs, "; "))
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
		reader, err := live.NewReader(live.Options{Kubeconfig: f.kubeconfig, Context: f.context, Timeout: f.timeout,
			Deadline: f.deadline, RefuseCredentialPlugins: f.refuseCredentialPlugins})
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
