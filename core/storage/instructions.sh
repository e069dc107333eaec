#!/usr/bin/env bash
# instructions.sh counts, with callgrind, the instructions per op of every
# BenchmarkEncode loop, codec and baseline: a figure that does not move with
# the machine's load, unlike ns/op. Run from core/storage; needs valgrind.
#
#   ./instructions.sh            # prints: shape codec baseline
set -euo pipefail
cd "$(dirname "$0")"
n=1000000
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" .
for shape in $(grep -o 'benchPair(b, "shape=[A-Za-z]*' bench_test.go | sed 's/.*shape=//'); do
	row=$shape
	for impl in codec baseline; do
		collected=$(GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file=/dev/null --toggle-collect='*BenchmarkEncode.func*' \
			"$bin" -test.run '^$' -test.bench "^BenchmarkEncode\$/^shape=$shape\$/^impl=$impl\$" \
			-test.benchtime ${n}x 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
		row="$row $((collected / n))"
	done
	echo "$row"
done
