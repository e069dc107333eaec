# Telha Core: every entry point a person needs. See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

GO ?= go
# Workspace modules, in dependency order.
MODULES := core analyzers cmd
PACKAGES := $(foreach m,$(MODULES),telha.dev/$(m)/...)
BIN := $(CURDIR)/bin
# How long `make fuzz` runs each fuzz target.
FUZZTIME ?= 30s
# Checks per rapid property in `make test`: enough for at least 1,000,000
# generated cases in all (the suite prints the total).
RAPID_CHECKS ?= 17000
# Benchmark repetitions, for benchstat.
BENCHCOUNT ?= 6

ROCKSDB_HEADER := /usr/include/rocksdb/c.h

.PHONY: deps test unit properties gate build run bench fuzz lint golangci docs clean

## deps: install what is missing: Debian's librocksdb-dev and the Go modules.
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
	@for m in $(MODULES); do (cd $$m && $(GO) mod download); done

## test: deps, then every module's tests (-race) and the property suite.
test: deps unit properties

unit:
	$(GO) test -race -timeout 20m $(PACKAGES)

## properties: the rapid property suite of the key authority at RAPID_CHECKS
## checks per property; it prints the number of generated cases.
properties:
	cd core/storage && $(GO) test -count=1 -run '^TestProp' -rapid.checks=$(RAPID_CHECKS) -rapid.nofailfile -v . | grep -E '^(rapid property cases|ok|FAIL|--- FAIL|panic)'

## gate: telhavet over the whole workspace; any finding fails.
gate: build
	$(BIN)/telhavet ./...

## build: the tools, into ./bin.
build: deps
	$(GO) build -o $(BIN)/ telha.dev/cmd/telha

## run: the main job: the telha CLI.
run: build
	$(BIN)/telha debug layout | head -n 5
	$(BIN)/telha debug decode-key jobs 000000000000000000000000000000000000000000000000000000000000000001050000000000000000000000000000000000000000000000000000

## bench: every benchmark, BENCHCOUNT times, for benchstat.
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) $(PACKAGES)

## fuzz: each fuzz target for FUZZTIME.
fuzz: deps
	@for m in $(MODULES); do \
	  for pkg in $$(cd $$m && $(GO) list ./...); do \
	    for target in $$(cd $$m && $(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	      echo "== $$pkg $$target"; \
	      (cd $$m && $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg); \
	    done; \
	  done; \
	done

## docs: regenerate docs/key-layout.md from the code.
docs:
	$(GO) run telha.dev/cmd/telha debug layout > docs/key-layout.md

clean:
	rm -rf $(BIN)
