#!/usr/bin/env bash
# CI: run the engine against every tmux version we support, one after the other: Debian's own
# (3.3a, on PATH), and 3.4 (Ubuntu 24.04) and 3.7c (Homebrew) built from ../shared/tmux/ when
# those sources are present. A version is built once into $TMUX_CACHE/tmux-VERSION (default
# /opt) and reused. The whole suite has already run against the tmux on PATH; each extra
# version runs the engine packages (runner, shellrun, tmux/...) whole and, of e2e, the tests
# that exercise the engine: runs, reads, waits and the seeded contracts (see $E2E_RUN).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

# The sources sit in ../shared/tmux beside the checkout (../../shared/tmux from a worktree
# under wt/); TMUX_SOURCES overrides.
src="${TMUX_SOURCES:-}"
if [ -z "$src" ]; then
	for d in ../shared/tmux ../../shared/tmux; do
		if [ -d "$d" ]; then
			src="$d"
			break
		fi
	done
	src="${src:-../shared/tmux}"
fi
cache="${TMUX_CACHE:-/opt}"
versions="${TMUX_VERSIONS:-3.4 3.7c}"
# The engine's own packages, whole.
engine_pkgs="./runner/ ./shellrun/ ./tmux/... ./screen/"
# Of e2e: runs in every shell set-up, reads, waits, and the seeded contracts.
E2E_RUN="${E2E_RUN:-^(TestRun|TestShell|TestRead|TestWait|TestCapture|TestSeed|TestSchemas|TestWorkflow)}"

build() { # build VERSION: make $cache/tmux-VERSION/bin/tmux from the source tree, once
	local v="$1" dest="$cache/tmux-$1"
	if [ -x "$dest/bin/tmux" ]; then
		return 0
	fi
	local deps=()
	for p in libevent-dev libncurses-dev bison autoconf automake pkg-config build-essential; do
		dpkg -s "$p" >/dev/null 2>&1 || deps+=("$p")
	done
	if [ ${#deps[@]} -gt 0 ]; then
		echo "installing: ${deps[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${deps[@]}" >/dev/null
	fi
	local work
	work="$(mktemp -d)"
	tar -xzf "$src/tmux-$v.tar.gz" -C "$work"
	(
		cd "$work/tmux-$v"
		sh autogen.sh >/dev/null 2>&1
		./configure --prefix="$dest" >/dev/null
		make -j2 >/dev/null 2>&1
		make install >/dev/null
	)
	rm -rf "$work"
}

for v in $versions; do
	if [ ! -f "$src/tmux-$v.tar.gz" ]; then
		echo "== tmux $v: skipped (no source at $src/tmux-$v.tar.gz)"
		continue
	fi
	echo "== tmux $v: building into $cache/tmux-$v (once)"
	build "$v"
	echo "== tmux $v: $("$cache/tmux-$v/bin/tmux" -V)"
	PATH="$cache/tmux-$v/bin:$PATH" go test -race -count=1 -timeout 15m $engine_pkgs
	PATH="$cache/tmux-$v/bin:$PATH" go test -race -count=1 -timeout 15m -run "$E2E_RUN" ./e2e/
done
