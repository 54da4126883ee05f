#!/usr/bin/env bash
# Installs what BeeHive needs beyond the Swift toolchain, if it is missing: libelf-dev (the scanner
# links libelf) and pkg-config (SwiftPM finds libelf through it). gcc and binutils are used by the
# linker tests. Debian/Ubuntu; run as root or with sudo available.
set -euo pipefail

missing=()
pkg-config --exists libelf 2>/dev/null || missing+=(libelf-dev)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v gcc >/dev/null || missing+=(gcc)
command -v readelf >/dev/null || missing+=(binutils)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
