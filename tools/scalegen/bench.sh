#!/bin/sh
# bench.sh measures how the telhavet gate scales: for each N, it writes a
# synthetic workspace of N packages with scalegen and prints
# "N name wall_s maxrss_kb exit" lines (GNU time) for:
#
#   telhavet-cold    telhavet ./..., every package analyzed again
#   telhavet-warm    telhavet ./..., nothing changed
#   vettool-cold     go vet -vettool=telhavet ./scale/..., every package again
#   vettool-warm     the same, nothing changed
#   golangci-cold    the custom golangci-lint on ./..., an empty lint cache
#   golangci-warm    the same, its cache filled
#
# and, for each N, which packages telhavet analyzes again after a new
# function is added to package p0010 (its importers are p0020 and p0021):
# "N reanalyzed p0010 p0010 p0020 p0021" (a package with tests is analyzed
# twice, with and without them).
#
# "Cold" means no analysis result is cached; the packages are compiled
# once before (go build), as after any edit but the first: go vet is made
# to analyze again by a new -printf.funcs value, which is part of its cache
# key, and golangci-lint by a new cache directory. telhavet finds the
# violations scalegen plants and exits 3.
#
# Usage, from the repository root:
#   tools/scalegen/bench.sh [bin/telhavet [bin/golangci-lint [N...]]]
set -eu

root=$(pwd)
tv=${1:-bin/telhavet}
gl=${2:-bin/golangci-lint}
shift $(($# < 2 ? $# : 2))
sizes=${*:-50 200 800}
case $tv in /*) ;; *) tv=$root/$tv ;; esac
case $gl in /*) ;; *) gl=$root/$gl ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nonce=$(date +%s)

run() { # N name command...
	n=$1
	name=$2
	shift 2
	/usr/bin/time -f "$n $name %e %M %x" "$@" >/dev/null 2>"$tmp/time" || true
	tail -n 1 "$tmp/time"
}

for n in $sizes; do
	ws=$tmp/scale$n
	(cd tools/scalegen && GOWORK=off go run . -n "$n" -o "$ws")
	cd "$ws"
	go build ./scale/...
	run "$n" telhavet-cold "$tv" -printf.funcs=scale$nonce$n ./...
	"$tv" ./... >/dev/null 2>&1 || true # fill the cache telhavet-warm reads
	run "$n" telhavet-warm "$tv" ./...
	run "$n" vettool-cold go vet -vettool="$tv" -printf.funcs=vet$nonce$n ./scale/...
	run "$n" vettool-warm go vet -vettool="$tv" -printf.funcs=vet$nonce$n ./scale/...
	printf '\n// Extra changes the API of the package.\nfunc Extra() int { return 1 }\n' >>scale/p0010/p0010.go
	echo "$n reanalyzed $("$tv" -x ./... 2>&1 | grep -B1 'vet\.cfg$' | sed -n 's|^cd .*/||p' | sort | tr '\n' ' ')"
	cd "$ws/scale"
	export GOLANGCI_LINT_CACHE="$tmp/golangci$n"
	run "$n" golangci-cold "$gl" run --config "$root/.golangci.yml" ./...
	run "$n" golangci-warm "$gl" run --config "$root/.golangci.yml" ./...
	unset GOLANGCI_LINT_CACHE
	cd "$root"
	rm -rf "$ws"
done
