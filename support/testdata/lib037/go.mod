module example.com/gpu-driver

go 1.26

require (
	k8s.io/api v0.36.0
	k8s.io/client-go v0.37.0-20260701120000-0123456789ab
	k8s.io/dynamic-resource-allocation v0.37.1
)

replace k8s.io/api => k8s.io/api v0.37.2
