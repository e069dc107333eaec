#!/bin/sh
# bench.sh measures the telhavet gate on the workspace, interleaved round by
# round so that a change in machine load hits every command alike, and
# prints "name wall_s user_s sys_s maxrss_kb exit" lines (GNU time) for
# BENCHMARKS.md:
#
#   cold: go vet analyzes every package again (each run passes a new
#   -printf.funcs value: the flags are part of go vet's cache key), with the
#   compiled packages cached. vettool-vet-only against vettool-vet+telha is
#   the cost of the Telha rules over a go vet run of the same binary;
#   telhavet-cold is the gate itself.
#
#   warm: nothing changed since the last run. telhavet-warm (the gate, as
#   make gate runs it) against vettool-warm (go vet -vettool=telhavet on the
#   same modules with the driver's flags: the floor the driver stands on).
#
# Usage, from the repository root: cmd/telhavet/bench.sh ROUNDS [telhavet]
set -eu

rounds=${1:?usage: cmd/telhavet/bench.sh ROUNDS [path/to/telhavet]}
tv=${2:-bin/telhavet}
case $tv in /*) ;; *) tv=$(pwd)/$tv ;; esac
modules=$(go list -m -f '{{.Dir}}/...' | sed "s|^$(pwd)/|./|")
vet="-appends -asmdecl -assign -atomic -bools -buildtag -cgocall -composites
-copylocks -defers -directive -errorsas -framepointer -httpresponse -hostport
-ifaceassert -loopclosure -lostcancel -nilfunc -printf -shift -sigchanyzer
-slog -stdmethods -stdversion -stringintconv -structtag -tests
-testinggoroutine -timeformat -unmarshal -unreachable -unsafeptr
-unusedresult -waitgroup"
telha=$("$tv" rules | sed 's/^/-/' | tr '\n' ' ')
nonce=$(date +%s)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # name command...
	name=$1
	shift
	/usr/bin/time -f "$name %e %U %S %M %x" "$@" >/dev/null 2>"$out" || true
	tail -n 1 "$out"
}

"$tv" ./... >/dev/null 2>&1 || true # warm the caches telhavet-warm measures

for i in $(seq 1 "$rounds"); do
	fresh=-printf.funcs=bench$nonce$i
	run go-vet go vet $fresh $modules
	run vettool-vet-only go vet -vettool="$tv" $fresh $vet $modules
	run vettool-vet+telha go vet -vettool="$tv" $fresh $vet $telha $modules
	run telhavet-cold "$tv" $fresh ./...
	run telhavet-warm "$tv" ./...
	run vettool-warm go vet -vettool="$tv" -json -telhainventory.report $modules
done
