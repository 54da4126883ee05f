#!/usr/bin/env bash
# Runs the whole test suite, in stages:
#   1. build        swift build --build-tests --traits Macros (the Swift macros: swift-syntax; minutes the first time)
#   2. unit         the unit tests, in process: BeeHiveTests, _BeeHiveDiscoveryTests, BeeHiveMacrosTests (the macros'
#                   expansion), BeeHiveServiceLifecycleTests (seconds), but for the complexity tests
#   2b. complexity  doubling an input at most doubles the work: instructions counted by callgrind in child processes
#                   (BeeHiveTests' ComplexityTests; minutes)
#   3. integration  the tests that build packages and binaries and run them: BeeHiveIntegrationTests (the annotated
#                   executable in debug and release, the dlopen plugin, the C compiler x linker matrix, hostile images,
#                   signals, Tests/MacroFixtures) and BeeHiveCommandTests (the beehive tool)
#      snippets     the packages of the README and the getting-started articles, built as written and run
#                   (BeeHiveIntegrationTests' SnippetTests), in a test process of their own beside stage 3
#   4. tsan-build   waits for the ThreadSanitizer build (a build of its own in .build-tsan, of the libraries and
#                   the tsan suites' files of BeeHiveTests: BEEHIVE_TEST_SCOPE=tsan), begun in the background with
#                   stage 3
#      tsan         the thread-safety suites under ThreadSanitizer
#   5. tsan-stress  30 s (BEEHIVE_STRESS_SECONDS) of plugins loaded and unloaded while other threads rescan, resolve,
#                   route and dispatch events, under ThreadSanitizer
#      stress       the same for 10 s without it, beside tsan-stress (both last a set time)
# Every stage runs even when an earlier one failed (a stage that needs a failed build is reported as not run); the
# failures are listed at the end, and the exit status is non-zero if any stage failed. No test asserts a duration.
#
#   Scripts/test.sh           every stage (about 20 min from a fresh clone on 2 cores, most of it building)
#   Scripts/test.sh --unit    stages 1 and 2 only: the unit tests (seconds once the build is done)
set -uo pipefail
cd "$(dirname "$0")/.."

unit_only=0
case "${1:-}" in
    "") ;;
    --unit) unit_only=1 ;;
    -h | --help)
        sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "test.sh: unknown argument '$1' (expected --unit or nothing)" >&2
        exit 2
        ;;
esac

# Test target filters (regular expressions over "<test target>.<suite>/<test>"); .ci/run relies on these names.
unit_filter='^(BeeHiveTests|_BeeHiveDiscoveryTests|BeeHiveMacrosTests|BeeHiveServiceLifecycleTests)\.'
complexity_filter='^BeeHiveTests\.ComplexityTests'
integration_filter='^(BeeHiveIntegrationTests|BeeHiveCommandTests)\.'
snippets_filter='^BeeHiveIntegrationTests\.SnippetTests'
tsan_filter='ConcurrencyTests|ServiceEventsAndLeasesTests|RankingTests|configConcurrency|concurrentCaching|ModuleLifecycleTests|ModuleEventTests|watchdog|PluginUpgradeConcurrencyTests|TypedFirstUseTests'

started=$(date +%s)
failed=()
summary=()

# stage NAME COMMAND...: runs COMMAND, records its outcome and duration; never stops the script.
stage() {
    local name="$1"
    shift
    local stage_start
    stage_start=$(date +%s)
    echo
    echo "== [$name] $*"
    if "$@"; then
        summary+=("ok      $name ($(($(date +%s) - stage_start)) s)")
    else
        local status=$?
        failed+=("$name")
        summary+=("FAILED  $name (exit status $status, $(($(date +%s) - stage_start)) s)")
    fi
}

# not_run NAME REASON: records a stage that could not run.
not_run() {
    failed+=("$1")
    summary+=("NOT RUN $1 ($2)")
}

# succeeded NAME: whether the stage NAME ran and passed.
succeeded() { [[ " ${failed[*]} " != *" $1 "* ]]; }

stage install-dependencies Scripts/install-dependencies.sh

stage build swift build --build-tests --traits Macros
built=0
succeeded build && built=1

if ((built)); then
    stage unit swift test --skip-build --traits Macros --filter "$unit_filter" --skip "$complexity_filter"
else
    not_run unit "the build failed"
fi

