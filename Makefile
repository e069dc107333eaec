# Telha Core: every entry point a person needs. See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

GO ?= go
# Workspace modules, read from go.work's use block so that the two cannot
# disagree (core/storage/etcd is a module of its own, so that the etcd
# server's dependencies stay out of telha.dev/core).
MODULES := $(shell sed -n '/^use (/,/^)/s|^[[:space:]]*\./\([^[:space:]]*\).*|\1|p' go.work)
PACKAGES := $(foreach m,$(MODULES),telha.dev/$(m)/...)
BIN := $(CURDIR)/bin
TELHAVET := $(BIN)/telhavet
GOLANGCI_LINT := $(BIN)/golangci-lint
# How long `make fuzz` runs each fuzz target.
FUZZTIME ?= 30s
# Checks per rapid property in `make test`: 86 properties today (several per
# key shape and range of the layout table) x 17,000 is over
# 1,000,000 generated cases (the suite prints the total).
RAPID_CHECKS ?= 17000
# Benchmark repetitions, for benchstat.
BENCHCOUNT ?= 6
# Test timeouts, sized for a loaded 2-core machine: go test's default of
# ten minutes is not a bound any target here may rely on (check-timeouts).
PROPTIMEOUT ?= 30m
SCALETIMEOUT ?= 20m
# How long the agreement test of telhavet's three drivers may take.
AGREETIMEOUT ?= 20m
BENCHTIMEOUT ?= 2h
# How long one fuzz target may run beyond FUZZTIME (its seed corpus, the
# build) before go test stops it.
FUZZTIMEOUT ?= 30m
# The demo's store.
DATA ?= ./telha-data
# The directory of `make run-cluster`'s etcd cluster.
CLUSTER_DATA ?= ./telha-cluster

ROCKSDB_HEADER := /usr/include/rocksdb/c.h

.PHONY: proto deps test check-timeouts format check-docs unit properties gate agree build telhavet run run-cluster linearize bench bench-telhavet bench-scale fuzz lint golangci docs clean

