// Package gpu is the gpu driver.
package gpu

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

var cs kubernetes.Interface

// Run reads a claim through v1.
func Run() {
	_, _ = cs.ResourceV1().ResourceClaims("ns").Get(context.Background(), "c", metav1.GetOptions{})
}
