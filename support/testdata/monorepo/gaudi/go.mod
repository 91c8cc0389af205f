module example.com/drivers/gaudi

go 1.24

require k8s.io/dynamic-resource-allocation v0.33.2
