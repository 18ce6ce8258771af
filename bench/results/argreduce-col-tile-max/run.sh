# The A/B for COL_TILE_MAX / COL_TILE_RUNS, one device call (about 450 s): run from the
# repository root as the device tool's command, `bash bench/results/argreduce-col-tile-max/run.sh`,
# after ../shared/device/prepare.sh's environment line (saved as .scratch/pre.sh; carry it,
# .gl and .whl). Tables: python3 bench/results/argreduce-col-reps/tab.py FILE (GPU us).
source .scratch/pre.sh > /tmp/pre.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=bench/results/argreduce-col-tile-max
sweep() {  # IMPL NAME CONFIGS SPEC SECONDS
  timeout "$5" python3 -m bench.tuning_sweep "$1" "$OUT/$1-$2.json" "$(cat "$3")" "$(cat "$4")" \
    > "$OUT/$1-$2.log" 2>&1
  echo "$1 $2 rc $?"; python3 bench/results/argreduce-col-reps/tab.py "$OUT/$1-$2.json"
}
for impl in wgpu dawn; do sweep $impl f32 $R/configs.json $R/spec-f32.json 180; done
sweep wgpu i64 $R/configs-short.json $R/spec-i64.json 60
sweep wgpu hardmax $R/configs-short.json $R/spec-hardmax.json 50
# (ARG_STAGE_VEC's unmeasured dtypes, from the eleventh session)
V=bench/results/argreduce-stage-vec
sweep wgpu vec-u8i64 $V/configs.json $V/spec-u8i64.json 50
