package main

import (
	"context"

	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

var cs kubernetes.Interface

func run(o options) error {
	ctx := context.Background()
	if taints {
		rule := &resourcev1alpha3.DeviceTaintRule{}
		if _, err := cs.ResourceV1alpha3().DeviceTaintRules().Create(ctx, rule, metav1.CreateOptions{}); err != nil {
			return err
		}
		sync(ctx)
	}
	if o.health {
		go monitor(ctx)
	}
	if o.status {
		publish(ctx)
	}
	sync(ctx)
	return nil
}

// monitor runs only with --health-monitoring.
func monitor(ctx context.Context) {
	if _, err := cs.ResourceV1beta2().ResourceClaims("ns").Get(ctx, "c", metav1.GetOptions{}); err != nil {
		klog.Fatal(err)
	}
}

// publish runs unless --publish-status=false.
func publish(ctx context.Context) {
	if _, err := cs.ResourceV1beta1().ResourceClaims("ns").UpdateStatus(ctx, nil, metav1.UpdateOptions{}); err != nil {
		klog.Fatal(err)
	}
}

// sync runs with --device-taints and without.
func sync(ctx context.Context) {
	if _, err := cs.ResourceV1beta1().ResourceSlices().List(ctx, metav1.ListOptions{}); err != nil {
		klog.Fatal(err)
	}
}
