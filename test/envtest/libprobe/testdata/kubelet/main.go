// Command kubelet is one release's kubelet as a DRA driver meets it: it
// finds the driver's registration socket, asks it for its info, validates
// and registers it with that release's own DRA plugin handler
// (k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin), tells the driver the
// outcome as the kubelet's plugin manager does, and calls
// NodeUnprepareResources for one claim through that release's own DRA
// gRPC client. It prints {"register": …, "call": …} as JSON: "ok", or
// what failed.
//
// It is built outside claimbridge's module, in a module whose go.mod is
// the release's kube-apiserver's (hack/tools), with the build tag of its
// API (k131 … k137): see libprobe's
// TestKubeletPlugins.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

// Result is what the kubelet prints.
type Result struct {
	Register string `json:"register"`
	Call     string `json:"call"`
}

// The claim the kubelet unprepares.
const namespace, claimName, claimUID = "default", "probe", "2b5a1c6e-0d3f-4a44-9c1e-6f8a2b9d0e11"

func main() {
	socket := flag.String("registrar", "", "the driver's registration socket")
	timeout := flag.Duration("timeout", 10*time.Second, "how long to wait for each call")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	//nolint:staticcheck // the kubelet's plugin manager dials so.
	conn, err := grpc.Dial(*socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", addr)
		}))
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	client := registerapi.NewRegistrationClient(conn)
	info, err := client.GetInfo(ctx, &registerapi.InfoRequest{})
	if err != nil {
		fail(fmt.Errorf("GetInfo: %w", err))
	}
	r := Result{Register: "ok", Call: "-"}
	var call func(context.Context) error
	switch {
	case info.Type != registerapi.DRAPlugin:
		err = fmt.Errorf("no handler registered for plugin type: %s", info.Type)
	default:
		call, err = register(ctx, info.Name, info.Endpoint, info.SupportedVersions)
	}
	status := &registerapi.RegistrationStatus{PluginRegistered: err == nil}
	if err != nil {
		r.Register, status.Error = err.Error(), "RegisterPlugin error -- "+err.Error()
	}
	// The library answers a failed registration with an error.
	if _, err := client.NotifyRegistrationStatus(ctx, status); err != nil && status.PluginRegistered {
		fail(fmt.Errorf("NotifyRegistrationStatus: %w", err))
	}
	if call != nil {
		r.Call = "ok"
		if err := call(ctx); err != nil {
			r.Call = err.Error()
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fail(err)
	}
}

// unprepared checks the driver's answer for the claim.
func unprepared(claims map[string]string, err error) error {
	if err != nil {
		return err
	}
	msg, ok := claims[claimUID]
	switch {
	case !ok:
		return fmt.Errorf("no result for claim %s", claimUID)
	case msg != "":
		return fmt.Errorf("claim %s: %s", claimUID, msg)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubelet:", err)
	os.Exit(1)
}
