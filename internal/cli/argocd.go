package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/odlm-render/odlm-render/internal/inputs"
)

// argoParameter is one entry of ARGOCD_APP_PARAMETERS (the Application's
// spec.source.plugin.parameters, as Argo CD's cmp-server passes them).
type argoParameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// newArgoCDCmd is the generate command of the Argo CD Config Management Plugin: render
// with the options Argo CD's environment carries.
func newArgoCDCmd(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, eng engine) *cobra.Command {
	return &cobra.Command{
		Use:   "argocd-generate [PATH]",
		Short: "Render for an Argo CD Config Management Plugin (options from Argo CD's environment)",
		Long: `argocd-generate renders PATH (default: the current directory, which Argo CD sets to the
application's path) like "render", taking its options from Argo CD's environment:

  ARGOCD_APP_PARAMETERS   the Application's plugin parameters (JSON); each parameter is a
                          render flag: {"name": "catalog", "array": ["catalog"]},
                          {"name": "pending", "string": "error"}, ...
  PARAM_<FLAG>[_<i>]      the same parameters one by one (used when ARGOCD_APP_PARAMETERS
                          is absent)
  ARGOCD_ENV_<FLAG>       the Application's plugin env, e.g. ARGOCD_ENV_CATALOG=catalog,
                          ARGOCD_ENV_BINDINFO_SECRETS=external-secrets (lists comma-separated)
  ARGOCD_APP_NAMESPACE    default namespace for ODLM inputs without one
  KUBE_VERSION            the cluster's Kubernetes version (for --emit-catalogsources)

Parameters win over env; ARGOCD_APP_PARAMETERS over PARAM_*. --ordering defaults to argocd here. An empty render is an error, so
that an auto-pruning Application never deletes everything because of a broken input. Logs and
results go to stderr; stdout holds only the manifests.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			policy, err := sidecarPolicyFrom(getenv)
			if err != nil {
				return err // the administrator's mistake, not the Application's
			}
			values, err := argoValues(getenv)
			if err == nil {
				err = policy.check(values)
			}
			var within []string
			if err == nil {
				within, err = policy.confinePaths(getenv, path, values)
			}
			if err != nil {
				return usageError{err}
			}
			renderArgs := append(policy.renderArgs(values, getenv), path)
			rc := newRenderCmdFor(stdin, stdout, stderr, eng, func(f *renderFlags) {
				f.refuseCredentialPlugins = !policy.credentialPlugins
				f.within = within
			})
			rc.SetArgs(renderArgs)
			if err := rc.ParseFlags(renderArgs); err != nil {
				return usageError{fmt.Errorf("from Argo CD's parameters and env: %w", err)}
			}
			rc.SetOut(stdout)
			rc.SetErr(stderr)
			return rc.RunE(rc, rc.Flags().Args())
		},
	}
}

// newArgoCDDiscoverCmd is the discover command of the plugin: it prints the plugin's name
// when the current directory holds ODLM inputs (Argo CD wants exit 0 and a non-empty
// stdout), and nothing otherwise. No shell is needed in the sidecar image.
func newArgoCDDiscoverCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "argocd-discover [PATH]",
		Short: "Tell Argo CD whether an application holds ODLM inputs (plugin discovery)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			docs, err := inputs.ReadPaths([]string{path}, nil)
			if err != nil {
				return nil // not ours to render: Argo CD tries the next plugin
			}
			for _, d := range docs {
				if d.Group() == inputs.ODLMGroup {
					_, err := fmt.Fprintln(stdout, "odlm-render")
					return err
				}
			}
			return nil
		},
	}
}

// argoValues collects the render options an Application sets: its plugin env, then its
// parameters (PARAM_*, then ARGOCD_APP_PARAMETERS, which wins).
func argoValues(getenv func(string) string) (map[string][]string, error) {
	flags := newRenderCmd(nil, io.Discard, io.Discard, nil).Flags()
	names := argoOptionNames(flags)
	values := map[string][]string{}
	for _, name := range names {
		key := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if v := getenv("ARGOCD_ENV_" + key); v != "" {
			values[name] = envValue(v, flags.Lookup(name).Value.Type() == "stringArray")
		}
		// PARAM_<NAME> (and PARAM_<NAME>_<i> for arrays) carry the same parameters as
		// ARGOCD_APP_PARAMETERS, which wins when present
		if v := paramValue(getenv, "PARAM_"+key); len(v) > 0 {
			values[name] = v
		}
	}
	params, err := appParameters(getenv("ARGOCD_APP_PARAMETERS"))
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		vs, ok, err := p.values()
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if _, adminOnly := adminOnlyOptions[p.Name]; !adminOnly && !slices.Contains(names, p.Name) {
			return nil, fmt.Errorf("unknown option %q (known: %s)", p.Name, strings.Join(tenantOptionNames(names), ", "))
		}
		values[p.Name] = vs
	}
	return values, nil
}

// envValue is an ARGOCD_ENV_* value: a comma-separated list for a repeatable flag.
func envValue(v string, list bool) []string {
	if !list {
		return []string{v}
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// paramValue is PARAM_<NAME>, or the list PARAM_<NAME>_0, PARAM_<NAME>_1, ... (nil: none).
func paramValue(getenv func(string) string, key string) []string {
	if v := getenv(key); v != "" {
		return []string{v}
	}
	var list []string
	for i := 0; getenv(fmt.Sprintf("%s_%d", key, i)) != ""; i++ {
		list = append(list, getenv(fmt.Sprintf("%s_%d", key, i)))
	}
	return list
}

// appParameters decodes ARGOCD_APP_PARAMETERS (none when empty or null).
func appParameters(raw string) ([]argoParameter, error) {
	if raw == "" || raw == "null" {
		return nil, nil
	}
	var params []argoParameter
	if err := json.Unmarshal([]byte(raw), &params); err != nil {
		return nil, fmt.Errorf("ARGOCD_APP_PARAMETERS is not a JSON list of parameters: %w", err)
	}
	return params, nil
}

// values are what a parameter sets; ok is false for a parameter with no value.
func (p argoParameter) values() (vs []string, ok bool, err error) {
	switch {
	case p.Map != nil:
		return nil, false, fmt.Errorf("parameter %q: map parameters are not supported", p.Name)
	case p.Array != nil:
		return p.Array, true, nil
	case p.String != nil:
		return []string{*p.String}, true, nil
	}
	return nil, false, nil
}

// renderArgs are the render flags for an Application's checked values: Argo CD's defaults
// (the destination namespace, the cluster's version, argocd ordering), the guard against an
// empty render, and the sidecar's kubeconfig for live reads.
func (p sidecarPolicy) renderArgs(values map[string][]string, getenv func(string) string) []string {
	if _, ok := values["namespace"]; !ok {
		if ns := getenv("ARGOCD_APP_NAMESPACE"); ns != "" {
			values["namespace"] = []string{ns}
		}
	}
	if _, ok := values["kube-version"]; !ok {
		if v := getenv("KUBE_VERSION"); v != "" {
			values["kube-version"] = []string{v}
		}
	}
	if _, ok := values["ordering"]; !ok {
		values["ordering"] = []string{"argocd"}
	}
	if liveOn(values) && p.kubeconfig != "" {
		values["kubeconfig"] = []string{p.kubeconfig}
	}
	args := []string{"--fail-empty"}
	for _, name := range sortedNames(values) {
		for _, v := range values[name] {
			args = append(args, "--"+name+"="+v)
		}
	}
	return args
}

// tenantOptionNames are the options an Application may set.
func tenantOptionNames(names []string) []string {
	var out []string
	for _, n := range names {
		if _, adminOnly := adminOnlyOptions[n]; !adminOnly {
			out = append(out, n)
		}
	}
	return out
}

// argoOptionNames are the render flags Argo CD may set (not the output format: Argo CD
// reads a YAML stream).
func argoOptionNames(flags *pflag.FlagSet) []string {
	var names []string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Name != "output" && f.Name != "help" && !f.Hidden {
			names = append(names, f.Name)
		}
	})
	sort.Strings(names)
	return names
}

func sortedNames(m map[string][]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// errEmptyRender stops an Argo CD sync from pruning everything.
var errEmptyRender = errors.New("the render produced no objects: refusing to hand Argo CD an empty manifest set (an auto-pruning Application would delete everything)")
