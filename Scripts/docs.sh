#!/usr/bin/env bash
# Generates the DocC documentation of every Swift product (swift-docc-plugin), with warnings as errors: a broken
# symbol link, an unknown curated page or any other DocC warning fails the run (exit status non-zero).
# The archives go to $BEEHIVE_DOCS_SCRATCH/plugins/Swift-DocC/outputs/<Target>.doccarchive (git-ignored).
# The scratch path is .build by default: the plugin builds the targets exactly as `swift build --traits Macros` does
# (the same commands, swift-syntax for the macros included), so after that build only the DocC plugin's own tools are
# built. One plugin invocation documents every target; only when it fails does each target run alone, to name those
# that fail.
#   Scripts/docs.sh                  every product
#   Scripts/docs.sh BeeHiveRouter    only the targets named
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-dependencies.sh

scratch="${BEEHIVE_DOCS_SCRATCH:-.build}"
# Package.swift depends on swift-docc-plugin only when asked (so that no other build pays for it).
export BEEHIVE_DOCS=1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(BeeHive BeeHiveModules BeeHiveRouter BeeHiveMediator BeeHiveServiceLifecycle BeeHiveTesting BeeHiveMacros)

docc() {
    local target_flags=()
    for target in "$@"; do target_flags+=(--target "$target"); done
    swift package --traits Macros --scratch-path "$scratch" generate-documentation "${target_flags[@]}" --warnings-as-errors
}

failed=()
echo "== DocC: ${targets[*]}"
if ! docc "${targets[@]}"; then
    if [ ${#targets[@]} -eq 1 ]; then
        failed=("${targets[@]}")
    else
        echo "== DocC failed; each target alone, to name those that fail"
        for target in "${targets[@]}"; do
            echo "== DocC: $target"
            docc "$target" || failed+=("$target")
        done
        # Should every target pass alone, the run still failed: name them all rather than none.
        [ ${#failed[@]} -gt 0 ] || failed=("${targets[@]}")
    fi
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "DocC reported warnings or errors (broken links?) in: ${failed[*]}" >&2
    exit 1
fi
echo "DocC: every archive is in $scratch/plugins/Swift-DocC/outputs/"
