# The A/B of this folder on an H200, one device call (about 450 s): run from the repository
# root as the device tool's command, `bash bench/results/argreduce-tilecol-inflight/run.sh`,
# after ../shared/device/prepare.sh's environment line (saved as .scratch/pre.sh; carry it,
# .gl and .whl). Tables: python3 bench/results/argreduce-col-reps/tab.py FILE (GPU us).
source .scratch/pre.sh > /tmp/pre.log 2>&1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o "H[0-9]*" | head -1 | tr A-Z a-z)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=bench/results/argreduce-tilecol-inflight
for impl in wgpu dawn; do
  timeout 220 python3 -m bench.tuning_sweep $impl "$OUT/$G-$impl-inflight.json" \
    "$(cat $R/configs.json)" "$(cat $R/spec.json)" > "$OUT/$G-$impl-inflight.log" 2>&1
  echo "$impl rc $?"; python3 bench/results/argreduce-col-reps/tab.py "$OUT/$G-$impl-inflight.json"
done
