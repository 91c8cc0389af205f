# claimbridge — build, generate, verify, lint and test.
#
# A fresh machine needs only Go: every tool below is built from the Go module
# proxy into bin/ (git-ignored) on first use and cached there.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

GO               ?= go
BIN              := $(CURDIR)/bin
CONTROLLER_TOOLS := v0.23.0
CONTROLLER_GEN   := $(BIN)/controller-gen-$(CONTROLLER_TOOLS)/controller-gen
STATICCHECK_VERSION := v0.8.2
STATICCHECK      := $(BIN)/staticcheck-$(STATICCHECK_VERSION)-$(shell $(GO) env GOVERSION)/staticcheck
# (per Go version: staticcheck refuses code for a newer Go than it was built with)
CRD_OPTIONS      := crd:generateEmbeddedObjectMeta=true
# Go test flags for `make test`: verbose so that every test shows in the CI log.
TEST_FLAGS       ?= -v -count=1
TEST_TIMEOUT     ?= 45m
# The version claimbridge reports (`claimbridge version`, the start-up log,
# claimbridge_build_info). Empty: the go command's, from the repository (the
# tag of a tagged commit, else a pseudo-version; -buildvcs=auto overrides a
# GOFLAGS=-buildvcs=false). Set it for builds without .git: VERSION=v0.4.0.
VERSION          ?=
GO_BUILD_FLAGS    = -buildvcs=auto -ldflags "$(if $(LDFLAGS_STRIP),-s -w )-X github.com/claimbridge/claimbridge/internal/version.version=$(VERSION)"

.PHONY: all
all: build

##@ Build

.PHONY: build
build: ## Build the claimbridge binary into bin/ (VERSION=v0.4.0 sets the version it reports).
	$(GO) build $(GO_BUILD_FLAGS) -o $(BIN)/claimbridge ./cmd/claimbridge

