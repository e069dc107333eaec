#!/bin/sh
# lint.sh runs the custom golangci-lint (make golangci) the way an editor
# does, with the repository's .golangci.yml:
#
#  1. on every module of go.work, which must be clean (golangci-lint, like
#     go vet, cannot take ./... at the go.work root, so each module is named);
#  2. on the telhavet fixture, outside go.work, where it must fail and report
#     each Telha rule through the telhavet plugin, proving that the plugin is
#     linked in and enabled.
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

fixture=cmd/telhavet/testdata/fixture
echo "golangci-lint run ./... in $fixture (must report the Telha rules)"
if out=$(cd "$fixture" && GOWORK=off "$bin" run ./... 2>&1); then
	printf '%s\n' "$out"
	echo "lint: golangci-lint reported nothing on $fixture" >&2
	exit 1
fi
printf '%s\n' "$out" | sed -n '/^[0-9]* issues:/,$p'
for rule in rawiter bytekey systemscope; do
	if ! printf '%s\n' "$out" | grep -q ": $rule: .*(telhavet)\$"; then
		printf '%s\n' "$out"
		echo "lint: no $rule finding from the telhavet plugin on $fixture" >&2
		exit 1
	fi
done
echo "lint: the telhavet plugin reports rawiter, bytekey and systemscope on the fixture"
