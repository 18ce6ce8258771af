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
# pipelines (some 8,000 distinct shaders an implementation, TopK's of 20-47 KB of WGSL). Two
# settings of Mesa's JIT cut that; a GPU's driver ignores both. Without LLVM's optimization
# passes (GALLIVM_PERF=nopt) a compile-bound test took 221 s cold against 284 s
# (test_every_operator_under_default_limits, one process; warm 13.8 s against 13.5 s). With
# 128-bit vectors instead of 256 (LP_NATIVE_VECTOR_WIDTH=128: lavapipe's subgroups hold 4
# lanes, not 8) the same test took 112 s, and wgpu-native's whole suite in two workers 38.4
# min against 70.5 min. test_topk.py::test_eight_lane_subgroups runs the subgroup paths at
# 256 bits (8 lanes) too.
export GALLIVM_PERF=${GALLIVM_PERF-nopt}
export LP_NATIVE_VECTOR_WIDTH=${LP_NATIVE_VECTOR_WIDTH-128}
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
