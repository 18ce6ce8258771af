#!/usr/bin/env bash
# Installs what is needed, then runs the benchmark on the default adapter (lavapipe on a
# machine without a GPU; DMLGPU_ADAPTER or --adapter picks another). Arguments go to
# `dmlgpu bench` (e.g. --json out.json --plot out.png, a case pattern, --webgpu dawn).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh" test,dawn,plot
exec "$root/.venv/bin/dmlgpu" bench "$@"
