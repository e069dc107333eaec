#!/bin/sh
# bench.sh times go vet and telhavet over every go.work module, interleaved
# round by round so that a change in machine load hits every command alike,
# and prints "name wall_s user_s sys_s exit" lines (GNU time) for
# BENCHMARKS.md. Each go vet run passes a new -printf.funcs value: the flags
# are part of go vet's cache key, so every run re-vets every package (the
# workspace's and, for facts, their dependencies') while the compiled
# packages stay cached, as telhavet's direct mode, which has no cache, does.
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
telha="-rawiter -bytekey -systemscope"
nonce=$(date +%s)

run() { # name command...
	name=$1
	shift
	/usr/bin/time -f "$name %e %U %S %x" "$@" >/dev/null 2>/tmp/telhavet-bench.$$ || true
	tail -n 1 /tmp/telhavet-bench.$$
}

for i in $(seq 1 "$rounds"); do
	fresh=-printf.funcs=bench$nonce$i
	run go-vet go vet $fresh $modules
	run vettool-vet-only go vet -vettool="$tv" $fresh $vet $modules
	run vettool-vet+telha go vet -vettool="$tv" $fresh $vet $telha $modules
	run telhavet-telha-only "$tv" -telha-only ./...
	run telhavet-full "$tv" ./...
	run vettool-full go vet -vettool="$tv" $fresh $modules
done
rm -f /tmp/telhavet-bench.$$
