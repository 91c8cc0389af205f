package gpu

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// legacy is not in a linux build.
func legacy() {
	_, _ = cs.ResourceV1alpha3().ResourceClaims("ns").Get(context.Background(), "c", metav1.GetOptions{})
}
