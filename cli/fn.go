package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/claimbridge/claimbridge/krm"
)

func newFnCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "fn",
		Short: "Run as a KRM function: convert the DRA objects of a ResourceList on standard input",
		Long: `fn is claimbridge as a KRM function (a kustomize exec transformer): it reads a
ResourceList on standard input and writes it on standard output, every
object converted as claimbridge convert --to converts it. The target comes
from the function config, a ConfigMap with data.to (a release or version,
as convert's --to takes). What is not changed is left as it is, comments included. Warnings,
notes and refusals are the ResourceList's results (severity warning, info,
error), with the object and, where known, the field; warnings and refusals
are printed on standard error too. A refusal fails the function (exit 1).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			rw := &kio.ByteReadWriter{Reader: s.in, Writer: s.out, KeepReaderAnnotations: true}
			err := framework.Execute(framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
				err := krm.Convert(rl)
				for _, r := range rl.Results {
					if r.Severity != framework.Info {
						fmt.Fprintln(s.err, r)
					}
				}
				return err
			}), rw)
			var results framework.Results
			if errors.As(err, &results) {
				return withCode(ExitInvalid, errors.New("the ResourceList was not converted"))
			}
			return withCode(ExitBadInput, err)
		},
	}
}
