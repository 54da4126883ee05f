#!/usr/bin/env bash
# Startup cost of a services-only program (10 BH_SERVICE records, each resolved once) against one BeeHive checkout:
# instructions of the whole process under callgrind, wall clock under hyperfine, whether Foundation is loaded.
# Usage: [BEEHIVE_PATH=/path/to/a/beehive/checkout] Benchmarks/ServicesOnly/measure.sh <label>
# (default: this repository). To compare with an older commit:
#   git worktree add /tmp/beehive-before <rev> && BEEHIVE_PATH=/tmp/beehive-before Benchmarks/ServicesOnly/measure.sh before
set -euo pipefail
label=${1:?usage: BEEHIVE_PATH=... measure.sh <label>}
here=$(cd "$(dirname "$0")" && pwd)
export BEEHIVE_PATH=$(cd "${BEEHIVE_PATH:-$here/../..}" && pwd)
export PATH=/opt/swift/usr/bin:$PATH
scratch=$here/.build-$label
runs=${RUNS:-50}

cd "$here"
echo "== building probe (release) against $BEEHIVE_PATH into $scratch" >&2
swift build -c release --product probe --scratch-path "$scratch" -j 2 >&2
bin=$(swift build -c release --product probe --scratch-path "$scratch" --show-bin-path)/probe

# Sanity: all 10 services resolve.
check=$("$bin" --verbose)
echo "   $check" >&2

# valgrind 3.19 cannot read Swift 6.3's DWARF 5: count on a copy without debug info (same code, same symbols).
nodebug=$scratch/probe.nodebug
cp "$bin" "$nodebug" && strip --strip-debug "$nodebug"
ir() {  # total instructions (Ir) of the whole process under callgrind
    local out=$(mktemp)
    if ! valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$nodebug" 2>"$out" >/dev/null; then
        cat "$out" >&2; rm -f "$out" "$out.cg"; echo "callgrind run failed" >&2; exit 1
    fi
    grep -oE 'Collected : [0-9]+' "$out" | grep -oE '[0-9]+'
    rm -f "$out" "$out.cg"
}
ir1=$(ir); ir2=$(ir)

json=$(mktemp)
hyperfine -N --warmup 5 --runs "$runs" --export-json "$json" "$bin" >&2
read -r mean sd min max < <(python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["results"][0]
print(*(f"{r[k]*1e3:.3f}" for k in ("mean","stddev","min","max")))' "$json")
rm -f "$json"

if ldd "$bin" | grep -qi foundation; then fnd="yes: $(ldd "$bin" | grep -i foundation | awk '{print $1}' | paste -sd, -)"; else fnd=no; fi
size=$(stat -c %s "$bin")

cat <<SUMMARY
==== services-only startup [$label] ====
beehive      $BEEHIVE_PATH ($(git -C "$BEEHIVE_PATH" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$BEEHIVE_PATH" diff --quiet HEAD 2>/dev/null || echo ', dirty'))
binary       $bin
check        $check
instructions $ir1 / $ir2 (callgrind Ir, whole process, two runs)
wall clock   $mean ± $sd ms (min $min, max $max; hyperfine -N, 5 warmup, $runs runs)
Foundation   $fnd
binary size  $size bytes ($(numfmt --to=iec-i --suffix=B "$size"))
SUMMARY
