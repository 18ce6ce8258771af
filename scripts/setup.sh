#!/usr/bin/env bash
# Installs what dmlgpu needs on a fresh Debian 12 machine: a Vulkan driver (lavapipe when
# there is no GPU) and a virtual environment .venv with dmlgpu, its test extra and Dawn.
# Idempotent. Usage: scripts/setup.sh [extra,...]   (default extras: test,dawn)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# the driver step returns at once where Mesa >= 24 is already there
if command -v apt-get >/dev/null; then bash scripts/install-vulkan.sh; fi
extras=${1:-test,dawn}
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -e ".[${extras}]"
