package cli

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/metaop"
	"github.com/odlm-render/odlm-render/internal/output"
)

type convertFlags struct {
	output    string
	namespace string
	verbose   bool
}

// newConvertCmd is `odlm-render convert`: Meta Operator CRs (MetaOperatorCatalog,
// MetaOperatorConfig, MetaOperatorSet) in, the equivalent ODLM CRs out (internal/metaop), every
// other document untouched.
func newConvertCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f convertFlags
	cmd := &cobra.Command{
		Use:   "convert [flags] PATH...",
		Short: "Convert Meta Operator CRs (ODLM's predecessor) into the equivalent ODLM CRs",
		Long: `Convert reads files and folders (recursively: *.yaml, *.yml, *.json; "-" is stdin) and
prints them with every MetaOperatorCatalog, MetaOperatorConfig and MetaOperatorSet replaced by
the equivalent OperandRegistry, OperandConfig and OperandRequest (a Catalog, Config and Set of
one name and namespace become the registry, config and request of that name and namespace;
the request asks for the Set's present services). Other documents are printed unchanged.
Output is sorted, so the same inputs in any order print the same bytes.

Exit status: 0 success, 1 when any error was found (nothing is printed on stdout then),
2 for wrong usage.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("convert needs at least one PATH (\"-\" for stdin)")}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if _, err := output.ParseFormat(f.output); err != nil {
				return usageError{err}
			}
			return runConvert(f, args, stdin, stdout, stderr)
		},
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", "yaml", "output format: yaml (a \"---\" separated stream) or json (a v1 List)")
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "namespace for Meta Operator CRs that have none")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "also print info results")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return cmd
}

func runConvert(f convertFlags, paths []string, stdin io.Reader, stdout, stderr io.Writer) error {
	docs, err := inputs.ReadPaths(paths, stdin)
	if err != nil {
		return err
	}
	out, results := metaop.Convert(docs, metaop.Options{DefaultNamespace: f.namespace})
	if !results.HasErrors() {
		// what render would refuse (documents that are not objects) is refused here too; the
		// Kind: typo of Meta CRs was reported above with its fix
		if _, err := inputs.Classify(docs); err != nil {
			return err
		}
		found := false
		for _, d := range docs {
			found = found || metaop.IsInput(d)
		}
		if !found {
			results = append(results, diag.Result{Severity: diag.Warning, Message: "no MetaOperatorCatalog, MetaOperatorConfig or MetaOperatorSet among the inputs: nothing was converted"})
		}
	}
	return output.Stream{Stdout: stdout, Stderr: stderr, Format: output.Format(f.output), Verbose: f.verbose}.Write(out, results)
}
