module example.com/gpu-driver

go 1.24

require (
	k8s.io/api v0.33.4
	k8s.io/client-go v0.33.4
	k8s.io/dynamic-resource-allocation v0.33.4
)
