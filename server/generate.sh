#!/usr/bin/env bash
# Regenerates gen/ from proto/ with protoc and the plugins at the versions
# this module pins (go.mod's tool directives). make proto runs it; the test
# TestGeneratedCodeIsCurrent runs it into a temporary directory and
# compares. Usage: generate.sh [OUTDIR] (default: gen).
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-gen}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
go build -o "$bin/protoc-gen-connect-go" connectrpc.com/connect/cmd/protoc-gen-connect-go
mkdir -p "$out"
protoc -I proto \
  --plugin=protoc-gen-go="$bin/protoc-gen-go" --plugin=protoc-gen-connect-go="$bin/protoc-gen-connect-go" \
  --go_out="$out" --go_opt=module=telha.dev/server/gen \
  --connect-go_out="$out" --connect-go_opt=module=telha.dev/server/gen \
  proto/telha/v1/*.proto
