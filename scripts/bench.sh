#!/usr/bin/env bash
# Installs what is needed, then runs the benchmark on the default adapter. Arguments go to
# `dmlgpu bench` (e.g. --json out.json, a case pattern, --webgpu dawn).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh" test,dawn
exec "$root/.venv/bin/dmlgpu" bench "$@"
