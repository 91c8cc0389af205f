module example.com/controller

go 1.26

require k8s.io/client-go v0.36.1
