#!/usr/bin/env bash
# CI: run the engine against every tmux version we support, one after the other: Debian's own
# (3.3a, on PATH), and 3.4 (Ubuntu 24.04) and 3.7c (Homebrew) built from ../shared/tmux/ when
# those sources are present. A version is built once into $TMUX_CACHE/tmux-VERSION (default
# /opt) and reused. The whole suite has already run against the tmux on PATH; each extra
# version runs the tests that exercise the engine (see below): running everything three times
# would not fit CI's 30 minutes on a busy 2-core machine.
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
# Against each extra version, what exercises the engine, without -race (the race detector has
# had the whole suite against 3.3a): tmux's client whole (control mode, streams, formats,
# remote hosts: where versions differ) with testssh's own check that a test host runs the
# same tmux; the runner's shell matrix (every set-up, with and without the process table)
# and its runs; and of e2e the seeded contracts, runs in every shell, reads, waits and a
# hostile pane title. The runner's and e2e's tests share one go test (two packages at once:
# they mostly wait on shells), named exactly: a name in one package matches none in the other.
ENGINE_RUN="${ENGINE_RUN:-TestEngine(Setups|NestedAndNarrow)|TestRun(CtrlC|LatePrompt|PendingInput|ScriptFiles|InlineFallback|LostLine|Preflight|LostMarker|TimeoutShorterThanTyping)}"
E2E_RUN="${E2E_RUN:-TestSeededToolSchemas|TestRunShellCommandSeedContract|TestRunCommandTool|TestRunShells|TestRunWaitsForInput|TestCapturePane|TestCaptureSince|TestWaitForTextOnlyNewOutput|TestWaitForTextIgnoresOwnEcho|TestWaitForTextAlternateScreen|TestAnswerRunningCommand|TestDisplayMessageValueExpansion}"

# stage NAME CMD...: runs CMD and says how long it took (CI's time is counted per stage).
stage() {
	local name="$1" start=$SECONDS
	shift
	"$@"
	echo "== $name: $((SECONDS - start))s"
}

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

base="$PATH"
for v in $versions; do
	if [ ! -f "$src/tmux-$v.tar.gz" ]; then
		echo "== tmux $v: skipped (no source at $src/tmux-$v.tar.gz)"
		continue
	fi
	echo "== tmux $v: building into $cache/tmux-$v (once)"
	stage "tmux $v: build" build "$v"
	echo "== tmux $v: $("$cache/tmux-$v/bin/tmux" -V)"
	export PATH="$cache/tmux-$v/bin:$base"
	stage "tmux $v: tmux/..." go test -count=1 -timeout 10m ./tmux/... ./internal/testssh/
	# Without /proc is macOS's case, whose tmux comes from Homebrew (3.7c here): against 3.4
	# (Ubuntu, which has /proc) the engine runs with its process table only.
	skip=""
	[ "$v" != 3.4 ] || skip='^(TestEngineSetups|TestEngineNestedAndNarrow|TestRunWaitsForInput)$/^noproc$'
	stage "tmux $v: runner, e2e" go test -count=1 -timeout 10m -run "^($ENGINE_RUN|$E2E_RUN)\$" ${skip:+-skip "$skip"} ./runner/ ./e2e/
done
