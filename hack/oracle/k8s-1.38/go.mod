// Tools module: the upstream validation oracle of Kubernetes 1.38, from the
// sources of its pre-release (see hack/oracle-assets.sh and docs/validation.md).
// Those need Go 1.27 (the toolchain line); every k8s.io staging module
// k8s.io/kubernetes requires at v0.0.0 is pinned to the matching v0.38 tag,
// and structured-merge-diff to the release the proxy serves.
module github.com/claimbridge/claimbridge/hack/oracle/k8s-1.38

go 1.27.0

toolchain go1.27.3

require (
	k8s.io/api v0.38.0-beta.0
	k8s.io/apimachinery v0.38.0-beta.0
	k8s.io/apiserver v0.38.0-beta.0
	k8s.io/client-go v0.38.0-beta.0
	k8s.io/kubernetes v1.38.0-beta.0
)

require (
	cel.dev/cel-go v0.33.2 // indirect
	cel.dev/expr v0.25.3 // indirect
	github.com/antlr4-go/antlr/v4 v4.13.1 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/blang/semver/v4 v4.0.0 // indirect
	github.com/cenkalti/backoff/v5 v5.0.3 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coreos/go-semver v0.3.1 // indirect
	github.com/coreos/go-systemd/v22 v22.7.0 // indirect
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/distribution/reference v0.6.0 // indirect
	github.com/emicklei/go-restful/v3 v3.14.0 // indirect
	github.com/felixge/httpsnoop v1.1.0 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/fxamacker/cbor/v2 v2.9.4 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-openapi/jsonpointer v1.0.2 // indirect
	github.com/go-openapi/jsonreference v1.0.2 // indirect
	github.com/go-openapi/swag/conv v0.29.2 // indirect
	github.com/go-openapi/swag/jsonutils v0.29.2 // indirect
	github.com/go-openapi/swag/pools v0.29.2 // indirect
	github.com/go-openapi/swag/typeutils v0.29.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/google/gnostic-models v0.7.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus v1.1.0 // indirect
	github.com/grpc-ecosystem/go-grpc-middleware/v2 v2.3.3 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.29.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/pandatix/go-abnf v0.5.5 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.73.1 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/robfig/cron/v3 v3.0.1 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.etcd.io/etcd/api/v3 v3.7.3 // indirect
	go.etcd.io/etcd/client/pkg/v3 v3.7.3 // indirect
	go.etcd.io/etcd/client/v3 v3.7.3 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc v0.72.0 // indirect
	go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp v0.72.0 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace v1.47.0 // indirect
	go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc v1.45.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.opentelemetry.io/proto/otlp v1.11.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.1 // indirect
	go.yaml.in/yaml/v2 v2.4.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260928230214-8a89bd6388cc // indirect
	google.golang.org/grpc v1.85.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	gopkg.in/evanphx/json-patch.v4 v4.13.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	k8s.io/apiextensions-apiserver v0.0.0 // indirect
	k8s.io/component-base v0.38.0-beta.0 // indirect
	k8s.io/component-helpers v0.38.0-beta.0 // indirect
	k8s.io/controller-manager v0.0.0 // indirect
	k8s.io/dynamic-resource-allocation v0.0.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	k8s.io/kube-openapi v0.0.0-20261014044854-ca3452a79603 // indirect
	k8s.io/kubelet v0.38.0-beta.0 // indirect
	k8s.io/streaming v0.38.0-beta.0 // indirect
	k8s.io/utils v0.0.0-20260626114624-be93311217bd // indirect
	sigs.k8s.io/apiserver-network-proxy/konnectivity-client v0.37.0 // indirect
	sigs.k8s.io/json v0.0.0-20250730193827-2d320260d730 // indirect
	sigs.k8s.io/randfill v1.0.0 // indirect
	sigs.k8s.io/structured-merge-diff/v7 v7.0.1 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

replace (
	k8s.io/api => k8s.io/api v0.38.0-beta.0
	k8s.io/apiextensions-api => k8s.io/apiextensions-api v0.38.0-beta.0
	k8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.38.0-beta.0
	k8s.io/apimachinery => k8s.io/apimachinery v0.38.0-beta.0
	k8s.io/apiserver => k8s.io/apiserver v0.38.0-beta.0
	k8s.io/cli-runtime => k8s.io/cli-runtime v0.38.0-beta.0
	k8s.io/client-go => k8s.io/client-go v0.38.0-beta.0
	k8s.io/cloud-provider => k8s.io/cloud-provider v0.38.0-beta.0
	k8s.io/cluster-bootstrap => k8s.io/cluster-bootstrap v0.38.0-beta.0
	k8s.io/code-generator => k8s.io/code-generator v0.38.0-beta.0
	k8s.io/component-base => k8s.io/component-base v0.38.0-beta.0
	k8s.io/component-helpers => k8s.io/component-helpers v0.38.0-beta.0
	k8s.io/controller-manager => k8s.io/controller-manager v0.38.0-beta.0
	k8s.io/cri-api => k8s.io/cri-api v0.38.0-beta.0
	k8s.io/cri-client => k8s.io/cri-client v0.38.0-beta.0
	k8s.io/cri-streaming => k8s.io/cri-streaming v0.38.0-beta.0
	k8s.io/csi-translation-lib => k8s.io/csi-translation-lib v0.38.0-beta.0
	k8s.io/dynamic-resource-allocation => k8s.io/dynamic-resource-allocation v0.38.0-beta.0
	k8s.io/endpointslice => k8s.io/endpointslice v0.38.0-beta.0
	k8s.io/externaljwt => k8s.io/externaljwt v0.38.0-beta.0
	k8s.io/kms => k8s.io/kms v0.38.0-beta.0
	k8s.io/ktesting => k8s.io/ktesting v0.38.0-beta.0
	k8s.io/kube-aggregator => k8s.io/kube-aggregator v0.38.0-beta.0
	k8s.io/kube-controller-manager => k8s.io/kube-controller-manager v0.38.0-beta.0
	k8s.io/kube-proxy => k8s.io/kube-proxy v0.38.0-beta.0
	k8s.io/kube-scheduler => k8s.io/kube-scheduler v0.38.0-beta.0
	k8s.io/kubectl => k8s.io/kubectl v0.38.0-beta.0
	k8s.io/kubelet => k8s.io/kubelet v0.38.0-beta.0
	k8s.io/metrics => k8s.io/metrics v0.38.0-beta.0
	k8s.io/mount-utils => k8s.io/mount-utils v0.38.0-beta.0
	k8s.io/pod-security-admission => k8s.io/pod-security-admission v0.38.0-beta.0
	k8s.io/sample-apiserver => k8s.io/sample-apiserver v0.38.0-beta.0
	k8s.io/sample-cli-plugin => k8s.io/sample-cli-plugin v0.38.0-beta.0
	k8s.io/sample-controller => k8s.io/sample-controller v0.38.0-beta.0
	k8s.io/streaming => k8s.io/streaming v0.38.0-beta.0
	sigs.k8s.io/structured-merge-diff/v7 => sigs.k8s.io/structured-merge-diff/v7 v7.0.0
)
