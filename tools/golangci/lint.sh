#!/bin/sh
# lint.sh runs the custom golangci-lint (make golangci) the way an editor
# does, with the repository's .golangci.yml:
#
#  1. on every module of go.work, which must be clean (golangci-lint, like
#     go vet, cannot take ./... at the go.work root, so each module is named);
#  2. on the violation fixture and on the adversarial bypass fixture, where
#     the telhavet plugin must report exactly the Telha findings that
#     telhavet reports, but on the lines a //nolint comment hides in
#     golangci-lint (the gate honours none): the editor shows what the
#     gate enforces. On the bypass fixture, golangci-lint is run where
#     telhavet goes by itself: on every module of its workspace, in each of
#     its build configurations (on the package that holds the files only
#     they compile), and on the packages under testdata and "_" directories
#     that its code imports.
#
# Usage: tools/golangci/lint.sh [path/to/golangci-lint] [path/to/telhavet]
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/bin/golangci-lint}
tv=${2:-$root/bin/telhavet}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $tv in /*) ;; *) tv=$(pwd)/$tv ;; esac
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

modules=$(go list -m -f '{{.Dir}}/...' | sed "s|^$root/|./|")
echo "golangci-lint run $modules" | tr '\n' ' '
echo
"$bin" run $modules

rules='(rawiter|bytekey|systemscope)'

# golangci DIR [NAME=VALUE...] [tags=T] -- PACKAGES...: the Telha findings
# of one golangci-lint run in DIR, with the settings in its environment and
# the build tags T, as "file:line:col: rule: message" relative to DIR.
# golangci-lint exits 1 when it finds something.
golangci() {
	dir=$1
	shift
	envs=
	tags=
	while [ "$1" != -- ]; do
		case $1 in tags=*) tags=--build-tags=${1#tags=} ;; *) envs="$envs $1" ;; esac
		shift
	done
	shift
	# shellcheck disable=SC2086 # envs and tags are word lists
	(cd "$dir" && env $envs "$bin" run $tags --output.text.path=stdout --show-stats=false --path-mode=abs "$@" 2>&1 || true) |
		grep -E "^/[^ ]*: $rules: .* \(telhavet\)\$" | sed "s| (telhavet)\$||; s|^$dir/||" || true
}

# telhavet FIXTURE ENV...: the Telha findings of telhavet ./... in FIXTURE,
# but those on lines that hold //nolint.
telhavet() {
	dir=$1
	shift
	(cd "$dir" && env "$@" "$tv" ./... 2>&1 || true) | grep -E "^/[^ ]*: $rules: " | sed "s|^$dir/||" |
		while IFS= read -r finding; do
			file=${finding%%:*}
			line=$(echo "$finding" | cut -d: -f2)
			if ! sed -n "${line}p" "$dir/$file" | grep -q '//nolint'; then
				printf '%s\n' "$finding"
			fi
		done
}

# compare NAME: the two sorted lists of findings must be equal and not empty.
compare() {
	sort -u "$tmp/golangci" > "$tmp/golangci.sorted"
	sort -u "$tmp/telhavet" > "$tmp/telhavet.sorted"
	if [ ! -s "$tmp/telhavet.sorted" ]; then
		echo "lint: telhavet reported nothing on $1" >&2
		exit 1
	fi
	if ! diff -u "$tmp/telhavet.sorted" "$tmp/golangci.sorted" >"$tmp/diff"; then
		cat "$tmp/diff"
		echo "lint: the telhavet plugin and telhavet differ on $1 (- telhavet, + golangci-lint)" >&2
		exit 1
	fi
	echo "lint: golangci-lint's telhavet plugin reports the $(wc -l <"$tmp/golangci.sorted") Telha findings of telhavet on $1"
}

fixture=$root/cmd/telhavet/testdata/fixture
golangci "$fixture" GOWORK=off -- ./... >"$tmp/golangci"
telhavet "$fixture" GOWORK=off >"$tmp/telhavet"
compare cmd/telhavet/testdata/fixture

bypass=$root/cmd/telhavet/testdata/bypass
work="GOWORK=$bypass/go.work"
: >"$tmp/golangci"
for m in $(cd "$bypass" && env "$work" go list -m -f '{{.Dir}}'); do
	case $m in
	"$bypass") prefix= ;;
	"$bypass"/third_party/*) continue ;;
	"$bypass"/*) prefix=${m#"$bypass"/}/ ;;
	*) continue ;;
	esac
	golangci "$m" "$work" -- ./... | sed "s|^|$prefix|" >>"$tmp/golangci"
done
# The fixture keeps the files that only another build compiles in
# buildtags: the other packages need cgo, which a cross build lacks.
grep -v '^#' "$bypass/telhavet.builds" | grep . | while read -r build; do
	# shellcheck disable=SC2086 # a build is a word list
	golangci "$bypass" "$work" $build -- ./buildtags >>"$tmp/golangci"
done
golangci "$bypass" "$work" -- ./testdata/rawkeys ./_private/sweep >>"$tmp/golangci"
telhavet "$bypass" "$work" >"$tmp/telhavet"
compare cmd/telhavet/testdata/bypass
