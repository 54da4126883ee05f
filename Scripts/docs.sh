#!/usr/bin/env bash
# Generates the DocC documentation of every Swift product (swift-docc-plugin), with warnings as errors: a broken
# symbol link, an unknown curated page or any other DocC warning fails the run (exit status non-zero).
# The archives go to $BEEHIVE_DOCS_SCRATCH/plugins/Swift-DocC/outputs/<Target>.doccarchive (git-ignored).
#   Scripts/docs.sh                  every product
#   Scripts/docs.sh BeeHiveRouter    only the targets named
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-dependencies.sh

scratch="${BEEHIVE_DOCS_SCRATCH:-.build-docs}"
# Package.swift depends on swift-docc-plugin only when asked (so that no other build pays for it).
export BEEHIVE_DOCS=1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(BeeHive BeeHiveModules BeeHiveRouter BeeHiveMediator BeeHiveServiceLifecycle BeeHiveTesting BeeHiveMacros)

failed=()
for target in "${targets[@]}"; do
    echo "== DocC: $target"
    if ! swift package --scratch-path "$scratch" generate-documentation --target "$target" --warnings-as-errors; then
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "DocC reported warnings or errors (broken links?) in: ${failed[*]}" >&2
    exit 1
fi
echo "DocC: every archive is in $scratch/plugins/Swift-DocC/outputs/"
