#!/usr/bin/env bash
# bench.sh measures how the telhavet gate scales: for each N, it writes a
# synthetic workspace of N packages with scalegen and prints
# "N name wall_s maxrss_kb treerss_kb exit" lines for:
#
#   telhavet-cold    telhavet ./..., every package analyzed again
#   telhavet-warm    the same, nothing changed
#   vettool-cold     go vet -vettool=telhavet ./scale/..., every package again
#   vettool-warm     the same, nothing changed
#   golangci-cold    the custom golangci-lint on ./scale/..., an empty lint
#                    cache
#   golangci-warm    the same, its cache filled
#
# on the same packages: at a go.work root, telhavet's ./... stands for the
# modules below the root, here the generated one (telha.dev/core, used from
# this repository, is analyzed only for the facts its importers need).
#
# wall_s and maxrss_kb are GNU time's: maxrss_kb is the resident memory of
# the largest single process of the command's process tree (the kernel
# reports the largest of the waited-for descendants, not their sum).
# treerss_kb is the largest sum of the resident memory of every process of
# the tree at once, sampled every 0.1 s: go vet runs up to GOMAXPROCS vet
# tool processes side by side.
#
# Then it adds a function to the package E = p(N/8), and then to the leaf
# p(N-1) that no package imports, and prints after each edit which
# packages telhavet analyzes again, from go vet -x: "N reanalyzed E: ...".
# A package may be listed twice, with and without its tests. After the
# leaf's edit, only the leaf. After E's, E, its importers p(2E) and
# p(2E+1), whose compiled inputs changed, and theirs, p(4E) to p(4E+3):
# the facts a package exports carry those of the packages it imports, so
# the importers' facts change with E's; no package further up.
#
# "Cold" means no analysis result is cached; the packages are compiled
# once before (go build), as after any edit but the first: go vet is made
# to analyze again by a new -printf.funcs value, which is part of its cache
# key, and golangci-lint by a new cache directory. telhavet finds the
# violations scalegen plants and exits 3.
#
# Usage, from the repository root:
#   [EVERY=25] [COLD=yes|no] tools/scalegen/bench.sh TELHAVET GOLANGCI-LINT|none N...
# One package in EVERY breaks a rule. With COLD=no, the cold runs are left
# out and the warm ones share the cache of make gate; with "none",
# golangci-lint is not measured.
set -euo pipefail

root=$(pwd)
tv=${1:?usage: tools/scalegen/bench.sh TELHAVET GOLANGCI-LINT|none N...}
gl=${2:?usage: tools/scalegen/bench.sh TELHAVET GOLANGCI-LINT|none N...}
shift 2
case $tv in /*) ;; *) tv=$root/$tv ;; esac
case $gl in none | /*) ;; *) gl=$root/$gl ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nonce=$(date +%s)
every=${EVERY:-25}
cold=${COLD:-yes}

# treerss PID: the summed resident memory (kB) of PID and its descendants.
treerss() {
	ps -e -o pid=,ppid=,rss= | awk -v root="$1" '
		{ parent[$1] = $2; rss[$1] = $3 }
		END {
			for (p in rss) {
				q = p
				while (q != "" && q != 0 && q != root) q = parent[q]
				if (q == root) sum += rss[p]
			}
			print sum + 0
		}'
}

run() { # N name command...
	local n=$1 name=$2 pid peak=0 rss
	shift 2
	/usr/bin/time -o "$tmp/time" -f "%e %M %x" "$@" >/dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		rss=$(treerss "$pid")
		if [ "$rss" -gt "$peak" ]; then peak=$rss; fi
		sleep 0.1
	done
	wait "$pid" || true
	read -r wall maxrss exit < <(tail -n 1 "$tmp/time")
	echo "$n $name $wall $maxrss $peak $exit"
}

for n in "$@"; do
	ws=$tmp/scale$n
	(cd "$root/tools/scalegen" && GOWORK=off go run . -n "$n" -every "$every" -o "$ws")
	cd "$ws"
	go build ./scale/...
	fresh=() vetfresh=()
	if [ "$cold" = yes ]; then
		fresh=(-printf.funcs=scale$nonce$n) vetfresh=(-printf.funcs=vet$nonce$n)
		run "$n" telhavet-cold "$tv" "${fresh[@]}" ./...
		run "$n" vettool-cold go vet -vettool="$tv" "${vetfresh[@]}" ./scale/...
	else
		"$tv" ./... >/dev/null 2>&1 || true
		go vet -vettool="$tv" ./scale/... >/dev/null 2>&1 || true
	fi
	run "$n" telhavet-warm "$tv" "${fresh[@]}" ./...
	run "$n" vettool-warm go vet -vettool="$tv" "${vetfresh[@]}" ./scale/...

	inner=$(printf 'p%04d' $((n / 8)))
	leaf=$(printf 'p%04d' $((n - 1)))
	for edited in "$inner" "$leaf"; do
		printf '\n// Extra%s changes the API of the package.\nfunc Extra%s() int { return 1 }\n' "$n" "$n" >>"scale/$edited/$edited.go"
		echo "$n reanalyzed $edited: $("$tv" -x "${fresh[@]}" ./... 2>&1 | grep -B1 'vet\.cfg$' | sed -n 's|^cd .*/||p' | sort | tr '\n' ' ')"
	done

	if [ "$gl" != none ]; then
		export GOLANGCI_LINT_CACHE="$tmp/golangci$n"
		run "$n" golangci-cold "$gl" run --config "$root/.golangci.yml" ./scale/...
		run "$n" golangci-warm "$gl" run --config "$root/.golangci.yml" ./scale/...
		unset GOLANGCI_LINT_CACHE
	fi
	cd "$root"
	rm -rf "$ws"
done
