# claimbridge — build, generate, verify, lint and test.
#
# A fresh machine needs only Go: every tool below is built from the Go module
# proxy on first use and cached outside the clone, in $(CACHE) (override with
# CLAIMBRIDGE_CACHE), so that every clone on the machine shares it.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

GO               ?= go
BIN              := $(CURDIR)/bin
CACHE            := $(or $(CLAIMBRIDGE_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/claimbridge)
export CLAIMBRIDGE_CACHE := $(CACHE)
CONTROLLER_TOOLS := v0.23.0
CONTROLLER_GEN   := $(CACHE)/tools/controller-gen-$(CONTROLLER_TOOLS)/controller-gen
STATICCHECK_VERSION := v0.8.2
STATICCHECK      := $(CACHE)/tools/staticcheck-$(STATICCHECK_VERSION)-$(shell $(GO) env GOVERSION)/staticcheck
# (per Go version: staticcheck refuses code for a newer Go than it was built with)
CRD_OPTIONS      := crd:generateEmbeddedObjectMeta=true
# Every build and test here is static and -trimpath, as the release's binaries
# are: the release test (test/release) then reuses the packages the other
# tests compiled. test-race turns cgo back on.
export CGO_ENABLED := 0
export GOFLAGS += -trimpath
# The linters and the tool installs run with a larger heap: a tenth less CPU,
# the same output (hack/cache.sh does the same for the asset scripts). Tests
# keep Go's default.
BUILD_ENV        := GOGC=400
# Go test flags of the tiers: verbose so that every test shows in the CI log.
TEST_FLAGS       ?= -v -count=1
TEST_TIMEOUT     ?= 30m
# The packages whose tests need the current release's control plane or the
# tools (build tag envtest), and the live suites of the oldest release. The
# first mostly wait on their control planes: they run three at a time (-p 3).
ENVTEST_PKGS     := ./test/envtest/upgrade/ ./test/envtest/ ./test/envtest/certmanager/ ./test/envtest/chartinstall/ ./test/envtest/check/ ./test/envtest/ga/ ./test/envtest/guard/ \
	./test/envtest/overload/ ./test/envtest/selfmanaged/ ./test/manifests/ ./test/monitoring/
RELEASES_PKGS    := ./test/envtest/builds/ ./test/envtest/live/ ./test/envtest/minversion/
# The real-world manifests of public projects (never copied here), read by
# the corpus tier; CI sets it to the shared corpus.
CLAIMBRIDGE_CORPUS ?=
# The packages with tests of build tag corpus.
CORPUS_PKGS      := $(sort $(dir $(shell grep -rl --include='*_test.go' '^//go:build.*corpus' .)))
# The assets' variables: KUBEBUILDER_ASSETS, ENVTEST_ASSETS_1_30, KUBECTL, KUSTOMIZE, HELM, HELM3, PROMTOOL.
ASSETS_ENV        = $$(hack/envtest-assets.sh --env)
# The version claimbridge reports (`claimbridge version`, the start-up log,
# claimbridge_build_info). Empty: the go command's, from the repository (the
# tag of a tagged commit, else a pseudo-version; -buildvcs=auto overrides a
# GOFLAGS=-buildvcs=false). Set it for builds without .git: VERSION=v0.4.0.
VERSION          ?=
GO_BUILD_FLAGS    = -buildvcs=auto -ldflags "-X github.com/claimbridge/claimbridge/internal/version.version=$(VERSION)"

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
generate-podfields: ## Regenerate migrate/podfields_generated.go, the PodSpec fields of 1.27–1.38, from k8s.io/api 1.26–1.36, go.mod's and 1.38's beta (Go 1.27).
	GOTOOLCHAIN=go1.27.3 $(GO) generate ./migrate/

.PHONY: verify
verify: generate ## Regenerate and fail if anything generated differs from what is committed.
	@if [ -n "$$(git status --porcelain -- api config/crd/bases charts/claimbridge/files/crds)" ]; then \
		echo "generated files are out of date; run 'make generate' and commit:"; \
		git status --porcelain -- api config/crd/bases charts/claimbridge/files/crds; git --no-pager diff --stat -- api config/crd/bases charts/claimbridge/files/crds; exit 1; \
	fi

$(CONTROLLER_GEN):
	$(BUILD_ENV) GOBIN=$(dir $(CONTROLLER_GEN)) GOFLAGS=-trimpath $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS)

