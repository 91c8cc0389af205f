module example.com/drivers

go 1.25

require (
	k8s.io/client-go v0.35.1
	k8s.io/dynamic-resource-allocation v0.0.0
)

// A commit of the Kubernetes tree on the line of 1.35.
replace k8s.io/dynamic-resource-allocation => github.com/example/kubernetes/staging/src/k8s.io/dynamic-resource-allocation v0.0.0-20250910120000-0123456789ab
