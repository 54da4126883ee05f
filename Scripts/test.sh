#!/usr/bin/env bash
# Runs the whole test suite: every test (including those that build and run real binaries: the
# annotated executable in debug and release, the dlopen plugin, the C compiler x linker matrix, and the same for
# the Swift macros, which the trait Macros builds: their expansion tests and Tests/MacroFixtures),
# then the thread-safety tests again under ThreadSanitizer, then a 30 s stress run (plugins loaded and
# unloaded while other threads rescan, resolve, route and dispatch events) under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-dependencies.sh

echo "== swift test (with the Swift macros: --traits Macros)"
swift test --traits Macros

echo "== stress: dlopen/dlclose churn, rescan, resolve, routes, events (10 s, a process of its own)"
BEEHIVE_STRESS_SECONDS=10 swift test --skip-build --traits Macros --filter "StressTests"

echo "== swift test --sanitize=thread (thread-safety suites)"
swift test --sanitize=thread --scratch-path .build-tsan \
    --filter "ConcurrencyTests|configConcurrency|concurrentCaching|ModuleLifecycleTests|ModuleEventTests|watchdog"

echo "== stress under ThreadSanitizer: dlopen/dlclose churn, rescan, resolve, routes, events (${BEEHIVE_STRESS_SECONDS:-30} s)"
BEEHIVE_STRESS_SECONDS="${BEEHIVE_STRESS_SECONDS:-30}" \
    swift test --sanitize=thread --scratch-path .build-tsan --skip-build --filter "StressTests"
