// Command argocd-cmp-harness runs a Config Management Plugin through Argo CD's real
// cmp-server code (v3.2.12) and talks to it exactly as Argo CD's repo-server does: the
// plugin's socket is served by cmpserver.NewServer(...).Run(), discovery goes through
// discovery.DetectConfigManagementPlugin, and the repository is streamed with
// cmp.SendRepoStream. The request environment is built as repo-server's newEnv and
// getPluginEnvs build it, from an Application manifest.
//
// It checks the odlm-render plugin (deploy/argocd/plugin.yaml) against the example
// application, and with -spy also reports what a plugin command actually sees (cwd, request
// environment, file modes). See scripts/argocd-cmp-check.sh.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/argoproj/gitops-engine/pkg/utils/kube"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	log "github.com/sirupsen/logrus"
	"google.golang.org/protobuf/types/known/emptypb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sversion "k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"

	"github.com/argoproj/argo-cd/v3/cmpserver"
	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/cmpserver/plugin"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
)

var (
	pluginDir   = flag.String("plugin-dir", "deploy/argocd", "folder holding the plugin.yaml")
	repoRoot    = flag.String("repo", ".", "repository root streamed to the plugin (as repo-server's checkout)")
	appFile     = flag.String("application", "examples/argocd/application.yaml", "the Application manifest")
	otherPath   = flag.String("other-path", "deploy/argocd", "an application path the plugin must not discover")
	brokenParam = flag.String("broken-without", "catalog", "parameter removed for the broken application")
	workDir     = flag.String("work", "", "scratch folder for sockets and cmp-server's work dir (short path)")
	kubeVersion = flag.String("kube-version", "v1.33.4", "the cluster's version, as the controller sends it")
	apiVersions = flag.String("api-versions", "v1,apps/v1,operators.coreos.com/v1,operators.coreos.com/v1alpha1", "the cluster's API versions")
	revision    = flag.String("revision", "0123456789abcdef0123456789abcdef01234567", "resolved revision")
	ctrlNs      = flag.String("controller-namespace", "argocd", "namespace of the Argo CD control plane")
	spy         = flag.Bool("spy", true, "also run a spy plugin that reports what plugin commands see")
	logFile     = flag.String("log", "", "cmp-server log file (default: discarded)")
	excludes    = []string{".git/*"} // repo-server's default reposerver.plugin.tar.exclusions
	failed      int
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "spy" {
		spyMain()
		return
	}
	flag.Parse()
	if *workDir == "" {
		fatalf("-work is required")
	}
	must(os.MkdirAll(filepath.Join(*workDir, "plugins"), 0o755))
	must(os.Setenv("ARGOCD_PLUGINSOCKFILEPATH", filepath.Join(*workDir, "plugins")))
	must(os.Setenv("ARGOCD_CMP_WORKDIR", *workDir))
	log.SetLevel(log.InfoLevel)
	log.SetOutput(discard{})
	if *logFile != "" {
		f, err := os.Create(*logFile)
		must(err)
		log.SetOutput(f)
	}
	root, err := filepath.Abs(*repoRoot)
	must(err)
	serverEnv := os.Environ()

	cfg, err := plugin.ReadPluginConfig(*pluginDir)
	must(err)
	addr := serve(*cfg)

	b, err := os.ReadFile(*appFile)
	must(err)
	var app v1alpha1.Application
	must(yaml.UnmarshalStrict(b, &app))
	src := app.Spec.GetSource()
	if src.Plugin == nil {
		fatalf("%s: spec.source.plugin is not set", *appFile)
	}
	appPath := filepath.Join(root, src.Path)
	env := requestEnv(&app, src.Plugin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	conn, client, err := apiclient.NewConfigManagementPluginClientSet(addr).NewConfigManagementPluginClient()
	must(err)
	defer conn.Close()

	// discovery: the MatchRepository RPC, for the application and for an unrelated path
	check("discover "+src.Path, func() (string, error) {
		ok, enabled, err := match(ctx, client, appPath, root, env)
		if err == nil && (!ok || !enabled) {
			err = fmt.Errorf("isSupported=%v isDiscoveryEnabled=%v", ok, enabled)
		}
		return fmt.Sprintf("isSupported=%v isDiscoveryEnabled=%v", ok, enabled), err
	})
	check("no discovery of "+*otherPath, func() (string, error) {
		ok, _, err := match(ctx, client, filepath.Join(root, *otherPath), root, env)
		if err == nil && ok {
			err = fmt.Errorf("isSupported=true")
		}
		return fmt.Sprintf("isSupported=%v", ok), err
	})
	// the named plugin, found as repo-server finds it (socket name, then MatchRepository)
	check("repo-server finds plugin "+src.Plugin.Name, func() (string, error) {
		c, _, err := discovery.DetectConfigManagementPlugin(ctx, appPath, root, src.Plugin.Name, env, excludes)
		if err == nil {
			c.Close()
		}
		return filepath.Base(addr), err
	})
	check("generate "+app.Name, func() (string, error) {
		objs, err := generate(ctx, client, appPath, root, env)
		if err != nil {
			return "", err
		}
		kinds := map[string]int{}
		var waves []string
		for _, o := range objs {
			kinds[o.GetKind()]++
			if o.GetKind() == "ResourceList" {
				return "", fmt.Errorf("a ResourceList in the manifests")
			}
			if o.GetKind() == "Subscription" {
				w, ok := o.GetAnnotations()["argocd.argoproj.io/sync-wave"]
				if !ok {
					return "", fmt.Errorf("Subscription %s has no sync-wave annotation", o.GetName())
				}
				waves = append(waves, o.GetName()+"@wave"+w)
			}
		}
		if kinds["Subscription"] != 2 {
			return "", fmt.Errorf("%d Subscriptions, want 2 (%v)", kinds["Subscription"], kinds)
		}
		return fmt.Sprintf("%d objects %v; %s", len(objs), kinds, strings.Join(waves, " ")), nil
	})
	broken := app.DeepCopy()
	var kept v1alpha1.ApplicationSourcePluginParameters
	for _, p := range broken.Spec.Source.Plugin.Parameters {
		if p.Name != *brokenParam {
			kept = append(kept, p)
		}
	}
	broken.Spec.Source.Plugin.Parameters = kept
	check("generate fails without parameter "+*brokenParam, func() (string, error) {
		objs, err := generate(ctx, client, appPath, root, requestEnv(broken, broken.Spec.Source.Plugin))
		if err == nil {
			return "", fmt.Errorf("GenerateManifest succeeded with %d objects", len(objs))
		}
		msg := strings.ReplaceAll(err.Error(), "\n", " | ")
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return "error: " + msg, nil
	})

	if *spy {
		spyCfg := *cfg
		spyCfg.Metadata.Name += "-spy"
		self, err := os.Executable()
		must(err)
		spyCfg.Spec.Generate = plugin.Command{Command: []string{self, "spy"}}
		spyConn, spyClient, err := apiclient.NewConfigManagementPluginClientSet(serve(spyCfg)).NewConfigManagementPluginClient()
		must(err)
		defer spyConn.Close()
		check("spy: what the generate command sees", func() (string, error) {
			objs, err := generate(ctx, spyClient, appPath, root, env)
			if err != nil {
				return "", err
			}
			if len(objs) != 1 {
				return "", fmt.Errorf("%d objects from the spy", len(objs))
			}
			data, _, _ := unstructured.NestedStringMap(objs[0].Object, "data")
			own := map[string]bool{}
			for _, e := range serverEnv {
				own[e] = true
			}
			var reqEnv []string
			for _, e := range strings.Split(data["env"], "\n") {
				if e != "" && !own[e] {
					reqEnv = append(reqEnv, "    "+e)
				}
			}
			return fmt.Sprintf("\n  cwd: %s\n  uid/gid: %s\n  file modes: %s\n  env from the request (not the server's own):\n%s",
				data["cwd"], data["ids"], data["modes"], strings.Join(reqEnv, "\n")), nil
		})
	}
	if failed > 0 {
		fmt.Printf("%d check(s) FAILED\n", failed)
		os.Exit(1)
	}
}

// serve starts Argo CD's cmp-server for cfg and waits until it answers.
func serve(cfg plugin.PluginConfig) string {
	srv, err := cmpserver.NewServer(plugin.CMPServerInitConstants{PluginConfig: cfg})
	must(err)
	go srv.Run()
	addr := cfg.Address()
	for i := 0; ; i++ {
		if c, err := net.Dial("unix", addr); err == nil {
			c.Close()
			conn, client, err := apiclient.NewConfigManagementPluginClientSet(addr).NewConfigManagementPluginClient()
			if err == nil {
				_, err = client.CheckPluginConfiguration(context.Background(), &emptypb.Empty{})
				conn.Close()
				if err == nil {
					return addr
				}
			}
		}
		if i > 300 {
			fatalf("cmp-server did not start on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// requestEnv is the env list repo-server sends with the stream (newEnv, then getPluginEnvs).
func requestEnv(app *v1alpha1.Application, p *v1alpha1.ApplicationSourcePlugin) []string {
	src := app.Spec.GetSource()
	short := func(n int) string { return (*revision)[:min(n, len(*revision))] }
	base := v1alpha1.Env{
		{Name: "ARGOCD_APP_NAME", Value: app.InstanceName(*ctrlNs)},
		{Name: "ARGOCD_APP_NAMESPACE", Value: app.Spec.Destination.Namespace},
		{Name: "ARGOCD_APP_PROJECT_NAME", Value: app.Spec.Project},
		{Name: "ARGOCD_APP_REVISION", Value: *revision},
		{Name: "ARGOCD_APP_REVISION_SHORT", Value: short(7)},
		{Name: "ARGOCD_APP_REVISION_SHORT_8", Value: short(8)},
		{Name: "ARGOCD_APP_SOURCE_REPO_URL", Value: src.RepoURL},
		{Name: "ARGOCD_APP_SOURCE_PATH", Value: src.Path},
		{Name: "ARGOCD_APP_SOURCE_TARGET_REVISION", Value: src.TargetRevision},
	}
	kv := ""
	if *kubeVersion != "" {
		v, err := k8sversion.ParseGeneric(*kubeVersion)
		must(err)
		kv = v.String()
	}
	env := append(base.Environ(), "KUBE_VERSION="+kv, "KUBE_API_VERSIONS="+*apiVersions)
	parsed := v1alpha1.Env{}
	for _, e := range env {
		entry, err := v1alpha1.NewEnvEntry(e)
		must(err)
		parsed = append(parsed, entry)
	}
	for _, e := range p.Env {
		env = append(env, fmt.Sprintf("ARGOCD_ENV_%s=%s", e.Name, parsed.Envsubst(e.Value)))
	}
	params, err := p.Parameters.Environ()
	must(err)
	return append(env, params...)
}

func match(ctx context.Context, c apiclient.ConfigManagementPluginServiceClient, appPath, root string, env []string) (bool, bool, error) {
	s, err := c.MatchRepository(ctx, grpc_retry.Disable())
	if err != nil {
		return false, false, err
	}
	if err := cmp.SendRepoStream(ctx, appPath, root, s, env, excludes); err != nil {
		return false, false, err
	}
	r, err := s.CloseAndRecv()
	if err != nil {
		return false, false, err
	}
	return r.GetIsSupported(), r.GetIsDiscoveryEnabled(), nil
}

// generate is repo-server's generateManifestsCMP plus its conversion of the answer.
func generate(ctx context.Context, c apiclient.ConfigManagementPluginServiceClient, appPath, root string, env []string) ([]*unstructured.Unstructured, error) {
	s, err := c.GenerateManifest(ctx, grpc_retry.Disable())
	if err != nil {
		return nil, err
	}
	if err := cmp.SendRepoStream(s.Context(), appPath, root, s, env, excludes); err != nil {
		return nil, err
	}
	r, err := s.CloseAndRecv()
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	for _, m := range r.Manifests {
		o, err := kube.SplitYAML([]byte(m))
		if err != nil {
			return nil, fmt.Errorf("failed to convert CMP manifests to unstructured objects: %w", err)
		}
		objs = append(objs, o...)
	}
	return objs, nil
}

// spyMain is the spy plugin's generate command: one ConfigMap describing its environment.
func spyMain() {
	cwd, _ := os.Getwd()
	env := os.Environ()
	sort.Strings(env)
	root := cwd
	if p := os.Getenv("ARGOCD_APP_SOURCE_PATH"); p != "" && strings.HasSuffix(cwd, "/"+filepath.Clean(p)) {
		root = strings.TrimSuffix(cwd, "/"+filepath.Clean(p))
	}
	modes := map[string]int{}
	example := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		k := "file " + info.Mode().Perm().String()
		if d.IsDir() {
			k = "dir " + info.Mode().Perm().String()
		} else if !info.Mode().IsRegular() {
			k = info.Mode().Type().String() + " " + info.Mode().Perm().String()
		}
		modes[k]++
		if _, ok := example[k]; !ok || strings.HasSuffix(p, ".sh") {
			example[k], _ = filepath.Rel(root, p)
		}
		return nil
	})
	var ms []string
	for k, n := range modes {
		ms = append(ms, fmt.Sprintf("%s ×%d (e.g. %s)", k, n, example[k]))
	}
	sort.Strings(ms)
	cm := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "spy"},
		"data": map[string]string{
			"cwd": cwd, "env": strings.Join(env, "\n"), "modes": strings.Join(ms, "; "),
			"ids": fmt.Sprintf("%d/%d", os.Getuid(), os.Getgid()),
		},
	}
	_ = json.NewEncoder(os.Stdout).Encode(cm)
}

func check(name string, f func() (string, error)) {
	start := time.Now()
	detail, err := f()
	d := time.Since(start).Round(time.Millisecond)
	if err != nil {
		failed++
		fmt.Printf("FAIL %s (%s): %v\n", name, d, err)
		return
	}
	fmt.Printf("PASS %s (%s): %s\n", name, d, detail)
}

func must(err error) {
	if err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "argocd-cmp-harness: "+format+"\n", args...)
	os.Exit(2)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
