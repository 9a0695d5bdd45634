# KubAge Makefile. Tools are pinned and installed into bin/ only when missing,
# so a second `make test` reuses them.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

ROOT        := $(abspath .)
BIN         := $(ROOT)/bin
K8S_BIN     := $(BIN)/k8s
IMG         ?= kubage:dev

# Pinned versions. The control plane is built from Go modules (hack/tools/*).
K8S_VERSION          := v1.36.3
ETCD_VERSION         := v3.6.16
KWOK_VERSION         := v0.8.0
CONTROLLER_TOOLS_VERSION := v0.23.0
# v2.6.2 predates Go 1.26; v2.15.0 is built for it (its go.mod says go 1.26).
GOLANGCI_LINT_VERSION := v2.15.0
HELM_VERSION         := v3.22.0

CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
GOLANGCI_LINT  := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
HELM           := $(BIN)/helm-$(HELM_VERSION)
CHART          := charts/kubage
# Test programs (never shipped): the demo's stand-in kubelet and stand-in model.
FAKEKUBELET    := $(BIN)/fakekubelet
FAKEMODEL      := $(BIN)/fakemodel
KUBECTL        := $(K8S_BIN)/kubectl
# kubectl's built-in kustomize (v5.8.1) renders config/; no separate binary to pin.
# (KUBECTL must be defined first: := expands it here, once.)
KUSTOMIZE      := $(KUBECTL) kustomize
# Stamp the version the way the Kubernetes release build does, so clients can parse it.
K8S_LDFLAGS    := -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36 -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$(K8S_VERSION) -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=36
CONTROL_PLANE  := $(K8S_BIN)/kube-apiserver $(K8S_BIN)/kube-controller-manager $(K8S_BIN)/kube-scheduler $(K8S_BIN)/kubectl $(K8S_BIN)/etcd $(K8S_BIN)/kwok

# envtest uses the same kube-apiserver and etcd as the local cluster.
export KUBEBUILDER_ASSETS := $(K8S_BIN)
# Where `make cluster-up` keeps its state and kubeconfig.
export KUBAGE_CLUSTER_DIR ?= $(BIN)/cluster
export KUBECONFIG_LOCAL := $(KUBAGE_CLUSTER_DIR)/kubeconfig

GO_TEST_FLAGS ?= -count=1

##@ General
.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development
.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate CRDs and RBAC from markers.
	$(CONTROLLER_GEN) rbac:roleName=kubage-manager-role crd webhook paths="./api/..." paths="./controllers/..." paths="./internal/..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	@$(MAKE) -s chart-sync

