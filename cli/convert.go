package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(lead): placeholder until the convert command lands.
func newConvertCommand(s streams) *cobra.Command {
	return &cobra.Command{Use: "convert", RunE: func(*cobra.Command, []string) error { return errors.New("not implemented") }}
}
