#!/usr/bin/env bash
# Runs BeeHive's registration benchmarks (issues 3 and 11): annotation records vs plist vs JSON vs explicit code (by
# implementation type and with typed factories) vs Swinject, in process (package-benchmark) and as whole processes
# (startup, first use, scan cost).
#
#   Scripts/benchmark.sh --smoke      N = 10 only; builds and runs every benchmark once, checks that every service of
#                                     every mechanism resolves to its implementation; no timing assertions (CI)
#   Scripts/benchmark.sh --quick      N up to 1,000; prints a table of medians and ratios against explicit code
#   Scripts/benchmark.sh --full       N up to 10,000; writes Docs/benchmarks.md and Docs/images/registration-cost.svg
#   Scripts/benchmark.sh --first-use  N = 10, 100, 1,000: registration and first use (every service resolved once, by
#                                     type and by name), instructions (callgrind) and wall clock (in a fresh process,
#                                     and hyperfine); instructions before main; cached resolve per call and its
#                                     allocations (CachedResolve); route matching against RoutingKit (RouteMatch);
#                                     then, in the same run, the floor programs (issue 33: b2, b3, c, r, n and
#                                     compile-time wiring, written and built by Benchmarks/Tools/floor_programs.py,
#                                     plus the cost of naming (any P).self), at each N of the run; registration + first
#                                     use per service beside the split figures; issues 20 and 33's verdicts; writes the
#                                     first-use block of Docs/benchmarks.md
#
# Options (any mode): --n N[,N...] (from 10, 100, 1000, 10000, within the mode's tiers),
# --mechanism all|M[,M...] (annotations, plist, json, explicit, explicit-typed, swinject), --runs R (startup rounds;
# processes per program and mode for --first-use), --macros (adds the 7th mechanism, Swift macros, and the same with
# service keys: generates Fixtures<N>Macros, StartupMacros<N>, Fixtures<N>Keys and StartupKeys<N> into every tier and
# builds the BeeHive package with its trait Macros; needs the BeeHiveMacros product).
# BEEHIVE_PATH=/path/to/checkout measures another BeeHive checkout (e.g. a git worktree of an older commit); its
# build goes to Benchmarks/.build-<folder name>. Builds go to Benchmarks/.build (git-ignored); exports to
# Benchmarks/Results/<mode> (git-ignored).
set -euo pipefail

usage() {
    sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

fail_usage() {
    echo "benchmark.sh: $1" >&2
    usage
}

mode=""
only_n=""
only_mechanisms="all"
runs=""
macros=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --smoke | --quick | --full | --first-use)
            [[ -z "$mode" ]] || fail_usage "expected one mode; found $mode and ${1#--}"
            mode="${1#--}"
            ;;
        --n)
            [[ $# -ge 2 ]] || fail_usage "expected a value after --n"
            only_n="$2"
            shift
            ;;
        --mechanism)
            [[ $# -ge 2 ]] || fail_usage "expected a value after --mechanism"
            only_mechanisms="$2"
            shift
            ;;
        --runs)
            [[ $# -ge 2 ]] || fail_usage "expected a value after --runs"
            runs="$2"
            shift
            ;;
        --macros) macros=1 ;;
        -h | --help) usage ;;
        *) fail_usage "unknown argument '$1'" ;;
    esac
    shift
done
mode="${mode:-quick}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="$root/Benchmarks"
tools="$bench/Tools"
results="$bench/Results/$mode"
if [[ -n "${BEEHIVE_PATH:-}" ]]; then
    BEEHIVE_PATH="$(cd "$BEEHIVE_PATH" && pwd)"
    export BEEHIVE_PATH
    default_scratch="$bench/.build-$(basename "$BEEHIVE_PATH")"
else
    default_scratch="$bench/.build"
fi
scratch="${BEEHIVE_BENCH_SCRATCH:-$default_scratch}"  # another folder: a clean build, or (CI) .build, the demo's
measured_path="${BEEHIVE_PATH:-$root}"
measured="$(git -C "$measured_path" rev-parse --short HEAD 2>/dev/null || echo '?')"
git -C "$measured_path" diff --quiet HEAD 2>/dev/null || measured="$measured with uncommitted changes"

case "$mode" in
    smoke) tiers="10" ; default_runs=1 ; startup_n="10" ;;
    quick) tiers="10,100,1000" ; default_runs=10 ; startup_n="1000" ;;
    full) tiers="10,100,1000,10000" ; default_runs=30 ; startup_n="1000,10000" ;;
    first-use) tiers="10,100,1000" ; default_runs=20 ; startup_n="" ;;
