// Command plugin serves one release line of k8s.io/dynamic-resource-allocation's
// kubelet plugin as a driver does: its registrar in DIR/registry and its
// DRA gRPC service in DIR/plugin, every version the line serves. It prints
// "serving" once both listen, then the full name of each gRPC method called
// ("/v1beta1.DRAPlugin/NodeUnprepareResources"), one per line, until killed.
//
// It is built outside claimbridge's module, against one library release,
// with the build tag of its line (lib031, lib032, lib033, lib034 for
// v0.34–v0.36, lib037): see libprobe's TestKubeletPlugins.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"google.golang.org/grpc"
)

func main() {
	dir := flag.String("dir", "", "the directory of the sockets")
	driver := flag.String("driver", "probe.example.com", "the driver name to register")
	flag.Parse()
	for _, sub := range []string{"registry", "plugin"} {
		if err := os.MkdirAll(filepath.Join(*dir, sub), 0o755); err != nil {
			fail(err)
		}
	}
	var mu sync.Mutex
	called := func(ctx context.Context, req interface{}, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (interface{}, error) {
		mu.Lock()
		fmt.Println(info.FullMethod)
		mu.Unlock()
		return handler(ctx, req)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	stop, err := serve(ctx, *driver, *dir, called)
	if err != nil {
		fail(err)
	}
	mu.Lock()
	fmt.Println("serving")
	mu.Unlock()
	<-ctx.Done()
	stop()
}

// registrar is the registration socket the kubelet finds in DIR/registry.
func registrar(dir, driver string) string {
	return filepath.Join(dir, "registry", driver+"-reg.sock")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "plugin:", err)
	os.Exit(1)
}