## deps: install what is missing: Debian's librocksdb-dev and protobuf-compiler
## (protoc, for make proto and its test) and the Go modules.
deps:
	@if [ ! -f $(ROCKSDB_HEADER) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing librocksdb-dev"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librocksdb-dev; \
	  else \
	    echo "librocksdb-dev is missing; run: sudo apt-get update && sudo apt-get install -y librocksdb-dev" >&2; \
	    exit 1; \
	  fi; \
	fi
	@if ! command -v protoc >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing protobuf-compiler"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler; \
	  else \
	    echo "protoc is missing; run: sudo apt-get update && sudo apt-get install -y protobuf-compiler" >&2; \
	    exit 1; \
	  fi; \
	fi
	@for m in $(MODULES); do (cd $$m && $(GO) mod download); done

## proto: regenerate the tenant API's Go code (server/gen) from
## server/proto with protoc and the plugins at the versions server/go.mod
## pins; server's TestGeneratedCodeIsCurrent checks that it changes nothing.
proto: deps
	server/generate.sh

## test: deps, then every module's tests (-race), the property suite, the
## telhavet gate, the agreement of its three drivers and the test of its
## scaling benchmark.
test: deps check-timeouts format check-docs unit properties gate agree bench-scale-test

## check-timeouts: every go test this Makefile runs has an explicit
## -timeout, so that none inherits go test's ten-minute default.
check-timeouts:
	@if grep -nE '\$$\(GO\) test ' $(firstword $(MAKEFILE_LIST)) | grep -vE -- '-list |-timeout '; then \
	    echo 'check-timeouts: the go test above has no -timeout' >&2; exit 1; fi

## format: every Go file of the workspace modules is gofmt-formatted and
## grouped as `goimports -local telha.dev` groups it (goimports at the
## x/tools version analyzers/go.mod pins); testdata and generated files
## (the "Code generated ... DO NOT EDIT." header) are left as written.
GOIMPORTS := $(GO) run golang.org/x/tools/cmd/goimports
format:
	@files=$$(find $(MODULES) -name '*.go' -not -path '*/testdata/*' | xargs grep -L '^// Code generated .* DO NOT EDIT\.$$' | sort -u); \
	bad=$$( { gofmt -l $$files; cd analyzers && $(GOIMPORTS) -local telha.dev -l $$(printf '../%s ' $$files); } | sed 's|^\.\./||' | sort -u); \
	if [ -n "$$bad" ]; then echo "format: not gofmt/goimports -local telha.dev formatted:" >&2; echo "$$bad" >&2; exit 1; fi

## check-docs: README.md, BENCHMARKS.md and every page under docs/ are
## readable without the issue tracker: no issue numbers.
check-docs:
	@if grep -nE '[Ii]ssues?[ -]#?[0-9]' README.md BENCHMARKS.md $$(find docs -name '*.md'); then \
	    echo 'check-docs: the lines above cite issue numbers; say what changed instead' >&2; exit 1; fi

unit:
	$(GO) test -race -timeout 20m $(PACKAGES)

## properties: the rapid property suite of the key authority at RAPID_CHECKS
## checks per property; it prints the number of generated cases.
properties:
	cd core/storage && $(GO) test -count=1 -timeout $(PROPTIMEOUT) -run '^TestProp' -rapid.checks=$(RAPID_CHECKS) -rapid.nofailfile -v . | grep -E '^(rapid property cases|ok|FAIL|--- FAIL|panic)'

# GATE_TICK is how often the gate prints a progress line while it runs.
GATE_TICK ?= 30

## gate: telhavet (Telha rules, go vet passes, staticcheck) over every
## workspace module: any finding fails. The Telha rules have no exemptions,
## so a //nolint that would hide telhavet in golangci-lint is refused too.
gate: telhavet
	@echo "gate: $(TELHAVET) ./... (on a cold build cache this takes minutes; a progress line every $(GATE_TICK) seconds)"
	@stamp=$$(mktemp); cache=$$($(GO) env GOCACHE); start=$$(date +%s); \
	$(TELHAVET) ./... & pid=$$!; \
	n=0; while kill -0 $$pid 2>/dev/null; do sleep 1; n=$$((n + 1)); \
	  if [ $$((n % $(GATE_TICK))) -eq 0 ] && kill -0 $$pid 2>/dev/null; then \
	    echo "gate: $$(( $$(date +%s) - start ))s, $$(find "$$cache" -type f -newer "$$stamp" 2>/dev/null | wc -l) build cache entries written"; fi; \
	done; wait $$pid; status=$$?; rm -f "$$stamp"; exit $$status
	@if grep -rnE --include='*.go' --exclude-dir=testdata \
	    '//[[:space:]]*nolint([^:[:alnum:]]|:([^ ]*,)?(all|telhavet)([, ]|$$)|$$)' $(MODULES); then \
	    echo 'gate: the //nolint above would hide telhavet; the Telha rules have no exemptions' >&2; exit 1; fi
	@echo "gate: telhavet found nothing in $(MODULES)"

## build: the tools, into ./bin.
build: deps
	$(GO) build -ldflags "-X main.revision=$$(git rev-parse HEAD 2>/dev/null)$$(git diff --quiet HEAD 2>/dev/null || echo -modified)" -o $(BIN)/ telha.dev/cmd/telha telha.dev/cmd/telhavet

telhavet: deps
	$(GO) build -o $(TELHAVET) telha.dev/cmd/telhavet

## run: the main job: the telhavet gate over the workspace, then the telha
## demo against an embedded RocksDB store in DATA.
run: gate build
	$(BIN)/telha demo -data $(DATA)

## run-cluster: `telha cluster` (three etcd members on loopback, in
## CLUSTER_DATA), the telha demo against it, then the cluster stopped with
## SIGTERM, also when the demo fails.
run-cluster: build
	@out=$$(mktemp); \
	$(BIN)/telha cluster -data $(CLUSTER_DATA) > $$out & pid=$$!; \
	trap 'kill -TERM $$pid 2>/dev/null; wait $$pid; rm -f $$out' EXIT; \
	for i in $$(seq 1200); do \
	  grep -q '^endpoints ' $$out && break; \
	  kill -0 $$pid 2>/dev/null || { echo 'run-cluster: telha cluster exited before it served' >&2; exit 1; }; \
	  sleep 0.1; \
	done; \
	endpoints=$$(sed -n 's/^endpoints //p' $$out); \
	if [ -z "$$endpoints" ]; then echo 'run-cluster: telha cluster did not serve within 2 minutes' >&2; exit 1; fi; \
	echo "telha cluster: endpoints $$endpoints"; \
	$(BIN)/telha demo -etcd $$endpoints

## linearize: the long linearizability check of cmd/replicas: LINEARIZE_RUNS
## histories of LINEARIZE_SECONDS each, from three replica processes of four clients
## on a three-member etcd cluster whose members are killed (SIGKILL) and
## restarted during every run, each checked with porcupine; it prints the
## runs and kills. `make test` runs two short ones.
LINEARIZE_RUNS ?= 25
LINEARIZE_SECONDS ?= 8
linearize: deps
	cd cmd && $(GO) test -count=1 -timeout 60m -run '^TestLinearizable$$' ./replicas/ -v -args -replicas.runs=$(LINEARIZE_RUNS) -replicas.seconds=$(LINEARIZE_SECONDS) | grep -E '^(linearizability|ok|FAIL|--- FAIL|panic)|history_test'

## bench: every benchmark, BENCHCOUNT times, for benchstat.
bench: deps
	$(GO) test -timeout $(BENCHTIMEOUT) -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) $(PACKAGES)

