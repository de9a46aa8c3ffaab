package cli

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/collection"
	"github.com/odlm-render/odlm-render/internal/output"
)

type collectionFlags struct {
	output    string
	namespace string
}

// newCollectionCmd is `odlm-render collection PATH`: it checks an Ansible collection's
// operator-config against the OperatorCollection specification and prints the CRDs and RBAC
// objects that z/OS Cloud Broker creates when it imports the collection.
func newCollectionCmd(stdout, stderr io.Writer) *cobra.Command {
	var f collectionFlags
	cmd := &cobra.Command{
		Use:   "collection [flags] PATH",
		Short: "Validate an Ansible collection's operator-config (OperatorCollection) and render its CRDs and RBAC",
		Long: `collection reads an Ansible collection that follows the OperatorCollection specification
(the operator-config that IBM z/OS Cloud Broker imports as an operator): PATH is the
collection's folder, a built collection archive (.tar.gz) or the operator-config file.

It checks every MUST of the specification (file:line diagnostics on stderr) and prints what
an import creates: one CustomResourceDefinition per resource (group <name>.<domain>, an
OpenAPI schema from the resource's vars) and the ClusterRole and Role of clusterRoles and
roles.

Exit status: 0 success, 1 when any error was found (nothing is printed on stdout then),
2 for wrong usage.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("collection needs exactly one PATH (a collection folder, a .tar.gz archive or an operator-config file)")}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if _, err := output.ParseFormat(f.output); err != nil {
				return usageError{err}
			}
			return runCollection(f, args[0], stdout, stderr)
		},
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", "yaml", "output format: yaml (a \"---\" separated stream) or json (a v1 List)")
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "namespace of the Role rendered from roles (default: none, the namespace it is applied to)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

func runCollection(f collectionFlags, path string, stdout, stderr io.Writer) error {
	out, err := collection.Render(path, collection.Options{Namespace: f.namespace})
	if err != nil {
		return err
	}
	return output.Stream{Stdout: stdout, Stderr: stderr, Format: output.Format(f.output)}.Write(out.Objects, out.Results)
}
