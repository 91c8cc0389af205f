module example.com/flag-driver

go 1.25

require (
	github.com/urfave/cli/v2 v2.27.7
	k8s.io/client-go v0.36.0
)