##@ Checks

.PHONY: lint
lint: $(STATICCHECK) ## gofmt, go vet and staticcheck.
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^hack/tools/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(BUILD_ENV) $(GO) vet -tags envtest,corpus ./...
	$(BUILD_ENV) $(STATICCHECK) -tags envtest,corpus ./...

$(STATICCHECK):
	$(BUILD_ENV) GOBIN=$(dir $(STATICCHECK)) GOFLAGS=-trimpath $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

.PHONY: test
test: ## Every tier below, then how long each took (the README's and CI's command).
	hack/test-tiers.sh assets checks test-unit test-envtest test-releases test-corpus

.PHONY: assets
assets: envtest-assets older-builds ## The control planes, tools and older builds the tiers below need (cached).

.PHONY: checks
checks: lint verify chart-check ## gofmt, go vet, staticcheck, generated files, helm lint.

.PHONY: test-unit
test-unit: ## Unit tests, fuzz seeds, CLI, server, and the recorded answers of Kubernetes 1.26–1.33 (no assets).
	$(GO) test $(TEST_FLAGS) -timeout $(TEST_TIMEOUT) ./...

.PHONY: test-envtest
test-envtest: envtest-assets ## The suites on the current release's kube-apiserver and kubectl, helm 4 and 3, kustomize and promtool.
	env $(ASSETS_ENV) $(GO) test -tags envtest -p 3 $(TEST_FLAGS) -timeout $(TEST_TIMEOUT) $(ENVTEST_PKGS)

.PHONY: test-releases
test-releases: envtest-assets older-builds ## Live on Kubernetes 1.30, the oldest supported: the CRD, rollbacks, mixed builds, an upgrade to the current release.
	env $(ASSETS_ENV) OLDER_BUILDS="$$(env $(ASSETS_ENV) hack/older-builds.sh --print-dir)" \
		$(GO) test -tags envtest $(TEST_FLAGS) -timeout $(TEST_TIMEOUT) $(RELEASES_PKGS)

.PHONY: test-corpus
test-corpus: envtest-assets ## The published manifests of $$CLAIMBRIDGE_CORPUS (CI: ../shared/corpus/realworld), also through helm, kustomize and kubectl.
	@if [ -z "$(CLAIMBRIDGE_CORPUS)" ]; then echo "CLAIMBRIDGE_CORPUS is not set: name the directory of the real-world manifests"; exit 1; fi
	env $(ASSETS_ENV) CLAIMBRIDGE_CORPUS="$(abspath $(CLAIMBRIDGE_CORPUS))" $(GO) test -tags corpus $(TEST_FLAGS) -timeout $(TEST_TIMEOUT) -run Corpus $(CORPUS_PKGS)

.PHONY: record
record: ## Ask the real kube-apiservers of 1.26–1.37 (started with each other's flags, upgraded in place, and with their schedulers and controller-managers from 1.30), the drivers' libraries v0.31–v0.37 on 1.31–1.37 and against their kubelets, and the upstream oracles again; rewrite their recorded answers.
	hack/envtest-assets.sh --releases >/dev/null
	hack/oracle-assets.sh
	env $$(hack/envtest-assets.sh --env --releases) CLAIMBRIDGE_ORACLE_DIR="$$(hack/oracle-assets.sh --print-dir)" CLAIMBRIDGE_RECORD=1 \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./test/envtest/release/ ./test/envtest/inplace/ ./test/envtest/libprobe/ ./test/oracle/
	env $$(hack/envtest-assets.sh --env --releases) CLAIMBRIDGE_RECORD=1 \
		$(GO) test -tags envtest -count=1 -timeout $(TEST_TIMEOUT) -run 'TestParity1_3[2-6]|TestParityKindsOld|TestParityGatesOnOld' ./test/envtest/ga/

