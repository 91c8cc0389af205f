//go:build lib033 || lib034 || lib037

package main

import (
	"context"
	"path/filepath"

	"google.golang.org/grpc"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
)

// driver is the driver of v0.33 and later: the library's helper serves
// every DRA gRPC version of the line and calls it.
type driver struct{}

func (driver) PrepareResourceClaims(context.Context, []*claim) (map[types.UID]kubeletplugin.PrepareResult, error) {
	return nil, nil
}

func (driver) UnprepareResourceClaims(_ context.Context, claims []kubeletplugin.NamespacedObject) (map[types.UID]error, error) {
	result := map[types.UID]error{}
	for _, c := range claims {
		result[c.UID] = nil
	}
	return result, nil
}

func serve(ctx context.Context, name, dir string, called grpc.UnaryServerInterceptor) (func(), error) {
	// Unprepare reads nothing from the API: the client is never used.
	client, err := kubernetes.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		return nil, err
	}
	h, err := kubeletplugin.Start(ctx, driver{},
		kubeletplugin.DriverName(name),
		kubeletplugin.KubeClient(client),
		kubeletplugin.NodeName("node-1"),
		kubeletplugin.RegistrarDirectoryPath(filepath.Join(dir, "registry")),
		kubeletplugin.PluginDataDirectoryPath(filepath.Join(dir, "plugin")),
		kubeletplugin.GRPCInterceptor(called))
	if err != nil {
		return nil, err
	}
	return h.Stop, nil
}
