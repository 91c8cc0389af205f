package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(lead): placeholder until the validate command lands.
func newValidateCommand(s streams) *cobra.Command {
	return &cobra.Command{Use: "validate", RunE: func(*cobra.Command, []string) error { return errors.New("not implemented") }}
}