.PHONY: test-race
test-race: ## The race detector on the concurrent packages: the server, certificates, the CLI's serve (needs cgo and a C compiler; not part of test).
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./webhook/... ./certs/... ./cli/...

# How long make fuzz runs each fuzz target.
FUZZTIME         ?= 60s

.PHONY: fuzz
fuzz: ## Run every fuzz target (func Fuzz… of a _test.go) for FUZZTIME (60s), one after the other; stop at the first failure (not part of test).
	@grep -rl --include='*_test.go' --exclude-dir=.git --exclude-dir=testdata '^func Fuzz' . | sort | \
	while read -r file; do \
		sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$file" | sed "s|^|$$(dirname "$$file") |"; \
	done | while read -r pkg target; do \
		echo "== $$pkg $$target"; \
		$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) "$$pkg" || exit 1; \
	done

.PHONY: chart-check
chart-check: envtest-assets ## helm lint and helm template of charts/claimbridge in both certificate modes, everything on, other names and ports.
	@export $$(hack/envtest-assets.sh --env 2>/dev/null) && set -x && \
	$$HELM lint --strict charts/claimbridge && \
	$$HELM lint --strict charts/claimbridge --set certificates.mode=cert-manager --set metrics.secure=false \
		--set serviceMonitor.enabled=true --set prometheusRule.enabled=true --set grafanaDashboard.enabled=true \
		--set autoscaling.enabled=true --set 'extraArgs[0]=--max-in-flight=16' --set guard.enabled=true --set guard.to=1.38 --set guard.enforce=true && \
	$$HELM lint --strict charts/claimbridge --set fullnameOverride=cb-hooks --set nameOverride=dra-bridge \
		--set webhook.port=9543 --set health.port=9541 --set metrics.port=9542 --set hostNetwork=true \
		--set-string 'podAnnotations.sidecar\.istio\.io/inject=false' --set podLabels.team=dra \
		--set 'serviceAccount.annotations.example\.com/owner=dra' --set prometheusRule.enabled=true --set serviceMonitor.enabled=true && \
	$$HELM template claimbridge charts/claimbridge --namespace claimbridge-system >/dev/null && \
	$$HELM template claimbridge charts/claimbridge --namespace claimbridge-system --set certificates.mode=cert-manager \
		--set serviceMonitor.enabled=true --set prometheusRule.enabled=true --set grafanaDashboard.enabled=true >/dev/null

.PHONY: release
release: ## Build the release VERSION=vX.Y.Z into dist/: archives for linux, darwin, windows × amd64, arm64, checksums, SBOMs, the image's OCI layout (docs/releasing.md).
	rm -rf dist
	hack/release.sh VERSION=$(VERSION)

.PHONY: bench-rewrite
bench-rewrite: ## Benchmark upgrade's rewrite in place beside StorageVersionMigration on kube-apiserver 1.36 (not part of test): N=10000 claims, N/5 slices.
	env $$(hack/envtest-assets.sh --env) $(GO) run ./test/bench/rewrite

.PHONY: bench
bench: ## End-to-end benchmark through the optimised kube-apiserver (not part of test): N=2000 ROUNDS=3 GETS=200 CREATES=100 SOAK=10m.
	env $$(hack/envtest-assets.sh --env --bench) $(GO) run ./test/bench

.PHONY: loadtest
loadtest: ## Load test claimbridge serve against a null server on loopback, servers on CPU 1 and vegeta on CPU 0 (not part of test; LOADTEST_FLAGS="-closed=10s -step=20s -workers=16").
	$(GO) run ./hack/loadtest $(LOADTEST_FLAGS)

.PHONY: envtest-assets
envtest-assets: ## kube-apiserver, etcd and kubectl of the current release, kube-apiserver and etcd of 1.30, kustomize, helm 4 and 3, promtool (setup-envtest, else built; cached).
	hack/envtest-assets.sh

.PHONY: older-builds
older-builds: envtest-assets ## Build the older claimbridge builds the rollback suite runs, from this clone's git history (cached).
	env $(ASSETS_ENV) hack/older-builds.sh

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-16s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)