# in_background NAME COMMAND...: starts COMMAND in the background, its output in .build-logs/NAME.log.
# in_foreground NAME: waits for it, prints its output, and fails as it failed.
declare -A background=()
in_background() {
    local name="$1"
    shift
    mkdir -p .build-logs
    ("$@" >".build-logs/$name.log" 2>&1) &
    background[$name]=$!
}
in_foreground() {
    local status=0
    wait "${background[$1]}" || status=$?
    cat ".build-logs/$1.log"
    return "$status"
}

# The ThreadSanitizer build (a scratch folder of its own) runs in the background beside the integration and snippets
# stages: the integration stage alone left a core idle for minutes (a release compile of one module, a link, a child
# process waited for); the three together keep both busy. Its output is printed when the tsan stages begin.
# BEEHIVE_TEST_SCOPE=tsan: the manifest leaves out the targets no tsan suite links, and the files of BeeHiveTests that
# hold none (Package.swift, at its end).
start_tsan_build() {
    in_background tsan-build env BEEHIVE_TEST_SCOPE=tsan swift build --build-tests --sanitize=thread \
        --scratch-path .build-tsan
}

# tsan_build: waits for the background ThreadSanitizer build, prints its output, and fails as it did; then, when the
# main build is there, checks that the tsan build holds every test that tsan_filter and StressTests select in it (the
# manifest compiles only some files of BeeHiveTests for tsan: a suite moved into another file must not drop out).
tsan_build() {
    in_foreground tsan-build || return
    ((built)) || return 0
    local selected="$tsan_filter|StressTests" whole reduced
    whole=$(swift test list --skip-build --traits Macros | grep -E "$selected" | sort)
    reduced=$(env BEEHIVE_TEST_SCOPE=tsan swift test list --skip-build --sanitize=thread --scratch-path .build-tsan |
        grep -E "$selected" | sort)
    if [[ -z "$whole" || "$whole" != "$reduced" ]]; then
        echo "tsan-build: expected the tsan build to hold the $(grep -c . <<<"$whole") tests that the tsan stages" \
            "select in the whole build; these differ (< whole build, > tsan build; Package.swift lists the files):" >&2
        diff <(echo "$whole") <(echo "$reduced") >&2
        return 1
    fi
    echo "tsan-build: the tsan build holds the $(grep -c . <<<"$whole") tests the tsan stages select"
}

if ((!unit_only)); then
    if ((built)); then
        stage complexity swift test --skip-build --traits Macros --filter "$complexity_filter"
        start_tsan_build
        # The documents' snippets (one package after another, minutes of building) run beside the other integration
        # tests from the start, in a test process of their own: started by `swift test`, they waited for a test
        # thread of its two for minutes, and then built alone. The test binary is run directly, since a second
        # `swift test` waits for the first to end (SwiftPM's lock on .build).
        in_background snippets env NO_COLOR=1 "$(swift build --show-bin-path)/BeeHivePackageTests.xctest" \
            --testing-library swift-testing --filter "$snippets_filter"
        stage integration swift test --skip-build --traits Macros --filter "$integration_filter" \
            --skip "$snippets_filter"
        stage snippets in_foreground snippets
    else
        start_tsan_build
        not_run complexity "the build failed"
        not_run integration "the build failed"
        not_run snippets "the build failed"
    fi

    stage tsan-build tsan_build
    tsan_built=0
    succeeded tsan-build && tsan_built=1
    if ((tsan_built)); then
        stage tsan env BEEHIVE_TEST_SCOPE=tsan \
            swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter "$tsan_filter"
    else
        not_run tsan "the stage tsan-build failed"
    fi
    # The two stress runs last a set time each, so they run side by side: the shorter one in the background.
    ((built)) && in_background stress env BEEHIVE_STRESS_SECONDS=10 \
        swift test --skip-build --traits Macros --filter "StressTests"
    if ((tsan_built)); then
        stage tsan-stress env BEEHIVE_TEST_SCOPE=tsan BEEHIVE_STRESS_SECONDS="${BEEHIVE_STRESS_SECONDS:-30}" \
            swift test --sanitize=thread --scratch-path .build-tsan --skip-build --filter "StressTests"
    else
        not_run tsan-stress "the stage tsan-build failed"
    fi
    if ((built)); then
        stage stress in_foreground stress
    else
        not_run stress "the build failed"
    fi
fi

echo
echo "== test.sh: $(($(date +%s) - started)) s"
for line in "${summary[@]}"; do echo "   $line"; done
if ((${#failed[@]} > 0)); then
    echo "== test.sh: ${#failed[@]} stage(s) failed: ${failed[*]} (their output is above, under '== [stage]')" >&2
    exit 1
fi
echo "== test.sh: every stage passed"