## bench-telhavet: the cost of the Telha rules over a go vet run, and the
## gate (telhavet ./...) cold and warm against go vet -vettool, on the workspace.
bench-telhavet: telhavet
	cmd/telhavet/bench.sh 3 $(TELHAVET)

## bench-scale: the gate, go vet -vettool and the custom golangci-lint on
## synthetic workspaces of SCALE packages (tools/scalegen): time and memory.
SCALE ?= 50 200 800
bench-scale: telhavet $(GOLANGCI_LINT)
	tools/scalegen/bench.sh $(TELHAVET) $(GOLANGCI_LINT) $(SCALE)

## bench-scale-test: the tests of tools/scalegen (a module outside go.work):
## telhavet reports exactly the generated packages that break a rule, and
## bench.sh measures and shows what an edit analyzes again.
bench-scale-test: telhavet
	cd tools/scalegen && GOWORK=off TELHAVET=$(TELHAVET) $(GO) test -count=1 -timeout $(SCALETIMEOUT) .

## fuzz: each fuzz target for FUZZTIME.
fuzz: deps
	@for m in $(MODULES); do \
	  for pkg in $$(cd $$m && $(GO) list ./...); do \
	    for target in $$(cd $$m && $(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	      echo "== $$pkg $$target"; \
	      (cd $$m && $(GO) test -timeout $(FUZZTIMEOUT) -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg) || exit 1; \
	    done; \
	  done; \
	done

## golangci: golangci-lint v2.15.0 with the telhavet plugin, from the module
## proxy (tools/golangci, outside go.work). A cold build takes minutes.
golangci: $(GOLANGCI_LINT)
$(GOLANGCI_LINT): tools/golangci/main.go tools/golangci/go.mod tools/golangci/go.sum analyzers/go.mod analyzers/go.sum \
		analyzers/authority/authority.conf $(shell find analyzers -name '*.go' ! -name '*_test.go' ! -path '*/testdata/*')
	cd tools/golangci && GOWORK=off $(GO) build -o $(GOLANGCI_LINT) .

## agree: telhavet, go vet -vettool and the golangci-lint plugin report the
## same findings on the two fixtures (tools/golangci, outside go.work).
agree: $(GOLANGCI_LINT) telhavet
	cd tools/golangci && GOWORK=off TELHAVET=$(TELHAVET) GOLANGCI_LINT=$(GOLANGCI_LINT) $(GO) test -count=1 -timeout $(AGREETIMEOUT) -run '^TestAgree$$' .

## lint: the custom golangci-lint on every module, then agree.
lint: $(GOLANGCI_LINT) agree
	tools/golangci/lint.sh $(GOLANGCI_LINT)

## docs: regenerate docs/key-layout.md from the code.
docs:
	$(GO) run telha.dev/cmd/telha debug layout > docs/key-layout.md

clean:
	rm -rf $(BIN)
