// Package qat is the qat driver.
package qat

import (
	"context"

	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

var cs kubernetes.Interface

// Run reads a claim through v1beta1, then writes its status through v1beta2.
func Run() {
	claim, err := cs.ResourceV1beta1().ResourceClaims("ns").Get(context.Background(), "c", metav1.GetOptions{})
	if err != nil {
		klog.Fatal(err)
	}
	updateStatus(claim)
}

// updateStatus reports the devices' health; the driver runs without it.
func updateStatus(claim *resourcev1beta1.ResourceClaim) {
	if _, err := cs.ResourceV1beta2().ResourceClaims("ns").UpdateStatus(context.Background(), nil, metav1.UpdateOptions{}); err != nil {
		klog.ErrorS(err, "health status not written", "claim", claim.Name)
	}
}
