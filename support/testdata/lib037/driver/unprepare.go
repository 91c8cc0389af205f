package driver

import (
	"context"

	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// unprepare reads the claim once more before it lets its devices go.
func unprepare(ctx context.Context, client kubernetes.Interface, ns, name string) (*resourcev1beta1.ResourceClaim, error) {
	return client.ResourceV1beta1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
}