# config/ is the one source of CRDs and RBAC rules; the chart carries copies (verify checks them).
.PHONY: chart-sync
chart-sync: ## Copy the CRDs, RBAC rules and webhook registrations of config/ into the Helm chart (make manifests runs it).
	rm -f $(CHART)/crds/*.yaml
	cp config/crd/bases/*.yaml $(CHART)/crds/
	cp config/rbac/role.yaml config/rbac/leader_election_role.yaml config/rbac/agent_role.yaml config/rbac/agent_result_role.yaml config/rbac/agent_result_cluster_role.yaml $(CHART)/files/rbac/
	cp config/mcp/role.yaml $(CHART)/files/rbac/mcp_role.yaml
	cp config/mcp/cluster_role.yaml $(CHART)/files/rbac/mcp_cluster_role.yaml
	mkdir -p $(CHART)/files/webhook && cp config/webhook/manifests.yaml $(CHART)/files/webhook/manifests.yaml

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt: ## go fmt.
	go fmt ./...

.PHONY: vet
vet: ## go vet.
	go vet ./...

.PHONY: lint
lint: vet $(GOLANGCI_LINT) ## Static checks: gofmt, go vet, golangci-lint (layer map, import aliases, licence header, revive, ginkgolinter).
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GOLANGCI_LINT) run --allow-serial-runners ./...

.PHONY: lint-selftest
lint-selftest: $(GOLANGCI_LINT) ## Show the layer rules bite: an internal/ package importing controllers must fail golangci-lint.
	GOLANGCI_LINT=$(GOLANGCI_LINT) hack/lint-selftest.sh

.PHONY: verify
verify: $(CONTROLLER_GEN) verify-deps verify-size ## Regenerate (manifests, generate, go mod tidy) in a temporary copy; fail if the tree differs.
	CONTROLLER_GEN=$(CONTROLLER_GEN) hack/verify.sh

.PHONY: verify-size
verify-size: ## Fail if a hand-written, non-test Go file in controllers/, internal/ or cmd/ is over 500 lines.
	hack/check-file-size.sh

# Test doubles, harnesses, scenarios and benchmarks live in test/ and hack/; the shipped binary
# must link none of them (nor a client-go style fake package).
.PHONY: verify-deps
verify-deps: ## Fail if ./cmd/kubage links a package from test/ or hack/, or any fake, bench or test harness.
	@bad=$$(go list -deps ./cmd/kubage | grep -E '^github\.com/kubage/kubage/((test|hack)/|.*(fake|bench|llmtest|testcluster|scenarios|fixtures))|/fake$$' || true); \
	if [ -n "$$bad" ]; then echo "verify-deps: ./cmd/kubage links test-only packages:"; echo "$$bad"; exit 1; fi
	@echo "verify-deps: ./cmd/kubage links no test double, harness, scenario or bench package"

##@ Test
.PHONY: test
test: manifests generate vet control-plane helm-check test-unit test-envtest test-e2e ## Helm chart checks, unit, envtest and e2e tests.

.PHONY: helm-check
helm-check: $(HELM) ## helm lint and helm template of the chart with its defaults and every charts/kubage/ci/*.yaml.
	HELM=$(HELM) hack/helm-check.sh

.PHONY: test-unit
test-unit: ## Unit tests (no API server).
	go test $(GO_TEST_FLAGS) $$(go list ./... | grep -v -e /controllers -e /test/e2e -e /internal/kubectlplugin/apitest)

.PHONY: test-envtest
test-envtest: control-plane ## Reconciler and CRD validation tests against a real kube-apiserver and etcd.
	go test $(GO_TEST_FLAGS) ./controllers/... ./internal/kubectlplugin/apitest/...

.PHONY: test-e2e
test-e2e: control-plane build $(HELM) ## End-to-end tests on a local control plane (brought up and torn down by the suite); the long kill matrix is test-kill.
	KUBAGE_BIN=$(BIN)/kubage KUBAGE_HELM=$(HELM) go test $(GO_TEST_FLAGS) -v -timeout 30m ./test/e2e/... -ginkgo.v -ginkgo.label-filter='!kill'

.PHONY: test-kill
test-kill: control-plane build ## The kill matrix: SIGKILL the operator in every phase of both runners (≥20 kills), during KnowledgeSource indexing and an alert storm.
	KUBAGE_BIN=$(BIN)/kubage go test $(GO_TEST_FLAGS) -v -timeout 30m ./test/e2e/... -ginkgo.v -ginkgo.label-filter='kill'

.PHONY: scenarios-list
scenarios-list: ## One line per real-cluster scenario: name, split, hops, class, source (no cluster needed).
	go run ./hack/scenarios

.PHONY: eval-fixtures
eval-fixtures: control-plane ## Record kubage eval fixtures from the real-cluster scenario corpus into test/evalfixtures/corpus (starts a local cluster; minutes).
	go run ./hack/evalfixtures -out test/evalfixtures/corpus

.PHONY: bench
bench: control-plane build ## Benchmarks; prints JSON figures.
	KUBAGE_BIN=$(BIN)/kubage go run ./hack/bench -timeout=45m

##@ Build
.PHONY: build
build: ## Build the kubage binary into bin/, and bin/kubectl-kubage (the kubectl plugin: the same binary).
	CGO_ENABLED=0 go build -o $(BIN)/kubage ./cmd/kubage
	ln -sf kubage $(BIN)/kubectl-kubage

.PHONY: test-programs
test-programs: $(FAKEKUBELET) $(FAKEMODEL) ## Build the stand-in kubelet and model (test programs, not shipped) into bin/.

# Rebuilt only when missing or when their sources or the module's requirements change.
$(FAKEKUBELET): go.mod go.sum $(shell find test/cmd/fakekubelet test/testcluster -name '*.go' ! -name '*_test.go' 2>/dev/null)
	CGO_ENABLED=0 go build -o $@ ./test/cmd/fakekubelet

$(FAKEMODEL): go.mod go.sum $(shell find test/cmd/fakemodel test/fakes/llmtest -name '*.go' ! -name '*_test.go' 2>/dev/null)
	CGO_ENABLED=0 go build -o $@ ./test/cmd/fakemodel

.PHONY: run
run: manifests generate ## Run the manager against the current kubeconfig.
	go run ./cmd/kubage manager

.PHONY: docker-build
docker-build: ## Build the container image (needs a Docker engine).
	docker build -t $(IMG) .

##@ Deployment
.PHONY: install
install: manifests $(KUBECTL) ## Install CRDs into the current cluster.
	$(KUSTOMIZE) config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: manifests $(KUBECTL) ## Remove CRDs.
	$(KUSTOMIZE) config/crd | $(KUBECTL) delete --ignore-not-found -f -

.PHONY: deploy
deploy: manifests $(KUBECTL) ## Deploy the operator (IMG=...) to the current cluster.
	$(KUSTOMIZE) config/default | sed 's|controller:latest|$(IMG)|g' | $(KUBECTL) apply --server-side -f -

.PHONY: deploy-approvals
deploy-approvals: manifests $(KUBECTL) ## Deploy the operator with its approval webhook (needs cert-manager in the cluster).
	$(KUSTOMIZE) config/approvals | sed 's|controller:latest|$(IMG)|g' | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: $(KUBECTL) ## Remove the operator.
	$(KUSTOMIZE) config/default | $(KUBECTL) delete --ignore-not-found -f -

##@ Local cluster
.PHONY: cluster-up
cluster-up: control-plane ## Start etcd, apiserver, controller-manager, scheduler and kwok locally.
	hack/cluster.sh up

.PHONY: cluster-status
cluster-status: ## Show the local cluster's components and kubeconfig.
	hack/cluster.sh status

.PHONY: cluster-down
cluster-down: ## Stop the local cluster and remove its state.
	hack/cluster.sh down

.PHONY: demo
demo: control-plane build $(FAKEKUBELET) manifests ## Local cluster, CRDs, operator, broken app, Troubleshoot, root cause.
	KUBAGE_FAKEKUBELET=$(FAKEKUBELET) hack/demo.sh

##@ Tools
.PHONY: control-plane
control-plane: $(CONTROL_PLANE) ## Build the pinned control-plane binaries into bin/k8s (only when missing).

$(K8S_BIN)/kube-apiserver $(K8S_BIN)/kube-controller-manager $(K8S_BIN)/kube-scheduler $(K8S_BIN)/kubectl &:
	@mkdir -p $(K8S_BIN)
	@echo "Building kube-apiserver, kube-controller-manager, kube-scheduler, kubectl $(K8S_VERSION) (first time only)"
	cd hack/tools/k8s && go build -ldflags '$(K8S_LDFLAGS)' -o $(K8S_BIN)/ k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl

$(K8S_BIN)/etcd:
	@mkdir -p $(K8S_BIN)
	cd hack/tools/etcd && go build -o $(K8S_BIN)/etcd .

$(K8S_BIN)/kwok:
	@mkdir -p $(K8S_BIN)
	cd hack/tools/kwok && go build -o $(K8S_BIN)/kwok sigs.k8s.io/kwok/cmd/kwok

$(CONTROLLER_GEN):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)
	mv $(BIN)/controller-gen $(CONTROLLER_GEN)
	ln -sf $(notdir $(CONTROLLER_GEN)) $(BIN)/controller-gen

.PHONY: helm
helm: $(HELM) ## Build the pinned helm into bin/ (only when missing).

# Built from Go modules like the control plane (a few minutes, once per version). Stamped the
# way helm's release build stamps it: its version, and the Kubernetes version of its client-go
# (v0.37 for helm v3.22.0), which `helm template` and `helm lint` assume without a cluster.
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=37 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=37
$(HELM):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) go install -ldflags '$(HELM_LDFLAGS)' helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	mv $(BIN)/helm $(HELM)
	ln -sf $(notdir $(HELM)) $(BIN)/helm

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build the pinned golangci-lint into bin/ (only when missing).

# Built from Go modules like the control plane (a few minutes, once per version).
$(GOLANGCI_LINT):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(BIN)/golangci-lint $(GOLANGCI_LINT)
	ln -sf $(notdir $(GOLANGCI_LINT)) $(BIN)/golangci-lint

