// A controller whose optional features are behind command-line flags.
package main

import (
	"flag"
	"os"

	"github.com/urfave/cli/v2"
)

type options struct {
	health, status bool
}

// taints is off by default.
var taints bool

func main() {
	var o options
	flag.BoolVar(&taints, "device-taints", false, "Taint the devices that fail.")
	app := &cli.App{
		Flags: []cli.Flag{
			// Off by default.
			&cli.BoolFlag{Name: "health-monitoring", Aliases: []string{"m"}, Destination: &o.health},
			// On by default.
			&cli.BoolFlag{Name: "publish-status", Value: true, Destination: &o.status},
		},
		Action: func(*cli.Context) error { return run(o) },
	}
	_ = app.Run(os.Args)
}
