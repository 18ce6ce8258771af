#!/usr/bin/env bash
# Software Vulkan driver (Mesa's lavapipe) for a Debian 12 machine without a GPU. Dawn needs
# Mesa >= 24, which bookworm-backports has (Debian 12's own 22.3 only suits wgpu-native).
# Idempotent; needs root (or sudo). Skipped where a Mesa >= 24 driver is already installed.
set -euo pipefail
if dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -q '^2[4-9]\.'; then
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
src=/etc/apt/sources.list.d/debian.sources
bpo=/etc/apt/sources.list.d/debian-backports.sources
if [ ! -f "$bpo" ] && [ -f "$src" ]; then
  # the machine's own Debian archive stanza, with the backports suite
  awk 'BEGIN{RS=""; ORS="\n\n"} /Suites: bookworm( |$)/ {sub(/Suites: [^\n]*/, "Suites: bookworm-backports"); print; exit}' \
    "$src" | $SUDO tee "$bpo" >/dev/null
elif [ ! -f "$bpo" ] && ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee /etc/apt/sources.list.d/backports.list >/dev/null
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
dpkg-query -W -f='mesa-vulkan-drivers ${Version}\n' mesa-vulkan-drivers