##@ Code generation

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code and CRDs (config/crd/bases).
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	$(CONTROLLER_GEN) $(CRD_OPTIONS) paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(GO) run ./hack/crdmeta config/crd/bases/resource.claimbridge.dev_resourceclaimtemplates.yaml
	rm -f charts/claimbridge/files/crds/*.yaml && cp config/crd/bases/*.yaml charts/claimbridge/files/crds/

.PHONY: generate-podfields
generate-podfields: ## Regenerate migrate/podfields_generated.go, the PodSpec fields of 1.27–1.36, from k8s.io/api 1.26–1.35 and go.mod's.
	$(GO) generate ./migrate/

.PHONY: verify
verify: generate ## Regenerate and fail if anything generated differs from what is committed.
	@if [ -n "$$(git status --porcelain -- api config/crd/bases charts/claimbridge/files/crds)" ]; then \
		echo "generated files are out of date; run 'make generate' and commit:"; \
		git status --porcelain -- api config/crd/bases charts/claimbridge/files/crds; git --no-pager diff --stat -- api config/crd/bases charts/claimbridge/files/crds; exit 1; \
	fi

$(CONTROLLER_GEN):
	GOBIN=$(dir $(CONTROLLER_GEN)) GOFLAGS= $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS)

##@ Checks

.PHONY: lint
lint: $(STATICCHECK) ## gofmt, go vet and staticcheck.
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^hack/tools/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(dir $(STATICCHECK)) GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: test
test: lint verify envtest-assets oracle-assets older-builds chart-check ## Run every test: unit, fuzz round trips, CLI, server, chart and envtest suites.
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh --print-assets-dir)" KUSTOMIZE="$(BIN)/kustomize" HELM="$(BIN)/helm" PROMTOOL="$(BIN)/promtool" \
		ENVTEST_ASSETS_1_33="$$(hack/envtest-assets.sh --print-assets-dir=1.33)" \
		ENVTEST_ASSETS_1_32="$$(hack/envtest-assets.sh --print-assets-dir=1.32)" \
		ENVTEST_ASSETS_1_31="$$(hack/envtest-assets.sh --print-assets-dir=1.31)" \
		ENVTEST_ASSETS_1_30="$$(hack/envtest-assets.sh --print-assets-dir=1.30)" \
		ENVTEST_ASSETS_1_26="$$(hack/envtest-assets.sh --print-assets-dir=1.26)" \
		OLDER_BUILDS="$$(hack/older-builds.sh --print-dir)" \
		$(GO) test $(TEST_FLAGS) -timeout $(TEST_TIMEOUT) ./...

.PHONY: test-race
test-race: ## The race detector on the concurrent packages: the server, certificates, the CLI's serve (needs cgo and a C compiler; not part of test).
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./webhook/... ./certs/... ./cli/...

.PHONY: chart-check
chart-check: envtest-assets ## helm lint and helm template of charts/claimbridge in both certificate modes, everything on, other names and ports.
	$(BIN)/helm lint --strict charts/claimbridge
	$(BIN)/helm lint --strict charts/claimbridge --set certificates.mode=cert-manager --set metrics.secure=false \
		--set serviceMonitor.enabled=true --set prometheusRule.enabled=true --set grafanaDashboard.enabled=true \
		--set autoscaling.enabled=true --set 'extraArgs[0]=--max-in-flight=16'
	$(BIN)/helm lint --strict charts/claimbridge --set fullnameOverride=cb-hooks --set nameOverride=dra-bridge \
		--set webhook.port=9543 --set health.port=9541 --set metrics.port=9542 --set hostNetwork=true \
		--set-string 'podAnnotations.sidecar\.istio\.io/inject=false' --set podLabels.team=dra \
		--set 'serviceAccount.annotations.example\.com/owner=dra' --set prometheusRule.enabled=true --set serviceMonitor.enabled=true
	$(BIN)/helm template claimbridge charts/claimbridge --namespace claimbridge-system >/dev/null
	$(BIN)/helm template claimbridge charts/claimbridge --namespace claimbridge-system --set certificates.mode=cert-manager \
		--set serviceMonitor.enabled=true --set prometheusRule.enabled=true --set grafanaDashboard.enabled=true >/dev/null

.PHONY: image-binary
image-binary: LDFLAGS_STRIP = 1
image-binary: ## Build the static binary the container image ships (CGO_ENABLED=0), into bin/claimbridge-static.
	CGO_ENABLED=0 $(GO) build -trimpath $(GO_BUILD_FLAGS) -o $(BIN)/claimbridge-static ./cmd/claimbridge

.PHONY: bench
bench: envtest-assets ## End-to-end benchmark through kube-apiserver (not part of test): N=2000 ROUNDS=3 GETS=200 CREATES=100 SOAK=10m.
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh --print-assets-dir)" KUSTOMIZE="$(BIN)/kustomize" HELM="$(BIN)/helm" \
		$(GO) run ./test/bench

.PHONY: loadtest
loadtest: ## Load test claimbridge serve against a null server on loopback, servers on CPU 1 and vegeta on CPU 0 (not part of test; LOADTEST_FLAGS="-closed=10s -step=20s -workers=16").
	$(GO) run ./hack/loadtest $(LOADTEST_FLAGS)

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver, etcd, kustomize, helm, promtool and the 1.33, 1.32, 1.31, 1.30 and 1.26 kube-apiservers + etcd 3.5 from the Go module proxy (cached in bin/).
	hack/envtest-assets.sh

.PHONY: oracle-assets
oracle-assets: ## Build the upstream validation oracles of Kubernetes 1.26, 1.30 and 1.31 (cached in bin/oracle).
	hack/oracle-assets.sh

.PHONY: older-builds
older-builds: envtest-assets ## Build the older claimbridge builds the rollback suite runs, from this clone's git history (cached in bin/older-builds).
	hack/older-builds.sh

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-16s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)
