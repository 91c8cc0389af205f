package api

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The components of a cluster that read and write DRA objects through the
// version of their own release, and a driver's library.
const (
	Kubelet           = "kubelet"
	Scheduler         = "kube-scheduler"
	ControllerManager = "kube-controller-manager"
	// DriverLibrary is k8s.io/dynamic-resource-allocation: its v0.N is
	// built from release 1.N.
	DriverLibrary = "dynamic-resource-allocation"
	// DRAGRPC is, in components.tsv, what a kubelet speaks to drivers, or a
	// driver's kubeletplugin serves: versions of k8s.io/kubelet/pkg/apis/dra.
	DRAGRPC = "dra-grpc"
)

//go:embed components.tsv
var componentsTSV string

// components are components.tsv (hack/components): by release, component
// and resource (or DRAGRPC), the versions, oldest first.
var components = sync.OnceValue(func() map[componentKey][]string {
	out := map[componentKey][]string{}
	for _, f := range tsvRows(componentsTSV, 4) {
		minor, _ := ParseMinor(f[0])
		out[componentKey{minor, f[1], f[2]}] = strings.Split(f[3], ",")
	}
	return out
})

type componentKey struct {
	minor               int
	component, resource string
}

// tsvRows are the rows of a tab-separated table of n columns; lines of
// another length and comments are left out.
func tsvRows(text string, n int) [][]string {
	var out [][]string
	for line := range strings.Lines(text) {
		if f := strings.Split(strings.TrimSuffix(line, "\n"), "\t"); len(f) == n && !strings.HasPrefix(f[0], "#") {
			out = append(out, f)
		}
	}
	return out
}

// Reads is the resource.k8s.io version through which component of release
// minor reads and writes kind: the newest its sources call; "" when it
// does not.
func Reads(minor int, component, kind string) string {
	vs := Through(minor, component, kind)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// Through are the resource.k8s.io versions that component of release minor
// calls for kind, oldest first: a driver's library from 1.34 writes
// through the newest of them that the cluster serves.
func Through(minor int, component, kind string) []string {
	return components()[componentKey{minor, component, Resource(kind)}]
}

// GRPC are the DRA gRPC versions (k8s.io/kubelet/pkg/apis/dra) that the
// kubelet of release minor speaks, or that the kubeletplugin of
// k8s.io/dynamic-resource-allocation v0.minor serves (component
// DriverLibrary).
func GRPC(minor int, component string) []string {
	return components()[componentKey{minor, component, DRAGRPC}]
}

// ServiceNames is the first release whose kubelet reads a DRA plugin's
// registration as gRPC service names ("v1beta1.DRAPlugin") and whose
// kubeletplugin registers them. Older kubelets read it as semantic
// versions (utilversion.HighestSupportedVersion; older kubeletplugins
// register "1.0.0") and refuse names: no kubeletplugin of v0.32 or later
// registers with a kubelet of 1.31 or older, whatever gRPC both speak.
const ServiceNames = 32

// SharedGRPC are the DRA gRPC versions, oldest first, through which the
// kubelet of release kubelet can call the kubeletplugin of
// k8s.io/dynamic-resource-allocation v0.lib: both speak them, and the
// kubelet accepts its registration.
func SharedGRPC(kubelet, lib int) []string {
	if kubelet < ServiceNames && lib >= ServiceNames {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(GRPC(kubelet, Kubelet)), func(v string) bool { return !slices.Contains(GRPC(lib, DriverLibrary), v) })
}

// Libraries names the releases of k8s.io/dynamic-resource-allocation whose
// kubeletplugin release minor's kubelet can call: "v0.32–v0.38"; "" when
// none.
func Libraries(minor int) string {
	return libraries(func(r int) bool { return len(SharedGRPC(minor, r)) > 0 })
}

// LibrariesWriting names the releases of k8s.io/dynamic-resource-allocation
// that can write kind through version: "v0.34–v0.38"; "" for none.
func LibrariesWriting(kind, version string) string {
	return libraries(func(r int) bool { return slices.Contains(Through(r, DriverLibrary, kind), version) })
}

// libraries names the range of the releases of
// k8s.io/dynamic-resource-allocation for which ok holds.
func libraries(ok func(minor int) bool) string {
	var in []int
	for _, r := range Releases {
		if ok(r.Minor) {
			in = append(in, r.Minor)
		}
	}
	switch len(in) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("v0.%d", in[0])
	}
	return fmt.Sprintf("v0.%d–v0.%d", in[0], in[len(in)-1])
}

// Skew says how a kubelet of release kubelet breaks the version skew
// policy under kube-apiserver of release apiserver: a kubelet must not be
// newer, nor more than three minors older (two before 1.28); "" when it
// is within it.
func Skew(apiserver, kubelet int) string {
	oldest := apiserver - 3
	if apiserver < 28 {
		oldest = apiserver - 2
	}
	switch {
	case kubelet > apiserver:
		return fmt.Sprintf("kubelet 1.%d is newer than kube-apiserver 1.%d: the version skew policy forbids it", kubelet, apiserver)
	case kubelet < oldest:
		return fmt.Sprintf("kubelet 1.%d is %d minors older than kube-apiserver 1.%d: the version skew policy allows %d (kubelets 1.%d–1.%[3]d)",
			kubelet, apiserver-kubelet, apiserver, apiserver-oldest, oldest)
	}
	return ""
}

// KindOfResource is the kind of a resource of resource.k8s.io
// ("resourceclaims"); "" for one claimbridge does not know.
func KindOfResource(resource string) string {
	for _, l := range lifecycles {
		for _, kind := range l.kinds {
			if Resource(kind) == resource {
				return kind
			}
		}
	}
	return ""
}
