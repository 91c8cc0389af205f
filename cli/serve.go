package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(lead): placeholder until the serve command lands.
func newServeCommand(s streams) *cobra.Command {
	return &cobra.Command{Use: "serve", RunE: func(*cobra.Command, []string) error { return errors.New("not implemented") }}
}
