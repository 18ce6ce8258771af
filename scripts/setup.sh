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
if [ ! -x .venv/bin/python ] && ! python3 -m venv .venv; then
  rm -rf .venv
  echo "setup.sh: python3 -m venv failed; this needs Python >= 3.10 with venv and" \
    "ensurepip (Debian's python3: apt-get install python3-venv)" >&2
  exit 1
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# pip's and setuptools' chatter only when something goes wrong
log=$(mktemp)
if ! .venv/bin/python -m pip install -q -e ".[${extras}]" >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "setup.sh: pip install -e .[${extras}] failed" >&2
  exit 1
fi
rm -f "$log"
