# odlm-render. `make example` renders the bundled example; `make test` runs every test.
SHELL := /bin/bash
export GOTOOLCHAIN := local
export GOFLAGS := -mod=mod
GO ?= go
BIN := bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/odlm-render/odlm-render/internal/version.Version=$(VERSION)

.PHONY: all help setup build cli install example test tools apiserver unit lint fuzz bench golden api generated clean

all: build

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# The commit-msg hook (scripts/commit-msg: subjects of at most 72 characters, then a blank
# line): .git/hooks/commit-msg (git rev-parse --git-path hooks, which worktrees share) runs
# the scripts/commit-msg of the checkout committed to. Running it again is harmless.
setup: ## install the commit-msg hook into .git/hooks
	@hooks=$$(git rev-parse --git-path hooks) && mkdir -p "$$hooks" && \
	  printf '%s\n' '#!/bin/sh' '# installed by `make setup`: the rule of scripts/commit-msg' \
	    'hook="$$(git rev-parse --show-toplevel)/scripts/commit-msg"' \
	    '[ -x "$$hook" ] || exit 0' 'exec "$$hook" "$$@"' >"$$hooks/commit-msg" && \
	  chmod +x "$$hooks/commit-msg" && echo "installed $$hooks/commit-msg (runs scripts/commit-msg)"

build: cli ## build bin/odlm-render and bin/odlm-render-fn
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/odlm-render-fn ./fn

cli: ## build bin/odlm-render alone (what `make example` needs)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/odlm-render ./cmd/odlm-render

install: build ## copy bin/odlm-render and bin/odlm-render-fn to $(go env GOPATH)/bin (or $GOBIN)
	@dest="$${GOBIN:-$$($(GO) env GOPATH)/bin}"; mkdir -p "$$dest" && cp $(BIN)/odlm-render $(BIN)/odlm-render-fn "$$dest/" && echo "installed into $$dest"

# Render the bundled quickstart example (ODLM CRs and the example's catalog) to stdout; it
# builds only the CLI (the KRM function is not needed to render it).
example: cli ## render the bundled example (examples/quickstart) to stdout
	$(BIN)/odlm-render render examples/quickstart/manifests --catalog examples/quickstart/catalog

# Every test: vet and format checks, unit, golden, front-door tests, and the integration
# tests that run real kustomize, kpt and a real kube-apiserver (pinned, installed and cached
# by scripts/tools.sh and scripts/apiserver.sh; see scripts/test.sh).
test: lint ## every test, with the pinned kustomize, kpt and kube-apiserver (installed on first use)
	scripts/test.sh

tools: ## install the pinned kustomize, kpt and golangci-lint into .cache/
	scripts/tools.sh >/dev/null

apiserver: ## build the pinned kube-apiserver into .cache/
	scripts/apiserver.sh build >/dev/null

# Go tests alone: integration tests skip when their tools are missing.
unit: ## the Go tests alone (integration tests skip)
	$(GO) test -count=1 ./...

# golangci-lint (pinned, installed and cached by scripts/tools.sh; config .golangci.yml).
lint: ## go vet, gofmt and golangci-lint
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	"$$(scripts/tools.sh golangci-lint)/golangci-lint" run ./...

# Regenerate golden files on purpose; read the diff before committing.
golden: ## regenerate golden files (read the diff before committing)
	$(GO) test ./pkg/render/ ./internal/cli/ ./fn/ -update

# Record the public API (pkg/...) in api/pkg.txt, after changing it on purpose; the test
# internal/apicheck (run by `make test` and `make unit`) fails while the record differs.
api: ## record the public API of pkg/ in api/pkg.txt (read the diff before committing)
	$(GO) test ./internal/apicheck/ -run TestPublicAPIIsRecorded -count=1 -update

# Test data derived at test time instead of kept in git (internal/testfixture): the tests
# write it on first use; this writes it into testdata/generated/ and prints the paths.
generated: ## write the test data derived at test time into testdata/generated/ (prints the paths)
	$(GO) run ./hack/testfixture

# Every fuzzer of the module, found in the code (scripts/fuzz.sh --list prints them).
fuzz: ## run every fuzzer for 60 s each (FUZZTIME=10s to change)
	scripts/fuzz.sh

# Scale benchmarks (go test -bench, kustomize, start-up, peak memory): one table and the
# ratios against the targets; a few minutes. See scripts/bench.sh.
bench: ## the benchmarks and their ratios (a few minutes)
	scripts/bench.sh

clean: ## remove bin/
	rm -rf $(BIN)
