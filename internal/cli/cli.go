// Package cli owns the odlm-render command line: flags, exit codes and how results are
// printed on stderr. It lives in a package (not in cmd/) so that tests run it in-process.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/odlm-render/odlm-render/health"
	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/crash"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/optionspec"
	"github.com/odlm-render/odlm-render/internal/output"
	"github.com/odlm-render/odlm-render/internal/textsafe"
	"github.com/odlm-render/odlm-render/internal/version"
	"github.com/odlm-render/odlm-render/pkg/catalog"
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
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainWith(args, stdin, stdout, stderr, render.Render)
}

// mainWith is Main with the engine the render commands call.
func mainWith(args []string, stdin io.Reader, stdout, stderr io.Writer, eng engine) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "odlm-render: %v\n", crash.FromPanic(p))
			code = ExitErrors
		}
	}()
	root := newRoot(stdin, stdout, stderr, eng)
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
		fmt.Fprintf(stderr, "odlm-render: %s\nrun '%s --help' for usage\n", textsafe.Lines(strings.TrimRight(err.Error(), "\n")), cmdPath)
		return ExitUsage
	}
	if !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "odlm-render: %s\n", textsafe.Lines(err.Error()))
	}
	return ExitErrors
}

// errReported: the results said what went wrong already.
var errReported = output.ErrReported

// engine is what the render commands call: render.Render (tests pass another one to check
// Main's last line of defence).
type engine func(render.Inputs, render.Options) render.Output

func newRoot(stdin io.Reader, stdout, stderr io.Writer, eng engine) *cobra.Command {
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
	root.AddCommand(newRenderCmd(stdin, stdout, stderr, eng), newArgoCDCmd(stdin, stdout, stderr, os.Getenv, eng), newArgoCDDiscoverCmd(stdout), newHealthCmd(stdout),
		newInstalledCmd(stdin, stdout, stderr), newConvertCmd(stdin, stdout, stderr),
		newCollectionCmd(stdout, stderr), newCatalogCmd(stdin, stdout, stderr), newMirrorCmd(stdin, stdout, stderr, eng), newPlanCmd(stdin, stdout, stderr, eng), &cobra.Command{
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
	// opts holds the engine's options, one flag each (bindOptionFlags); formerNames says
	// which former names of them the command line used
	opts        render.Options
	formerNames func() []string
	verbose     bool
	failEmpty   bool
	live        liveFlags
	// refuseCredentialPlugins refuses a kubeconfig that runs exec or auth-provider plugins
	// (the Argo CD plugin, unless its administrator allows them)
	refuseCredentialPlugins bool
	// within confines every file the render reads to these folders, links followed (the Argo
	// CD plugin: the application's repository and the folders its administrator lists)
	within []string
}

func newRenderCmd(stdin io.Reader, stdout, stderr io.Writer, eng engine) *cobra.Command {
	return newRenderCmdFor(stdin, stdout, stderr, eng, nil)
}

// newRenderCmdFor is the render command, with adjust (if any) applied to its flags before it
// runs: settings a front door fixes rather than the user (the Argo CD plugin's policy).
func newRenderCmdFor(stdin io.Reader, stdout, stderr io.Writer, eng engine, adjust func(*renderFlags)) *cobra.Command {
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
		Args: needPaths("render"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if adjust != nil {
				adjust(&f)
			}
			return runRender(f, args, stdin, output.Stream{Stdout: stdout, Stderr: stderr, Format: output.Format(f.output),
				Verbose: f.verbose || f.opts.Explain}, eng)
		},
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", "yaml", "output format: yaml (a \"---\" separated stream) or json (a v1 List)")
	f.bindInputFlags(cmd, inputHelp{
		catalog:  "an OLM file-based catalog: a folder or file of olm.package/olm.channel/olm.bundle blobs, or a CatalogSnapshot written by odlm-render catalog extract (repeatable); NAME=PATH is the content of CatalogSource NAME (NAMESPACE/NAME, or NAME in the global catalog namespace), a plain PATH that of every CatalogSource not named",
		snapshot: "objects exported from a cluster (kubectl get -o yaml), read by templates and never emitted: a file or folder; repeatable",
		live:     "also read the cluster of the kubeconfig, read-only (GETs of referenced objects, LISTs for ODLM's searches), after the inputs and snapshots",
	})
	cmd.Flags().BoolVar(&f.failEmpty, "fail-empty", false, "fail when the render produces no objects")
	_ = cmd.Flags().MarkHidden("fail-empty")
	return cmd
}

// needPaths refuses a command line of the named command without PATHs, as a usage error.
func needPaths(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageError{fmt.Errorf("%s needs at least one PATH (\"-\" for stdin)", command)}
		}
		return nil
	}
}

// inputHelp is what a command that renders says of its input flags.
type inputHelp struct{ catalog, snapshot, live string }

