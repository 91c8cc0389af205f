module example.com/taint-driver

go 1.25

require (
	k8s.io/client-go v0.35.0
	k8s.io/dynamic-resource-allocation v0.35.0
)
