#!/usr/bin/env bash
# Installs what is needed, then runs the suite on both WebGPU implementations
# (wgpu-native and Dawn) on the default adapter (lavapipe on a machine without a GPU).
# Extra arguments go to pytest (after ours: `-n 0` runs in one process). DMLGPU_TEST_WORKERS
# sets the number of pytest-xdist workers (default: a core each, at most 8).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh" test,dawn
cd "$root"
# On lavapipe a cold Mesa shader cache spends most of a run in LLVM compiling the suite's
# pipelines: without LLVM's optimization passes they compile in about two thirds of the
# time (tests/test_hardmax.py, one process, cold: 85 -> 55 s; two workers: 29 s), and run
# as fast (warm: 9.0 against 9.4 s). Mesa's JIT reads it; a GPU's driver ignores it.
export GALLIVM_PERF=${GALLIVM_PERF-nopt}
status=0
workers=${DMLGPU_TEST_WORKERS:-$(( $(nproc) < 8 ? $(nproc) : 8 ))}
for impl in wgpu dawn; do
  echo "=== DMLGPU_WEBGPU=$impl"
  # pytest's progress line by line, each implementation's summary at its end. A worker a
  # core (pytest-xdist), at most 8: one pytest process on lavapipe keeps about one core busy
  # (94-100% of a CPU under top), and CI's machines have two. The slowest tests listed: CI
  # must end within 90 minutes on a cold shader cache.
  DMLGPU_WEBGPU=$impl .venv/bin/python -m pytest -q -p no:cacheprovider -n "$workers" \
    --durations=15 --durations-min=20 "$@" \
    || status=$?
done
exit $status
