#!/usr/bin/env bash
# Installs what BeeHive needs beyond the Swift toolchain, if it is missing: libelf-dev (the beehive tool reads
# files with libelf; programs do not load it) and pkg-config (SwiftPM finds libelf through it); zlib1g-dev, because
# libelf needs zlib (the tool and the fuzzers link -lz). gcc and binutils (bfd, gold, ar), with the Swift
# toolchain's clang and lld, are used by the linker tests; valgrind and GNU time by the complexity and memory tests; graphviz (dot) by the
# report's graph test; chromium (headless) by the plugin server's load test, for its debug page. Debian/Ubuntu; run as root or with sudo available.
set -euo pipefail

missing=()
pkg-config --exists libelf 2>/dev/null || missing+=(libelf-dev)
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists zlib 2>/dev/null && [ -e "$(pkg-config --variable=libdir zlib)/libz.a" ] || missing+=(zlib1g-dev)
# libelf.a of elfutils 0.189 and later (not Debian 12's 0.188) may also need zstd, for a static build of the tool.
if pkg-config --static --libs libelf 2>/dev/null | grep -q -- -lzstd; then
    pkg-config --exists libzstd 2>/dev/null || missing+=(libzstd-dev)
fi
command -v gcc >/dev/null || missing+=(gcc)
command -v readelf >/dev/null || missing+=(binutils)
# The tests' complexity checks count instructions with callgrind, and BoundedWorkTests reads max RSS from GNU time.
command -v valgrind >/dev/null || missing+=(valgrind)
command -v dot >/dev/null || missing+=(graphviz)
# The record-location tests count the files a program opens with strace.
command -v strace >/dev/null || missing+=(strace)
[ -x /usr/bin/time ] || missing+=(time)
# Examples/PluginServer/check-debug-page.sh loads the server's debug page in headless Chromium (its JS renders it).
command -v chromium >/dev/null || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
