# Sourced by .ci/run: installs the official MCP conformance suite and the TypeScript client v2
# (pinned) for e2e TestConformance and TestTSClient, and exports TMUX_MCP_CONFORMANCE and
# TMUX_MCP_TSCLIENT for them. Without Node or the npm registry it says so and the tests skip.
# The packages are kept under a cache directory outside the repository, so a second run
# installs nothing.
conformance_setup() {
	local suite="@modelcontextprotocol/conformance@0.2.0-alpha.12"
	local client="@modelcontextprotocol/client@2.4.0"
	local node22="22.23.5" # the suite needs Node 22 or later (fs.globSync)
	local cache="${TMUX_MCP_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tmux-mcp-ci}"
	local dir="$cache/npm-conformance-0.2.0-alpha.12-client-2.4.0"
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "no Node or npm: the conformance suite and the TypeScript client tests are skipped"
		return 0
	fi
	mkdir -p "$dir" || return 0
	[ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
	if [ ! -d "$dir/node_modules/@modelcontextprotocol/conformance" ] || [ ! -d "$dir/node_modules/@modelcontextprotocol/client" ]; then
		if ! timeout 300 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$suite" "$client" >/dev/null 2>&1; then
			echo "the npm registry did not answer: the conformance suite and the TypeScript client tests are skipped"
			return 0
		fi
	fi
	local node
	node="$(command -v node)"
	if [ "$("$node" -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
		local arch
		case "$(uname -m)" in
		x86_64) arch=x64 ;;
		aarch64 | arm64) arch=arm64 ;;
		*) arch="" ;;
		esac
		local pkg="node-$(uname -s | tr 'A-Z' 'a-z')-$arch"
		if [ -n "$arch" ] && [ ! -x "$dir/node22/node_modules/$pkg/bin/node" ]; then
			mkdir -p "$dir/node22" && echo '{"private":true}' >"$dir/node22/package.json"
			timeout 300 npm install --prefix "$dir/node22" --no-audit --no-fund --loglevel=error "$pkg@$node22" >/dev/null 2>&1 || true
		fi
		node="$dir/node22/node_modules/$pkg/bin/node"
		if [ ! -x "$node" ]; then
			echo "Node $(command node --version) is older than 22 and Node 22 could not be installed from npm: the conformance suite and the TypeScript client tests are skipped"
			return 0
		fi
	fi
	export TMUX_MCP_CONFORMANCE="$node $dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
	export TMUX_MCP_TSCLIENT="$node $dir"
	echo "conformance suite and TypeScript client: $suite, $client on Node $("$node" --version)"
}
conformance_setup
