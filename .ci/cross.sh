#!/usr/bin/env bash
# CI: macOS and FreeBSD are checked by cross-compilation only (no such machine runs the
# suite): every package is vetted and its tests compiled for each target, so the
# platform files (internal/termstate: kinfo_proc, termios) at least compile there; their pure
# parts (the FreeBSD kinfo_proc decoder, the wait-message rules) are unit-tested on Linux.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for target in ${CROSS_TARGETS:-darwin/arm64 darwin/amd64 freebsd/amd64}; do
	echo "== $target: go vet, go test -c of every package"
	export GOOS="${target%/*}" GOARCH="${target#*/}"
	# vet type-checks every package (main too); test -c compiles and links every package
	# with tests, so a separate go build would only repeat the work.
	go vet ./...
	go test -c -o "$out/" ./...
	rm -f "$out"/*
done
