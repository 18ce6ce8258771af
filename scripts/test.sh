#!/usr/bin/env bash
# Installs what is needed, then runs the suite on both WebGPU implementations
# (wgpu-native and Dawn) on the default adapter (lavapipe on a machine without a GPU).
# Extra arguments go to pytest (after ours: `-n 0` runs in one process).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh" test,dawn
cd "$root"
status=0
for impl in wgpu dawn; do
  echo "=== DMLGPU_WEBGPU=$impl"
  # pytest's progress line by line, each implementation's summary at its end. A worker a
  # core (pytest-xdist): one pytest process on lavapipe keeps about one core busy (94-100%
  # of a CPU under top), and CI's machines have two. The slowest tests listed: CI must end
  # within 90 minutes on a cold shader cache.
  DMLGPU_WEBGPU=$impl .venv/bin/python -m pytest -q -p no:cacheprovider -n auto \
    --durations=15 --durations-min=20 "$@" \
    || status=$?
done
exit $status
