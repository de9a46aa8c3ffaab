// Command minimal-fn is the smallest kyaml KRM function: it passes the items of its
// ResourceList through unchanged. scripts/bench.sh compares odlm-render-fn's start-up time
// with it.
package main

import (
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
)

func main() {
	cmd := command.Build(framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil }),
		command.StandaloneDisabled, false)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
