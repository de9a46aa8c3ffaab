// Command fn is odlm-render as a KRM function (kustomize generators/transformers, kpt
// pipelines): a ResourceList on stdin, a ResourceList on stdout, non-zero exit when any
// error result exists (kustomize ignores results and only sees the exit code).
package main

import (
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
)

func main() {
	cmd := command.Build(processor{}, command.StandaloneDisabled, false)
	cmd.Use = "odlm-render-fn"
	cmd.Short = "Render ODLM OperandRequests, OperandRegistries and OperandConfigs (KRM function)"
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
