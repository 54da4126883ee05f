#!/usr/bin/env bash
# The main job: installs what is missing, then runs the demo (release build) and the quick
# registration benchmark, which prints a table of medians and ratios against explicit registration.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-dependencies.sh

echo "== beehive-demo (release)"
swift build -c release --product beehive-demo
.build/release/beehive-demo Examples/Demo/Config/BHService.plist

echo
echo "== beehive inspect: the records of the demo binary, read from disk (Docs/CommandLineTool.md)"
swift build -c release --product beehive
.build/release/beehive inspect .build/release/beehive-demo

if [ -x Scripts/benchmark.sh ]; then
    echo
    echo "== registration benchmark (quick)"
    Scripts/benchmark.sh --quick
fi