// bindInputFlags defines the flags every command that renders shares (render, mirror,
// plan): --catalog, --snapshot, -v, one flag per engine option and the --live flags; and
// makes a wrong flag a usage error.
func (f *renderFlags) bindInputFlags(cmd *cobra.Command, help inputHelp) {
	fs := cmd.Flags()
	fs.StringArrayVar(&f.catalogs, "catalog", nil, help.catalog)
	fs.StringArrayVar(&f.snapshots, "snapshot", nil, help.snapshot)
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "also print info results")
	f.opts.KubeVersion = os.Getenv("KUBE_VERSION") // the flag's default
	bindOptionFlags(fs, &f.opts)
	f.formerNames = func() (notes []string) {
		for _, o := range optionspec.Of[render.Options]() {
			if o.FormerFlag != "" && fs.Changed(o.FormerFlag) {
				notes = append(notes, fmt.Sprintf("--%s is now --%s: the former name is still read", o.FormerFlag, o.Flag))
			}
		}
		return notes
	}
	f.live.bind(fs, liveHelp{live: help.live, deadline: "timeout of all --live requests together"})
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
}

// renderPaths reads PATHs, the catalogs (loaded with catOpts) and the cluster sources the
// flags name, and renders them with the flags' options.
func (f renderFlags) renderPaths(paths []string, stdin io.Reader, eng engine, catOpts catalog.LoadOptions) (render.Inputs, cluster.Chain, render.Output, error) {
	in, sources, err := inputs.Load(inputs.Request{Paths: paths, Stdin: stdin, Catalogs: f.catalogs, GlobalCatalogNamespace: f.opts.GlobalNamespace(), Snapshots: f.snapshots,
		CatalogOptions: catOpts, Live: f.live.reader(f.refuseCredentialPlugins), Names: inputs.Names{Snapshots: "--snapshot"}, Within: f.within})
	if err != nil {
		return render.Inputs{}, nil, render.Output{}, err
	}
	opts := f.opts
	opts.Sources = sources
	out := eng(in, opts)
	if f.formerNames != nil {
		for _, note := range f.formerNames() {
			out.Results = append(out.Results, diag.Warnf(nil, "", "%s", note))
		}
	}
	return in, sources, out, nil
}

// check refuses flags that do not go together, as usage errors.
func (f renderFlags) check() error {
	if _, err := output.ParseFormat(f.output); err != nil {
		return usageError{err}
	}
	if err := flagErrors(f.opts.Validate()); err != nil {
		return usageError{err}
	}
	if f.live.kubeconfigWithoutLive() {
		return errKubeconfigWithoutLive
	}
	if f.live.timeout <= 0 || f.live.deadline <= 0 {
		return usageError{errors.New("--live-timeout and --live-deadline must be positive")}
	}
	return nil
}

func runRender(f renderFlags, paths []string, stdin io.Reader, out output.Stream, eng engine) error {
	_, _, answer, err := f.renderPaths(paths, stdin, eng, catalog.LoadOptions{})
	if err != nil {
		return err
	}
	if out.Results(answer.Results) {
		return errReported
	}
	if f.failEmpty && len(answer.Objects) == 0 {
		return errEmptyRender
	}
	return out.Objects(answer.Objects)
}

// bindOptionFlags defines one flag per engine option, named, typed, defaulted and described
// by render.Options itself (internal/optionspec), so the CLI and the engine cannot disagree.
// A string option may be of a named string type (its values typed): the flag sets it through
// a *string to the same field.
func bindOptionFlags(fs *pflag.FlagSet, o *render.Options) {
	v := reflect.ValueOf(o).Elem()
	for _, opt := range optionspec.Of[render.Options]() {
		field := v.FieldByName(opt.Field)
		switch field.Kind() {
		case reflect.Bool:
			fs.BoolVar(field.Addr().Interface().(*bool), opt.Flag, false, opt.Help)
			if opt.FormerFlag != "" {
				// the name it had: still read, hidden (renderPaths adds a note naming the new one)
				fs.BoolVar(field.Addr().Interface().(*bool), opt.FormerFlag, false, opt.Help)
				_ = fs.MarkHidden(opt.FormerFlag)
			}
		case reflect.Slice:
			fs.StringArrayVar(field.Addr().Interface().(*[]string), opt.Flag, nil, opt.Help)
		case reflect.String:
			ptr := field.Addr().Convert(reflect.TypeFor[*string]()).Interface().(*string)
			def := *ptr
			if def == "" {
				def = opt.Default
			}
			fs.StringVarP(ptr, opt.Flag, shorthands[opt.Flag], def, opt.Help)
		}
	}
}

// shorthands are the one-letter names of option flags.
var shorthands = map[string]string{"namespace": "n"}

// flagErrors says what Options.Validate refused in terms of flags.
func flagErrors(err error) error {
	if err == nil {
		return nil
	}
	var msgs []string
	for _, oe := range optionspec.Errors(err) {
		msgs = append(msgs, "--"+oe.Option.Flag+": "+oe.Msg)
	}
	return errors.New(strings.Join(msgs, "; "))
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

// printResults writes results on w, info ones only when verbose.
func printResults(w io.Writer, results diag.Results, verbose bool) {
	output.WriteResults(w, results, verbose)
}
