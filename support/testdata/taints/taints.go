package main

import (
	"context"

	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// taint marks a device unhealthy for every claim.
func taint(ctx context.Context, cs kubernetes.Interface, rule *resourcev1alpha3.DeviceTaintRule) error {
	_, err := cs.ResourceV1alpha3().DeviceTaintRules().Create(ctx, rule, metav1.CreateOptions{})
	return err
}
