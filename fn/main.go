// Command fn is odlm-render as a KRM function (kustomize generators/transformers, kpt
// pipelines): a ResourceList on stdin, a ResourceList on stdout, non-zero exit when any
// error result exists (kustomize ignores results and only sees the exit code; the errors
// are also printed on stderr, which kustomize and kpt show).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/internal/version"
	"github.com/odlm-render/odlm-render/pkg/render"
)

const usage = `odlm-render-fn renders ODLM OperandRequests, OperandRegistries and OperandConfigs as a
KRM function: it reads a ResourceList on stdin and writes one on stdout. Its functionConfig
is a RenderConfig (odlm-render.io/v1alpha1) or a ConfigMap; see docs/krm-function.md. Exit status: 0, 1 when a result is an error, 2 for a misuse.

Usage:
  odlm-render-fn < resourcelist.yaml
  odlm-render-fn --help | --version
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, render.Render))
}

// run is the whole program, calling eng to render; it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, eng engine) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "--version", "version":
			fmt.Fprintln(stdout, version.Version)
			return 0
		default:
			fmt.Fprintf(stderr, "odlm-render-fn: unexpected argument %q: the function reads a ResourceList on stdin\n\n%s", args[0], usage)
			return 2
		}
	}
	if err := fileread.CheckEnv(); err != nil {
		fmt.Fprintf(stderr, "odlm-render-fn: %v\n", err)
		return 2
	}
	within, err := readRoots(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "odlm-render-fn: %v\n", err)
		return 2
	}
	failed, err := process(stdin, stdout, stderr, eng, within)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "odlm-render-fn: %v\n", err)
		return 1
	case failed:
		return 1
	}
	return 0
}
