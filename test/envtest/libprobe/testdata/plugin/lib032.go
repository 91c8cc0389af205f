//go:build lib032

package main

import (
	"context"
	"path/filepath"

	"google.golang.org/grpc"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	drapbv1alpha4 "k8s.io/kubelet/pkg/apis/dra/v1alpha4"
	drapbv1beta1 "k8s.io/kubelet/pkg/apis/dra/v1beta1"
)

// node is the driver's node server of v0.32: v1beta1, and v1alpha4
// through the library's own wrapper, as the line's example driver does.
type node struct{}

func (node) NodePrepareResources(context.Context, *drapbv1beta1.NodePrepareResourcesRequest) (*drapbv1beta1.NodePrepareResourcesResponse, error) {
	return &drapbv1beta1.NodePrepareResourcesResponse{}, nil
}

func (node) NodeUnprepareResources(_ context.Context, req *drapbv1beta1.NodeUnprepareResourcesRequest) (*drapbv1beta1.NodeUnprepareResourcesResponse, error) {
	resp := &drapbv1beta1.NodeUnprepareResourcesResponse{Claims: map[string]*drapbv1beta1.NodeUnprepareResourceResponse{}}
	for _, c := range req.Claims {
		resp.Claims[c.UID] = &drapbv1beta1.NodeUnprepareResourceResponse{}
	}
	return resp, nil
}

func serve(ctx context.Context, driver, dir string, called grpc.UnaryServerInterceptor) (func(), error) {
	socket := filepath.Join(dir, "plugin", "dra.sock")
	p, err := kubeletplugin.Start(ctx, []interface{}{node{}, drapbv1alpha4.V1Beta1ServerWrapper{DRAPluginServer: node{}}},
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