esac
runs="${runs:-$default_runs}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || fail_usage "expected --runs > 0; found '$runs'"

# Validate --n and --mechanism before building anything.
all_mechanisms="annotations plist json explicit explicit-typed swinject"
((macros == 0)) || all_mechanisms="$all_mechanisms macros keys"
if [[ "$only_mechanisms" == "all" ]]; then
    mechanisms="$all_mechanisms"
else
    mechanisms="${only_mechanisms//,/ }"
    for m in $mechanisms; do
        [[ " $all_mechanisms " == *" $m "* ]] \
            || fail_usage "unknown mechanism '$m' (choose from all, ${all_mechanisms// /, })"
    done
fi
ns="${tiers//,/ }"
if [[ -n "$only_n" ]]; then
    ns="${only_n//,/ }"
    for n in $ns; do
        [[ "$n" =~ ^-?[0-9]+$ ]] || fail_usage "expected N as an integer; found '$n'"
        ((n > 0)) || fail_usage "expected N > 0; found $n"
        [[ ",$tiers," == *",$n,"* ]] || fail_usage "N = $n is not a tier of --$mode (tiers: $tiers)"
    done
    startup_list=""
    for n in $ns; do [[ ",$startup_n," == *",$n,"* ]] && startup_list="$startup_list,$n"; done
    startup_n="${startup_list#,}"
fi
ns_list="${ns// /,}"

step() { printf '\n==> %s\n' "$*"; }
started=$(date +%s)

