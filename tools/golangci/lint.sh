#!/bin/sh
# lint.sh runs the custom golangci-lint (make golangci) the way an editor
# does, with the repository's .golangci.yml, on every module of go.work,
# which must be clean: golangci-lint, like go vet, cannot take ./... at the
# go.work root, so each module is named. That the plugin reports what the
# gate reports is agree_test.go's business (make agree).
#
# Usage: tools/golangci/lint.sh [path/to/golangci-lint]
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/bin/golangci-lint}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$root"

modules=$(go list -m -f '{{.Dir}}/...' | sed "s|^$root/|./|")
echo "golangci-lint run $modules" | tr '\n' ' '
echo
"$bin" run $modules
