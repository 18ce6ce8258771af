# The A/B of this folder, one device call (about 250 s): as ../argreduce-tilecol-inflight/run.sh.
source .scratch/pre.sh > /tmp/pre.log 2>&1
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o "H[0-9]*" | head -1 | tr A-Z a-z)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=bench/results/argreduce-stage-wg-h200
for impl in wgpu dawn; do
  timeout 120 python3 -m bench.tuning_sweep $impl "$OUT/$G-$impl-wg.json" \
    "$(cat $R/configs.json)" "$(cat $R/spec.json)" > "$OUT/$G-$impl-wg.log" 2>&1
  echo "$impl rc $?"; python3 bench/results/argreduce-col-reps/tab.py "$OUT/$G-$impl-wg.json"
done
