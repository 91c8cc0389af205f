// Package framework helps the e2e tests; no binary imports it.
package framework

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Taints lists the taint rules.
func Taints(cs kubernetes.Interface) {
	_, _ = cs.ResourceV1alpha3().DeviceTaintRules().List(context.Background(), metav1.ListOptions{})
}
