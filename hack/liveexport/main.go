// Command liveexport starts the current release's kube-apiserver
// (KUBEBUILDER_ASSETS, as hack/envtest-assets.sh --env prints it) holding
// -n resource.k8s.io/v1 ResourceClaims, 100 a namespace, writes a
// kubeconfig with the context live, and waits for SIGINT or SIGTERM, so
// that claimbridge export can be measured against a real apiserver:
//
//	env $(hack/envtest-assets.sh --env) go run ./hack/liveexport -n 5000 -out /tmp/live.kubeconfig &
//	/usr/bin/time -v claimbridge export --kubeconfig /tmp/live.kubeconfig --context live > /dev/null
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

func main() {
	n := flag.Int("n", 5000, "number of ResourceClaims")
	kubeconfig := flag.String("out", "", "write the kubeconfig here (required)")
	flag.Parse()
	if err := run(*n, *kubeconfig); err != nil {
		fmt.Fprintln(os.Stderr, "liveexport:", err)
		os.Exit(1)
	}
}

func run(n int, kubeconfig string) error {
	if kubeconfig == "" {
		return fmt.Errorf("-out is required")
	}
	assets, err := harness.AssetsDir()
	if err != nil {
		return err
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	config, err := env.Start()
	if err != nil {
		return err
	}
	defer func() { _ = harness.StopControlPlane(env, "") }()
	config.QPS, config.Burst = 1000, 1000
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// 8 creates at a time; the first error ends the run.
	slots, errs := make(chan struct{}, 8), make(chan error, n)
	for i := 0; i < n; i++ {
		ns := "team-" + strconv.Itoa(i/100)
		if i%100 == 0 {
			namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
			if _, err := client.CoreV1().Namespaces().Create(ctx, namespace, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		slots <- struct{}{}
		go func() {
			_, err := client.ResourceV1().ResourceClaims(ns).Create(ctx, claim(i), metav1.CreateOptions{})
			errs <- err
			<-slots
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			return err
		}
	}
	if err := harness.WriteContexts(kubeconfig, map[string]*rest.Config{"live": config}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "liveexport: %d claims; kubeconfig %s, context live; SIGINT stops\n", n, kubeconfig)
	<-ctx.Done()
	return nil
}

// claim is claim i: two requests with CEL selectors, a label.
func claim(i int) *resourcev1.ResourceClaim {
	request := func(name string, count int64) resourcev1.DeviceRequest {
		return resourcev1.DeviceRequest{Name: name, Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "gpu.example.com",
			AllocationMode:  resourcev1.DeviceAllocationModeExactCount, Count: count,
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
				Expression: `device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`,
			}}},
		}}
	}
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "claim-" + strconv.Itoa(i), Labels: map[string]string{"app": "trainer-" + strconv.Itoa(i%10)}},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
			request("gpu", 2), request("spare", 1),
		}}},
	}
}
