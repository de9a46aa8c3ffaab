// Command odlm-render renders ODLM custom resources and OLM catalog data into the plain
// manifests the ODLM controller would create. It holds no rendering logic: it reads files,
// calls pkg/render and prints.
package main

import (
	"os"

	"github.com/odlm-render/odlm-render/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
