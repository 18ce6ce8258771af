#!/usr/bin/env bash
# Installs what is needed, then runs the suite on both WebGPU implementations
# (wgpu-native and Dawn) on the default adapter (lavapipe on a machine without a GPU).
# Extra arguments go to pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh" test,dawn
cd "$root"
status=0
for impl in wgpu dawn; do
  echo "=== DMLGPU_WEBGPU=$impl"
  # pytest's progress line by line, each implementation's summary at its end
  DMLGPU_WEBGPU=$impl .venv/bin/python -m pytest -q -p no:cacheprovider "$@" || status=$?
done
exit $status
