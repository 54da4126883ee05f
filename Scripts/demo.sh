#!/usr/bin/env bash
# The main job: installs what is missing, then runs the demo (release build), reads the demo's records from disk with
# the beehive tool, and runs the quick registration benchmark, which prints tables of medians (wall clock) and ratios
# against explicit registration, and the targets with their units.
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
    echo "== registration benchmark (quick): median wall clock on this machine"
    echo "   Every table and verdict names its unit. Wall clock moves with the machine's load: the cost figures of"
    echo "   Docs/Performance.md are instruction counts (callgrind: Scripts/benchmark.sh --first-use), which load does"
    echo "   not move, and the wall clock of a quiet machine (Docs/benchmarks.md). At N = 10, registering from records opens"
    echo "   the image's file: in instructions about what explicit code costs, in wall clock many times more"
    echo "   (the system calls of opening a file are few instructions and much time)."
    echo "   package-benchmark may warn that the Swift runtime interposer is not loaded: that library"
    echo "   (ordo-one/swift-runtime-interposer, loaded with LD_PRELOAD) counts retains and releases, which these"
    echo "   benchmarks do not measure (their metrics: wall clock, instructions, mallocs); nothing here depends on it."
    Scripts/benchmark.sh --quick
fi