# 1. Fixtures. Tiers 10 and 100 are committed: check they match the generator; generate the others.
step "fixtures (tiers $tiers)"
python3 "$tools/generate.py" --n 10,100 --check
big=""
for n in ${tiers//,/ }; do ((n > 100)) && big="$big,$n"; done
if ((macros)); then
    python3 "$tools/generate.py" --n "$tiers" --macros
    export BEEHIVE_BENCH_MACROS=1
else
    [[ -z "$big" ]] || python3 "$tools/generate.py" --n "${big#,}"
    # Without --macros, no tier builds the macros mechanism (it would enable the BeeHive trait Macros).
    rm -rf "$bench"/Fixtures/N*/Fixtures*Macros "$bench"/Fixtures/N*/StartupMacros*
    rm -rf "$bench"/Fixtures/N*/Fixtures*Keys "$bench"/Fixtures/N*/StartupKeys*
fi

# 2. One release build of everything: the benchmark suite, the startup programs, ScanCost, Profile.
export BEEHIVE_BENCH_TIERS="$tiers"
export BEEHIVE_BENCH_MODE="$mode"
[[ "$mode" == "first-use" ]] && export BEEHIVE_BENCH_MODE=quick
step "build (release, $scratch, BeeHive: $measured_path at $measured)"
build_start=$(date +%s)
build_log="$(mktemp)"
# A failed build must stop here: the programs of an earlier build would otherwise be measured as this code's.
if ! swift build -c release --package-path "$bench" --scratch-path "$scratch" > "$build_log" 2>&1; then
    grep -E "error" "$build_log" | head -40 >&2
    rm -f "$build_log"
    echo "benchmark.sh: build failed" >&2
    exit 1
fi
grep -E "warning: .*Benchmarks/|Build complete|Linking BeeHiveBenchmarks" "$build_log" || true
rm -f "$build_log"
echo "build: $(($(date +%s) - build_start)) s"
bin="$scratch/release"

# 3. In-process benchmarks (package-benchmark), exported as percentiles for the report.
step "package-benchmark ($mode)"
filters=()
for n in $ns; do
    for m in $mechanisms floor; do
        [[ "$m" == macros || "$m" == keys ]] || filters+=(--filter "register/$m/$n\$")  # whole processes only
    done
done
if [[ "$mode" != "first-use" ]]; then
    filters+=(--filter 'resolve/.*' --filter 'scan/.*' --filter 'rescan/.*' --filter 'hive/.*' --filter 'overhead/.*')
    filters+=(--filter 'route/.*')
else
    filters+=(--filter 'scan/this-process')  # issue 32's new hive's scan
fi
rm -rf "$results"
mkdir -p "$results/benchmarks"
# The machine is shared: keep the load average around the measurements for the report.
echo "before $(cut -d' ' -f1-3 /proc/loadavg)" > "$results/loadavg.txt"
(cd "$bench" && swift package --scratch-path "$scratch" --allow-writing-to-package-directory benchmark \
    --no-progress --format histogramPercentiles --path "$results/benchmarks" "${filters[@]}" 2>&1) \
    | grep -v -E "^\[|^Writing to |^Building|^Build |warning: 'swinject'|\.erb$|Info.plist$|^$" || true
count=$(find "$results/benchmarks" -name '*.tsv' | wc -l)
((count > 0)) || { echo "benchmark.sh: package-benchmark exported nothing (a benchmark failed?)" >&2; exit 1; }

if [[ "$mode" == "smoke" ]]; then
    # A registry one service short must stop the run instead of reporting a time.
    step "check: a short registry fails the benchmark"
    if (cd "$bench" && BEEHIVE_BENCH_EXPECT_EXTRA=1 swift package --scratch-path "$scratch" benchmark --no-progress \
        --filter 'register/explicit/10' > "$results/short-registry.log" 2>&1); then
        echo "benchmark.sh: a registry one service short did not fail the benchmark" >&2
        exit 1
    fi
    grep -q "registered 10 services; expected 11" "$results/short-registry.log" \
        || { echo "benchmark.sh: the short-registry failure did not say why" >&2; exit 1; }
    echo "ok: the benchmark stopped with: registered 10 services; expected 11"
fi

# First use: every service of every mechanism resolved once in a fresh process.
if [[ "$mode" == "smoke" ]]; then
    step "check: every service resolves to its implementation (first use, N = $ns_list)"
    python3 "$tools/firstuse.py" verify --bin "$bin" --n "$ns_list" --mechanism "${mechanisms// /,}"
fi
if [[ "$mode" == "first-use" ]]; then
    step "registration and first use (N = $ns_list; callgrind, in-process clocks, hyperfine; $runs runs)"
    profile_args=()
    if [[ ",$ns_list," == *",1000,"* ]]; then
        for m in annotations explicit-typed; do
            [[ " $mechanisms " == *" $m "* ]] && profile_args+=(--profile "$m:1000:type")
        done
    fi
    callgrind_flag=()
    command -v valgrind > /dev/null || { echo "benchmark.sh: valgrind is missing: no instruction counts" >&2; callgrind_flag=(--no-callgrind); }
    hyperfine_flag=()
    command -v hyperfine > /dev/null || { echo "benchmark.sh: hyperfine is missing (apt-get install -y hyperfine)" >&2; hyperfine_flag=(--no-hyperfine); }
    python3 "$tools/firstuse.py" measure --bin "$bin" --n "$ns_list" --mechanism "${mechanisms// /,}" --runs "$runs" \
        --beehive "$measured_path" --profile-dir "$results/profiles" "${profile_args[@]}" "${callgrind_flag[@]}" \
        "${hyperfine_flag[@]}" --out "$results/first-use.json"
    # The floor programs of issue 33, written by floor_programs.py (CI machines have no other copy), built with
    # swiftc -O in the scratch folder and counted with callgrind at every N of the run, whatever --mechanism says.
    floor_args=()
    if command -v valgrind > /dev/null; then
        step "floor programs (issue 33: b2, b3, c, r, n, wiring, naming (any P).self; N = $ns_list; callgrind)"
        nice python3 "$tools/floor_programs.py" measure --n "$ns_list" --work "$scratch/floor-programs" \
            --out "$results/floors.json"
        floor_args=(--floors "$results/floors.json")
    fi
    step "report"
    echo "after $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results/loadavg.txt"
    prefix=""
    [[ -n "${BEEHIVE_PATH:-}" ]] && prefix="BEEHIVE_PATH=$BEEHIVE_PATH "
    command_line="${prefix}Scripts/benchmark.sh --first-use"
    ((macros == 0)) || command_line="$command_line --macros"
    [[ -n "$only_n" ]] && command_line="$command_line --n $only_n"
    [[ "$only_mechanisms" != "all" ]] && command_line="$command_line --mechanism $only_mechanisms"
    [[ "$runs" != "$default_runs" ]] && command_line="$command_line --runs $runs"
    report_args=(--first-use "$results/first-use.json" --benchmarks "$results/benchmarks" --load "$results/loadavg.txt"
        --measured "$measured ($measured_path)" --command "$command_line" "${floor_args[@]}")
    if [[ -z "$only_n" && "$only_mechanisms" == "all" ]]; then
        report_args+=(--doc "$root/Docs/benchmarks.md")
    fi
    python3 "$tools/report.py" "${report_args[@]}" | tee "$results/summary.md"
    for profile in "$results"/profiles/*.inclusive.txt; do
        [[ -e "$profile" ]] && echo "profile (callgrind_annotate --inclusive=yes): ${profile#"$root"/}"
    done
    echo "benchmark.sh --$mode: done in $(($(date +%s) - started)) s; exports in ${results#"$root"/}"
    exit 0
fi

# 4. Whole-process startup and the scan cost as images are added.
startup_args=()
if [[ -n "$startup_n" ]]; then
    step "startup programs (N = $startup_n, $runs rounds)"
    python3 "$tools/startup.py" run --bin "$bin" --n "$startup_n" --mechanism "${mechanisms// /,}" --runs "$runs" \
        --out "$results/startup.json"
    startup_args=(--startup "$results/startup.json")
fi
step "scan cost with extra images"
case "$mode" in
    smoke) scan_opts=(--counts 0,2 --repeat 3 --rescans 10 --startup-runs 1) ;;
    quick) scan_opts=(--counts 0,10,50 --repeat 100 --rescans 100000 --startup-runs 5) ;;
    full) scan_opts=(--counts 0,10,50 --repeat 300 --rescans 1000000 --startup-runs 21) ;;
esac
python3 "$tools/startup.py" scan --bin "$bin" --work "$scratch/scan-libraries" "${scan_opts[@]}" \
    --out "$results/scan.json"

# 5. Instructions per registration (valgrind; this VM has no hardware counters). Full mode only.
callgrind_args=()
if [[ "$mode" == "full" ]] && command -v valgrind > /dev/null && [[ ",$ns," == *",1000,"* || -z "$only_n" ]]; then
    step "instructions per registration at N = 1,000 (valgrind)"
    python3 "$tools/startup.py" instructions --bin "$bin" --n 1000 --mechanism "${mechanisms// /,}" --repeat 10 \
        --out "$results/instructions.json"
    callgrind_args=(--callgrind "$results/instructions.json")
fi

# 6. The report.
step "report"
echo "after $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results/loadavg.txt"
report_args=(--load "$results/loadavg.txt" --benchmarks "$results/benchmarks" --scan "$results/scan.json" "${startup_args[@]}" "${callgrind_args[@]}")
command_line="Scripts/benchmark.sh --$mode"
if [[ "$mode" == "full" && -z "$only_n" && "$only_mechanisms" == "all" ]]; then
    python3 "$tools/report.py" "${report_args[@]}" --command "$command_line" --doc "$root/Docs/benchmarks.md" \
        --svg "$root/Docs/images/registration-cost.svg" | tee "$results/summary.md"
elif [[ "$mode" == "smoke" ]]; then
    python3 "$tools/report.py" "${report_args[@]}" --command "$command_line" --no-targets | tee "$results/summary.md"
else
    python3 "$tools/report.py" "${report_args[@]}" --command "$command_line" | tee "$results/summary.md"
fi
echo "benchmark.sh --$mode: done in $(($(date +%s) - started)) s; exports in ${results#"$root"/}"
