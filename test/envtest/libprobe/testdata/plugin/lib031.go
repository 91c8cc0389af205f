//go:build lib031

package main

import (
	"context"
	"path/filepath"

	"google.golang.org/grpc"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	drapb "k8s.io/kubelet/pkg/apis/dra/v1alpha4"
)

// node is the driver's node server of v0.31: v1alpha4 only.
type node struct{}

func (node) NodePrepareResources(context.Context, *drapb.NodePrepareResourcesRequest) (*drapb.NodePrepareResourcesResponse, error) {
	return &drapb.NodePrepareResourcesResponse{}, nil
}

func (node) NodeUnprepareResources(_ context.Context, req *drapb.NodeUnprepareResourcesRequest) (*drapb.NodeUnprepareResourcesResponse, error) {
	resp := &drapb.NodeUnprepareResourcesResponse{Claims: map[string]*drapb.NodeUnprepareResourceResponse{}}
	for _, c := range req.Claims {
		resp.Claims[c.UID] = &drapb.NodeUnprepareResourceResponse{}
	}
	return resp, nil
}

func serve(ctx context.Context, driver, dir string, called grpc.UnaryServerInterceptor) (func(), error) {
	socket := filepath.Join(dir, "plugin", "dra.sock")
	p, err := kubeletplugin.Start(ctx, node{},
		kubeletplugin.DriverName(driver),
		kubeletplugin.RegistrarSocketPath(registrar(dir, driver)),
		kubeletplugin.PluginSocketPath(socket),
		kubeletplugin.KubeletPluginSocketPath(socket),
		kubeletplugin.GRPCInterceptor(called))
	if err != nil {
		return nil, err
	}
	return p.Stop, nil
}
