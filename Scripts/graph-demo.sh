#!/usr/bin/env bash
# Draws the demo's wiring from its file, without running it: builds beehive-demo and the beehive tool, prints the graph
# of the demo's records with `beehive graph` (Docs/CommandLineTool.md) and draws it with Graphviz's dot into
# Docs/images/demo-graph.svg (paths made relative to the repository). Options are passed to `swift build`, e.g.
# `Scripts/graph-demo.sh -c release` or `--traits Macros` to reuse a build made with the trait.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v dot >/dev/null || { echo "expected Graphviz's dot (Scripts/install-dependencies.sh); found none" >&2; exit 1; }
swift build "$@" --product beehive-demo
swift build "$@" --product beehive
bin="$(swift build "$@" --show-bin-path)"
"$bin/beehive" graph "$bin/beehive-demo" | sed "s|$(pwd -P)/||g" | dot -Tsvg -o Docs/images/demo-graph.svg
echo "wrote Docs/images/demo-graph.svg"
