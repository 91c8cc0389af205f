package main

import "k8s.io/client-go/kubernetes"

func list(cs kubernetes.Interface) {
	cs.ResourceV1().ResourceClaims("").List(nil, nil)
}
