package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/internal/version"
)

func newVersionCommand(s streams) *cobra.Command {
	output := "text"
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print claimbridge's version, the commit it was built from and its Go version",
		Long: `version prints the running build of claimbridge: the release version (or
the module's pseudo-version for a build from a repository, "(devel)" for one
without either), the commit and whether the tree had uncommitted changes, and
the Go version and platform. In a cluster:

  kubectl -n claimbridge-system exec deploy/claimbridge-server -- /claimbridge version

The same version is logged when serve starts and exported as the
claimbridge_build_info metric.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			info := version.Get()
			switch output {
			case "text":
				fmt.Fprintln(s.out, info)
			case "json":
				data, err := json.MarshalIndent(info, "", "  ")
				if err != nil {
					return withCode(ExitInvalid, err)
				}
				fmt.Fprintf(s.out, "%s\n", data)
			default:
				return withCode(ExitBadInput, fmt.Errorf("--output %q: use text or json", output))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", output, "output format: text or json")
	return cmd
}
