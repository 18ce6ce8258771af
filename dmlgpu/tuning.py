"""Tuning numbers, as data. Each says which measurement it rests on.

Until the first GPU runs (bench/results/), values are the conventional starting points of
reduction kernels (CUB's and CuPy's defaults); the comment says so where that is the case.
"""

import os

# Batching of eager calls (runtime/dispatch.py). Measured on an H100 (2026-11-23, host time
# per call, wgpu-native / Dawn): a bare one-dispatch submission 45-65 / 28-45 us, of which
# the encoder, the pass, finish and submit are all but 5-10 us; one more dispatch in an open
# pass (set_pipeline, set_bind_group, dispatch) 5-11 us. So small calls share one compute
# pass, submitted once it holds BATCH_DISPATCHES dispatches or at the next flush point.
BATCH_DISPATCHES = 64
# A call whose tensors move at least this many bytes is "large": at the H100's
# ~3 TB/s this much takes ~5 us of GPU time, comparable to what its own submission costs,
# and starting it early keeps the GPU busy while the host goes on.
BATCH_LARGE_BYTES = 16 << 20
# Only the first large call after a wait is submitted alone; the following ones (the GPU is
# busy with it) share submissions, this many to one, until the next flush point. A
# submission's host CPU grows when the GPU is busy, and does not grow with the dispatches in
# it (bench/busyhost.py, H100, 2026-11-24, wgpu-native / Dawn, CPU per command buffer: a
# bare dispatch with the GPU idle 72 / 39 us, the same dispatch while the GPU runs a 1 GiB
# copy 90 / 127 us of encoder, pass, finish and submit; a 1 GiB copy a submission each
# 132 / 200 us; four of them in one command buffer 114 / 64 us). Sweep of this number
# (bench/results/batchk/, H100, no CUDA context, issuing wall time per call, wgpu-native /
# Dawn, at 1 / 4 / 8): 1 GiB Hardmax 87 / 44 / 29 and 199 / 47 / 41 us, argmax 2^28 f32
# 193 / 105 / 73 and 327 / 207 / 145, argmin 16384^2 rows 165 / 71 / 43 and 257 / 114 /
# 74, TopK K=1024 142 / 248 / 91 and 185 / 79 / 53; loop time per call no higher (a
# GPU-bound loop keeps the GPU on the previous batch while the next one fills).
# Then 8 -> 16 -> 32, alternating in one process (`python -m bench.batch_ab`, bench/results/batchk/
# h100-{dawn,wgpu}-batch-ab.json, H100, 2026-11-25, 1 GiB float32 / 512 MiB float16 inputs,
# issuing us per call, least of 3 repeats / the repeats): Dawn argmin rows 29 / 14 / 16
# (reps 29-33 / 14-25 / 16-22), argmax f16 27 / 15 / 18, topk K=1 24 / 29 / 17 (24-35 /
# 29-34 / 17-37), hardmax f16 26 / 15 / 14; wgpu-native 26 / 26 / 20, 26 / 18 / 23, 29 / 30
# / 23, 26 / 19 / 16; loop time per call the same at all three (GPU-bound: 0.19-0.38 ms).
BATCH_LARGE_CALLS = 32

# Hardmax's zero fill of a contiguous output: words stored per invocation, each store of a
# workgroup over consecutive words. At one element per invocation (16-bit: atomic stores)
# the fill took 0.202 ms for 256 MiB of float32 and 0.149 ms for 128 MiB of float16 (H100,
# 2026-11-24, bench/steps.py, Hardmax over (512, 256, 512)): half a copy's write rate,
# most of Hardmax's time over non-trailing axes. At 4 words: 0.127 ms and 0.050-0.082 ms.
# Again on the H200 (2026-11-26, same run, Hardmax's fill-and-split grid points, GPU time
# over a copy's, bench/results/hardmax-stream/h200-{wgpu,dawn}-fw.json): 2 / 4 / 8 / 16
# words float16 1.38-1.46 / 1.23-1.29 / 1.24-1.30 / 1.25-1.29x (wgpu-native; Dawn alike).
FILL_WORDS = 4

# Threads per workgroup of the reduction kernels. 256 is CUB's default for block
# reductions and fits every WebGPU adapter (the core limit is 256 invocations).
REDUCE_WG = 256

# Independent loads each thread issues before comparing (memory-level parallelism: one
# load per thread in flight cannot cover HBM latency at 3+ TB/s). Measured on an H200 via
# wgpu-native (2026-11-22, argmax as a fraction of the copy kernel's 3.97 TB/s):
#   unroll 2: rows f32 77%, cols f32 71%, flat f16 39%;  unroll 4: 91%, 78%, 44%;
#   unroll 8: 96%, 91%, 47% (flat int64: 102-104% at every setting).
# After the word-at-once 16-bit keys and TARGET_THREADS 2^20 (H200, wgpu-native, same run,
# unroll 8 -> 16, % of copy): flat f32 95 -> 97%, flat f16 87 -> 89%, rows f32 97 -> 98%,
# cols f32 91 -> 92%, argmin flat f32 90 -> 91% (torch: flat f16 1.70x -> 1.78x).
# A further sweep (H200, same conditions, flat f32 / flat f16 % of copy): unroll 16 97/89%,
# unroll 32 98/90%, REDUCE_WG 512 98/91%, TARGET_THREADS 2^19 95/90%, 2^21 with MAX_SPLIT
# 8192 95/84%: within the run-to-run spread (+-1%) but for the last, so left as they are.
# Then the packed 8/16-bit row loop took a tile's best with constant codes (H200,
# wgpu-native, same conditions): flat f16 89% -> 95-96% of copy (torch 1.78x -> 1.83-1.94x
# over three runs); flat f32 unchanged at 96-97%.
REDUCE_UNROLL = 16

# A reduction whose innermost reduced dim is contiguous gets one workgroup per output when
# the reduction has at least this many elements; below it a thread per output wastes less.
# H200, wgpu-native, 2^27 elements, ArgMax over the last axis, 64 -> 1024 (same run):
# rows of 64 3.79 -> 0.53 ms (float16 4.26 -> 0.53), rows of 128 1.98 -> 0.54 ms, rows of 512
# 0.665 -> 0.549 ms; rows of 1024 0.466 ms either way (a thread per output: 0.553 ms, hence
# not higher); other layouts unchanged. (The H100 surface's worst ArgMax point, rows of 64.)
ROW_MIN_RED = 1024
# Contiguous rows of 2 to REDUCE_WG elements per thread take TPR threads each, n / TPR
# elements of ROWS_BYTES bytes per thread, several rows per workgroup (Hardmax: fused, one
# dispatch). H100, wgpu-native, same runs, ArgMax over 2^27 elements in rows of 64 / 128 /
# 256 / 512, % of the copy kernel's read bandwidth: a thread per row or a workgroup per row
# (before) f32 35 / 67 / 64 / 63%, f16 18 / 20 / 20 / 20%, int64 39 / 76 / 75 / 72%, uint8
# 21 / 11 / 11 / 11% (rows of 1024 / 2048 with a workgroup each: f32 39 / 49%); then by
# elements per thread 16 / 32 / 64: f32 95-100 / 66-95 / 35-91%, f16 41-47 / 63-84 /
# 18-89%, int64 85-103 / 67-102%, uint8 31-38 / 44-49 / 19-87% - 64 bytes a thread (at
# least REDUCE_UNROLL elements: int64 at 8 a thread 75-81%, at 16 85-103%). Then (same GPU,
# surface run of bench/results/surface/h100-wgpu-argreduce-hardmax.json): f32 rows of 64 /
# 512 / 2048 / 8192 88 / 91 / 94 / 99%, f16 63 / 83 / 85 / 86%, uint8 rows of 128 / 512 /
# 2048 65 / 88 / 95%; Hardmax (read n + write n) f32 88-95%, f16 73-74%. (0: off.)
ROWS_BYTES = 64
# ... except ArgMax/ArgMin, by element bits (8/16-bit rows read as words), and row plans
# raise threads per row only until ROWS_TARGET_THREADS run. H100, wgpu-native, 2026-11-25
# (bench/results/argreduce-tilecol/h100-wgpu-rows-sweep3.json, the surface's ten one-pass
# row points, % of copy, bytes 64 and 2^20 threads -> 256 / 2^19 (float16), 128 / 2^19
# (uint8)): float16 rows of 8192 77 -> 83%, (128, 128, 128, 64) over (0, 3) 79 -> 96%,
# (2, 256, 256, 1024) over (0, 3) 82 -> 103%; uint8 rows of 8192 73 -> 77%, (2, 4096,
# 8192) over (0, 2) 65 -> 72%, rows of 512 80 -> 78%. Hardmax keeps 64 bytes (float16
# rows of 512, fused, at 256 bytes: 1.52 -> 1.68x a copy's time, bench/results/surface/
# h100-wgpu-argreduce-hardmax-20261125b.json). float32 256 bytes with ROWS_MIN_TPR (H200,
# wgpu-native, 2026-11-25, bench/results/argreduce-rows-bytes/h200-wgpu-rb.json, 64 ->
# 256 bytes): rows of 128 / 256 / 512 / 1024 81 / 79 / 75 / 80 -> 89 / 90 / 95 / 98%,
# (2, 256, 256, 1024) over (0, 3) 67 -> 80%, (128, 128, 128, 64) over (1, 3) 72 -> 80%
# (alone, rows of 64 at 256 bytes fell 82 -> 53%: two threads a row); int64 128 bytes
# (at 256 rows of 128 fell 108 -> 84%; 64 and 128 within 1 point elsewhere). 8/16-bit
# kept again (h200-wgpu-pk.json, ten row points, with ROWS_MIN_TPR): half the bytes lost up
# to 8 points (float16 rows of 1024 102 -> 94%, uint8 (2, 4096, 8192) over (0, 2) 70 ->
# 62%), 256 bytes for uint8 gained at rows of 8192 (80 -> 85%) and lost at rows of 1024
# (75 -> 68%). Again with the tile's max and float16's NaN by the tile (H200, wgpu-native,
# 2026-11-25, bench/results/argreduce-rows-bytes/h200-wgpu-rowsbytes.json, 8 row points x
# float32 / float16 / uint8, GPU time): 512 bytes for 16/32-bit rows up to 17% slower
# (float32 rows of 512 135 -> 158 us), 128 bytes up to 13% slower; REDUCE_UNROLL 32 slower
# nearly everywhere, 8 faster at 4 points (float32 rows of 64 176 -> 166 us, rows of 8192
# 74 -> 72) and slower at 11 (rows of 512 135 -> 149): these numbers stay. With vector
# loads (H100, wgpu-native, 2026-11-27, bench/results/argreduce-knobs-20261127/
# h100-wgpu-rb.json, GPU us, uint8 128 -> 256 / 512 bytes): rows of 64 over two reduced
# dims, (128, 128, 128, 64) over (0, 3) 58.8 -> 58.1 / 58.4 (its repeat at 128: 58.0), over
# (1, 3) 57.7 -> 57.7 / 57.7, rows of 1024 55.5 -> 56.5 / 56.9 (repeat 54.9): 128 stays.
ARG_ROWS_BYTES = {8: 128, 16: 256, 32: 256, 64: 128}
# ArgMax/ArgMin rows take at least this many threads each while every thread keeps
# ROWS_MIN_WORDS words (and REDUCE_UNROLL elements): two threads a row read 8 (32-bit) to
# 16 (8-bit) bytes of a row per load, a sector's fraction (same run, 2 -> 4 threads a row):
# float16 rows of 64 / 128 / 256 59 / 59 / 59 -> 66 / 81 / 90%, uint8 rows of 128 / 256
# 45 / 45 -> 58 / 63%; at 4 words a thread uint8 rows of 64 fell 63 -> 40% (hence
# ROWS_MIN_WORDS), at 8 threads a row float16 rows of 128 reached 62% only.
ROWS_MIN_TPR = 4
ROWS_MIN_WORDS = 8
# Row plans over several reduced dims walk them without per-thread carries (plan._walk)
# where the inner run is a multiple of TPR items or (two dims) TPR a multiple of the run.
# H200, wgpu-native, 2026-11-25, % of copy, carries -> walk (bench/results/argreduce-walk/
# h200-wgpu-walk.json): TPR a multiple of the run ((128, 128, 128, 64) over (0, 3), (1, 3),
# (0, 1, 3)) float32 81 -> 97-98%, float16 78-80 -> 92-96%, uint8 61-67 -> 66-74%; runs a
# multiple of TPR, the carries made uniform only ("tile") float32 81 -> 84%, float16 80 ->
# 78%. Hence "steps", where a run takes a constant number of a tile's steps (h200-wgpu-walk-
# final.json, with ARG_ROWS_BYTES; (2, 256, 256, 1024) over (1, 3), (0, 1, 3), (0, 2, 3),
# (512, 512, 512) over (0, 2)): float32 80-81 -> 96-97%, float16 78-79 -> 92-94%, uint8
# 63-65 -> 73-75%.
ROW_WALK = True
# Row plans of element loads (32/64-bit rows; 8/16-bit ones starting mid-word) take a
# tile's best key with one max an element and search the tile for its place only when it
# beats the running best, instead of a (key, index) comparison an element. H200,
# wgpu-native, 2026-11-25, same run, GPU time pairs -> tile max (bench/results/
# argreduce-tile-max/h200-wgpu-tm.json): float32 rows of 1024 to 2^26 and reductions over
# two or three dims 4-14% faster at 12 of 14 points ((512, 512, 512) over (1, 2) 146 ->
# 138 us, (2, 256, 256, 1024) over (3,) 147 -> 137 us), rows of 64 even; one point lost:
# (512, 512, 512) over (0, 2) 144 -> 155 us (a "steps" walk of two steps a run); int64
# within 1% but rows of 64 (316 -> 304 us). (A stand-alone kernel of the same loads,
# bench/results/grid-balance/alu-wgpu.json, read 1 GiB of float32 at 3.88 TB/s with a
# comparison an element and at 4.49 with the tile's max; a bare max of the words: 4.55.)
# The packed 8/16-bit rows keep their key|code max: a tile max of the lanes and a search
# of the tile's lanes lost there (h200-wgpu-tm-packed.json: uint8 9-20% slower, float16
# up to 14%, int16 even; the patch beside it).
ROW_TILE_MAX = True
# Columns a thread an output ("col", one output a thread) take a tile's best key the same way
# (COL_TILE_MAX, by implementation, then element bits; a plain value: everywhere): True, the
# tile searched for its place behind a branch where it wins; "select", its place by a
# compare and a select an element and tile and place taken by selects, no branch. They reach
# 19 of each 32/64-bit dtype's 102 ArgMax/ArgMin grid points, among them 9 of float32's 11
# misses on the H200 through wgpu-native and 11 of 14 through Dawn (the worst, (128, 128,
# 128, 64) over (0, 2): ArgMin 77.9% / 70.3% of a copy, 6% / 4% behind ArgMax, the mark of
# per-element work). H100, 2026-12-07 (bench/results/argreduce-col-tile-max/: configurations
# in turns twice, both ops, GPU us):
# - "select" on wgpu-native, all 19 float32 points it reaches: 2.5-3.3% faster at (128, 128,
#   128, 64) over (0, 2), (1, 2) and (0, 1, 2) (194.1 -> 188.1 us; ArgMin 195 -> 190), at
#   the other 16 within 1% either way (the most, +1.0% at (128, 128, 128, 64) over axis 0;
#   the base's own two runs differ by as much). Hardmax float32 even or faster (planned
#   without the implementation: not taken). int64 (64-bit keys): 2.5-3% slower over (0, 1,
#   2) and at (2, 4096, 8192) over (0, 1): not taken; int32/uint32 share float32's keys.
# - "select" on Dawn: 3% slower at (2, 256, 256, 1024) over (0, 2) (182.5 -> 187.7), ArgMin
#   over (0, 1, 2) 1 us slower: not taken.
# - True (the branch): wgpu-native 5% slower over (0, 1, 2) (a thread's 64 tiles).
# COL_TILE_RUNS (over two reduced dims whose inner run is whole tiles, the run's place moved
# once a tile, a split's range rounded up to whole tiles): off; with the branch it cost
# Dawn's ArgMax 8-10% at both its points ((128, 128, 128, 64) over (0, 2) 187 -> 204 us).
# The H200 is not measured.
COL_TILE_MAX = {"wgpu": {32: "select"}}
COL_TILE_RUNS = False
# Row plans of element loads over one reduced dim take the last, partial tile as a whole
# one where it holds at least 1/ROW_MASKED_TAIL of a tile, its indices past the end clamped
# to the last element (a duplicate changes no result), instead of an element at a time
# (0: always the loop). H100, 2026-11-26, ArgMax GPU us, loop -> whole tile, wgpu-native /
# Dawn, same runs (bench/results/argreduce-row-tails/): int64 rows of 1000 over 2^27
# elements 474 -> 353 / 474 -> 355 (75 -> 101% of a copy), float32 214 -> 204; over 2^25
# float32 rows of 100 / 1000 / 5000 75 -> 60 / 69 -> 60 / 70 -> 62 (Dawn 80 -> 64 / 73 ->
# 63 / 71 -> 59), rows of 50 (a tail of 18 / 32 of a tile) 68 -> 62; but where the tail is
# 1 / 32 or 1 / 64 of a tile, slower: rows of 33 59 -> 70, of 257 61 -> 63 (those take the
# loop at 4: even with the loop, h100-wgpu-mt2.json; tails between 1/32 and 9/16 of a
# tile not measured).
ROW_MASKED_TAIL = 4
# ... and packed 8/16-bit rows alike (their words past the end clamped to the last one, the
# index rebuilt from a tile's best clamped alike). H100, 2026-11-27, ArgMax/ArgMin GPU us,
# loop -> whole tail, the better of two runs, wgpu-native / Dawn, same runs
# (bench/results/argreduce-odd-tails/h100-{wgpu,dawn}-tailp.json): uint8 rows of 1000 over
# 2^25 elements 24.1 -> 15.1 / 27.3 -> 19.0 (59 -> 95% / 58 -> 83% of a copy), of 1500 22.0
# -> 17.7 / 25.6 -> 22.0, over 2^27 73.2 -> 66.9 / 77.1 -> 70.2; float16 rows of 1000 44.9
# -> 36.4 / 48.4 -> 40.4, of 1500 49.2 -> 36.8 / 53.1 -> 40.2, of 5000 41.8 -> 38.8, over
# 2^27 126.2 -> 116.2 / 130.4 -> 120.7; uint8 rows of 5000 even (19.4 -> 19.8 / 22.9 ->
# 22.7); 15 / 14 of 32 points faster by more than 2%, one slower (that uint8 point on
# wgpu-native, 2.4%), the column points unchanged (their plans do not take it).
ROW_MASKED_TAIL_PACKED = True
# ArgMax/ArgMin's contiguous 8/16-bit rows (one reduced dim) whose rows are whole vectors
# of four words, each starting on one: a thread loads a vector of four neighbouring words
# at once, the threads of a row side by side (by element bits; else a word a load, the
# row's TPR threads reading TPR neighbouring words, a sector's part per row and load).
# H100, 2026-11-27, ArgMax/ArgMin GPU us, word -> vector loads, wgpu-native / Dawn, same runs
# (bench/results/argreduce-vload/h100-{wgpu,dawn}-vl.json; `python ../argreduce-col-vstore/
# table.py FILE off,vl,vl_rb,off2`): uint8 rows of 512 (TPR 4) 60.6 -> 57.3 / 64.3 -> 59.5
# (78 -> 83% / 77 -> 83% of a copy), of 256 61.0 -> 56.4 / 64.9 -> 59.9, of 1024 58.0 ->
# 55.8 / 61.9 -> 57.6; float16 rows of 512 105.7 -> 100.7 / 110.0 -> 104.5, of 256 104.9 ->
# 100.5 / 110.1 -> 104.2, of 2048 100.7 -> 98.4; rows of 2^18 and 2^27 elements (a
# workgroup a row, split) 1-3% faster; (2, 4096, 8192) over axis 2 and (1, 2) within a
# point either way. With twice ARG_ROWS_BYTES ("vl_rb") uint8 rows of 2048 gained (55.1 ->
# 53.2) but rows of 1024 lost (55.8 -> 57.0): ARG_ROWS_BYTES stays. 32-bit elements
# (float32, int32, uint32 rows read as vectors of four elements; same GPU, a later run,
# h100-{wgpu,dawn}-v32.json there, float32 ArgMax GPU us): rows of 1000 (TPR 8) 60.9 ->
# 56.2 / 64.7 -> 58.8 (78 -> 84% / 75 -> 83% of a copy), of 5000 62.3 -> 55.3 / 59.2 ->
# 59.1, (524288, 256) 206.4 -> 192.8 / 209.0 -> 194.5 (87 -> 93%), (512, 512, 512) over
# axis 2 189.7 -> 184.1, rows of 8192 1-2% faster; rows of 1500 57.2 -> 59.8 / 61.3 -> 60.6
# (the configuration run again: 58.5 / 61.9).
ROW_VLOAD = {8: True, 16: True, 32: True}
# (The tree over a row's threads stays in workgroup memory. By subgroup reductions, two
# barriers instead of one a halving, rows of a workgroup each: H200, wgpu-native,
# 2026-11-25, 32 row points of float32 / float16 / uint8 / int64 within -2.3% to +4.0%,
# median +0.5% (bench/results/argreduce-subgroup-tree/h200-wgpu-sgt.json; the patch
# beside it); not worth the subgroup feature's checks and fallback.)
# Packed float16 rows key a word's halves without the NaN fix-up and OR a NaN test over
# the tile, keying the tile again where a half is NaN (dtypes: lanes_finite, lanes_nan;
# 11 operations a word instead of 15). H200, wgpu-native, 2026-11-25, same run, GPU time
# per-word -> per-tile NaN (bench/results/argreduce-nan-tile/, 14 row points x ArgMax and
# ArgMin): ArgMax 2-8% faster ((2, 256, 256, 1024) over axis 3 84.6 -> 78.1 us, (512, 512,
# 512) over every axis 83.6 -> 80.2 us), ArgMin 0-5% (one point 2.5% slower: rows of 64).
ROW_NAN_BY_TILE = True
# ... and key a tile's halves by rough keys first, -0.0 one under +0.0 (dtypes.lanes_rough:
# two operations a word fewer; NaN's bits from the keys' `w | 0x80008000`), the tile keyed
# again where its best is +-0.0 as where it holds a NaN (data whose extreme is an exact zero
# in most tiles pays that). H100, wgpu-native, 2026-11-27 (late), ArgMax / ArgMin GPU us,
# off / on twice in one process (bench/results/argreduce-knobs-20261127/h100-wgpu-rk.json,
# the 14 float16 row-loop points of the grid): faster at 56 of 56 pairs, rows of 8192
# (2, 4096, 8192) over axis 2 56.7 / 56.6 -> 55.5 / 55.6 (83 -> 85% of a copy), over (0, 2)
# 59.2 -> 56.8 (ArgMin), (8192, 4096, 2) over (1, 2) 57.2 -> 55.5, staged rows of 64
# (128, 128, 128, 64) over axis 3 117.8 -> 113.5 and 120.2 -> 115.1, the rest 0.2-2 us.
ROW_ROUGH_KEYS = True
# ... and, by WebGPU implementation, ArgMax/ArgMin's loops of these strategies (float16 word
# lanes, "lanes", split at most ARG_ROUGH_LANES_MAX_SPLIT ways; tile columns, "tilecol"), the
# outputs' codes of a tile keyed again exactly where it holds a NaN or any of its bests is a
# zero. H100, 2026-11-27, GPU us, off / on / off / on in one process
# (bench/results/argreduce-knobs-20261127/h100-{wgpu,dawn}-rl.json), the grid's eight
# float16 lanes and tile-column points nearest 85%:
# - lanes of one workgroup a block ((8192, 4096, 2) over axis 1) faster at 4 / 4 pairs on
#   each implementation: ArgMax 58.5 / 58.0 -> 56.6 / 57.3 (Dawn 62.3 / 62.3 -> 61.5 /
#   60.9), ArgMin 57.8 / 58.0 -> 57.4 / 57.8 (62.1 / 62.7 -> 61.3 / 61.0); in the four-run
#   grids (bench/results/surface/h100-{wgpu,dawn}-argreduce-hardmax-20261127u4.json against
#   -20261127s4 and ...-argreduce-f16-20261127v4.json, both off) 54.2-54.6 -> 52.5 / 52.9
#   us, 84.7-85.2 -> 87.7 / 87.0% of a copy (Dawn 55.4-55.8 -> 53.8 / 54.0, 83.2-83.9 ->
#   86.4 / 86.0%). Split lanes (over (0, 1): 1024 ways) slower: 56.4 / 56.6 -> 58.3 / 58.9
#   (Dawn 60.6 / 60.0 -> 64.3 / 63.9; the grids 0.2-1.7 us).
# - Dawn's tile columns faster at 22 / 24 pairs ((2, 256, 256, 1024) over (1, 2) 109.1 /
#   108.2 -> 103.2 / 103.3, 85 -> 90%; (128, 128, 128, 64) over (0, 1, 2) 111.4 -> 108.8;
#   (8192, 4096, 2) over axis 0 59.0 / 59.6 -> 57.9 / 57.5; the other two ArgMin's short
#   runs, +0.1 / +0.2 us); wgpu-native's at 13 / 24, slower at 2^26 elements ((2, 4096,
#   8192) over axis 1 56.0 / 57.1 -> 59.8 / 58.7) though faster at 2^27 (-0.7 to -2.8 us)
#   and short runs.
# - wgpu-native's tile columns on an H200 (2026-11-28, fourth session; the grid's 20 float16
#   tile-column points x ArgMax / ArgMin, off / on twice in one process, GPU us,
#   bench/results/argreduce-h200-f16/h200-wgpu-rk-float16.json): faster at 80 / 80 pairs,
#   by 4-15 us: (2, 4096, 8192) over axis 1 47.6 / 47.6 -> 42.5 / 42.0, (8192, 4096, 2) over
#   (0, 2) 45.9 / 45.7 -> 37.7 / 37.7, (2, 256, 256, 1024) over (0, 2) 85.2 / 85.3 -> 71.0 /
#   70.8. There, without them, wgpu-native's float16 tile columns ran 12-16% behind Dawn's
#   (same grid run, h200-{wgpu,dawn}-argreduce-hardmax-20261128g.json): on for both.
ARG_ROUGH_KEYS: dict[str, tuple[str, ...]] = {"wgpu": ("lanes", "tilecol"),
                                              "dawn": ("lanes", "tilecol")}
ARG_ROUGH_LANES_MAX_SPLIT = 1
# Hardmax keeps one workgroup per subset from this size: its fused one-dispatch path needs
# the row strategy (a thread per output means a zero fill first); not yet re-measured.
HARDMAX_ROW_MIN_RED = 64
# Hardmax's fused row plans store a subset's zeros as they read it ("loop": where TPR
# threads' word stores fill a 32-byte sector, at least HARDMAX_STREAM_MIN_TPR of them), or
# a workgroup's block of subsets before its reads ("block"), instead of writing the subsets
# after their tree. H200, 2026-11-26, GPU time over a copy's, rows over the last axis, 2^26
# elements, writes after the tree -> loop (bench/results/hardmax-stream/h200-{wgpu,dawn}-
# hm2.json, config "on" against "off"): rows of 128 (float32) to 8192 float32 1.22-1.37x ->
# 1.08-1.15x, float16 (rows of 256 on) 1.35-1.74x -> 1.12-1.17x; the grid's last axis
# (512) float32 1.36 -> 1.09x (Dawn 1.36 -> 1.13x), float16 1.72 -> 1.16x (1.70 -> 1.15x).
# At TPR 2-4 a warp's stores hit a sector per row (h200-wgpu-hm.json, loop everywhere):
# float32 rows of 64 1.34 -> 1.78x, float16 rows of 64 1.71 -> 4.09x; there "block" (rows
# of 32 to 128 at TPR 2-4): float16 1.70-1.82x -> 1.44-1.57x (Dawn 1.32-1.41x), float32
# rows of 64 1.34 -> 1.28x (Dawn 1.33 -> 1.14x), rows of 32 1.37 -> 1.35x. Block for every
# row plan (config "block") lost to loop from TPR 16 (rows of 512 float16 1.16 -> 1.37x);
# 128 bytes a thread (on128) lost at rows of 64 to 256 (float16 rows of 256 1.16 -> 1.35x).
HARDMAX_STREAM = True
HARDMAX_STREAM_MIN_TPR = 8
# Hardmax's contiguous rows take HARDMAX_STREAM_MIN_TPR threads each (their zeros stored as
# read) where each keeps this many words, by element bits (else as before). H200, 2026-11-26,
# same run, GPU time over a copy's (bench/results/hardmax-stream/h200-{wgpu,dawn}-hs.json,
# rows of 32 to 8192 at 2^26 elements, none -> 2 -> 4 words): float16 rows of 128 (8 words
# a thread) 1.48 -> 1.28x (Dawn 1.33 -> 1.29x); fewer words a thread lost (float16 rows of
# 32 1.57 -> 2.86 / 1.98x, of 64 1.52 -> 1.76x), float32 rows of 64 at 8 words too (Dawn
# 1.14 -> 1.30x), rows of 256 on unchanged.
HARDMAX_STREAM_MIN_WORDS = {16: 8}

# The row plans' tree over a row's threads (workgroup memory, a barrier a level) takes the
# best of this many entries a level (2: a binary tree, log2(TPR) levels). Fewer barriers
# did not pay: over 10 row-plan points x float32/float16/uint8/int64 (H200, wgpu-native,
# 2026-11-25, bench/results/argreduce-radix/h200-wgpu-radix.json) radix 4 and 8 were equal
# or worse (float32 rows of 512: 75% of copy at 2, 73% at 4, 68% at 8, 58% at 16) and no
# point gained more than 2 points of copy; the reads a level cost more than the barriers.
REDUCE_TREE_RADIX = 2
# ... where the keys are 8/16-bit and an output's best index fits in the word beside its key
# (or the plan packs its tally), the tree of these strategies is instead one workgroup
# atomicMax an output of (key << (32 - bits)) | the index's code, one barrier (wg_pack in
# kernels/argreduce.wgsl.j2). The tree's share, measured by taking it out (H100, wgpu-
# native, 2026-11-27, bench/results/argreduce-wg-pack/h100-wgpu-pieces.json, uint8 ArgMax,
# GPU us): word lanes (8192, 4096, 2) over axis 1 29.6 -> 27.8, a row of 2^26 30.9 -> 29.9,
# tile columns 0.8 us. On (the same runs as TALLY_PACK_FIRST, its "packed first" against
# "with ARG_WG_PACK", the float16 run once: its second pass cut by the call's limit):
# uint8 faster at 26 / 27 points in both pairs on wgpu-native (up to -2.5 us: (2, 256, 256,
# 1024) over (0, 3) 52.1 -> 49.8, word lanes (8192, 4096, 2) over axis 1 29.6 -> 28.0), 25
# and 27 / 27 on Dawn (29.9 -> 28.2); float16 18 / 20 on wgpu-native and 19 / 20 on Dawn
# (up to -2.2: word lanes 52.4 -> 50.3, Dawn 53.5 -> 51.2); the slower ones up to 1.4 us
# where rows split 2 ways (uint8 (2, 256, 256, 1024) over (0, 2, 3)), else within 0.6 us.
# Tile columns everywhere (their tree is 3-4 levels over row groups) gained 0.3-0.6 us at
# uint8's 64 MiB points and lost elsewhere: (128, 128, 128, 64) over (0, 1, 2) 55.4 -> 58.0
# (wgpu-native; its partials packed), over (0, 2) 55.9 -> 72.8 (Dawn), float16 (512, 512,
# 512) over (0, 1) 100.3 -> 102.8 (packed too) (h100-{wgpu,dawn}-tcwp-{uint8,float16}.json
# there): they take it by ARG_WG_PACK_TILECOL below.
ARG_WG_PACK = ("row", "lanes")
# ... and tile columns' tree over their row groups, by implementation and dtype, where
# their split's partials are not packed and the lanes fold by max (not ArgMin's min fold,
# but for short runs: ARG_MIN_FOLD_WG_PACK_RUNS).
# H100, 2026-11-27 (later), the 15 uint8 tile-column grid points x ArgMax / ArgMin, two pairs
# in one process (bench/results/argreduce-wg-pack-tilecol/h100-{wgpu,dawn}-tcw-uint8.json,
# GPU us, pairs base -> tree by atomicMax): wgpu-native ArgMax faster at 11 and 12 / 15, none
# more than 0.4 us slower ((128, 128, 128, 64) over (0, 2) 54.8 / 54.6 -> 52.8 / 52.8,
# 84 -> 88% of a copy; over (1, 2) 53.8 / 53.5 -> 51.5 / 52.1; the 64 MiB points 30.9 ->
# 30.4); its ArgMin (the min fold) 9-10 us slower at four ((2, 4096, 8192) over axis 1 31.3
# -> 40.3); Dawn 17-18 us slower at two ((128, 128, 128, 64) over (0, 2) ArgMax 55.6 -> 73.3,
# (2, 256, 256, 1024) over (0, 2) ArgMin 54.3 -> 72.5), up to 2 us elsewhere. Not where rows
# are joined at their own shift (row_join), which none of those points is: the rows grid's
# odd-width uint8 columns lost on wgpu-native (same GPU, bench/results/surface/h100-wgpu-rows-
# u8f16-20261127tr.json against -20261127wp: (5000, 6710) over axis 0 29.2 -> 43.0 us, (1500,
# 22369) 31.7 -> 37.4); excluded after that run, they render their earlier WGSL again.
# Dawn takes it too since its tile-run walk (TILECOL_TILE_RUNS): H100, 2026-11-28, the 15
# uint8 tile-column grid points and the word lanes of (8192, 4096, 2) over (0, 1) x ArgMax /
# ArgMin, base / Dawn's tree by atomicMax twice in one
# process (bench/results/argreduce-tilecol-wg/h100-dawn-wg-uint8.json, GPU us; it changes the
# plans of 9 grid points, all ArgMax): faster or even at all 9 in both pairs, the 64 MiB
# points 30.7-30.9 -> 30.3-30.5, (128, 128, 128, 64) over (0, 2) 54.2 / 53.6 -> 53.0 / 52.2,
# over (1, 2) 53.7 / 54.2 -> 52.9 / 52.8; the rest within 0.4 us (the unchanged plans there
# moved up to 1.4 us: the runs' noise at 2^27 elements).
ARG_WG_PACK_TILECOL: dict[str, tuple[str, ...]] = {"wgpu": ("uint8",), "dawn": ("uint8",)}
# ... and short runs as lanes of a word (TILECOL_RUNS) where their partials are packed too.
# H100, 2026-11-28, uint8 short runs of 2 and 4 over (0, 2), on / off twice in one process,
# GPU us (bench/results/argreduce-tilecol-wg/h100-{wgpu,dawn}-wr3-uint8.json; the grid's one
# point it moves is (8192, 4096, 2) over (0, 2)): ArgMax 0.1-0.6 us faster at 5 / 5 points
# (one of the 20 pairs even; (8192, 4096, 2) 30.1 / 30.1 -> 29.7 / 29.9 on wgpu-native, 29.2
# / 29.2 -> 28.8 / 28.8 on Dawn: 84 -> 85% of a copy); ArgMin, whose min fold keeps the
# workgroup-memory tree, unchanged.
# (All tile columns with packed partials, ARG_WG_PACK "tilecol" in argreduce-wg-pack/: up to
# 3 us slower where splits are many, (128, 128, 128, 64) over (0, 1, 2).)
ARG_WG_PACK_TILECOL_RUNS = True
# ... and, by implementation, every tile column whose partials are packed. H100, 2026-11-28,
# the 7 uint8 points of the grid and off it that it changes, off / on twice in one process,
# GPU us (bench/results/argreduce-tilecol-wg/h100-{wgpu,dawn}-pk-uint8.json): Dawn's ArgMax
# faster at 7 / 7 in both pairs, 0.1-2.6 us ((128, 128, 128, 64) over (0, 1, 2) 55.0 / 54.9
# -> 54.3 / 54.5, over (0, 1) 53.2 / 52.9 -> 52.4 / 52.3, (4194304, 32) over axis 0 54.7 /
# 54.5 -> 53.2 / 53.4; ArgMin, its plans unchanged, moved -1.9 to +0.4: the runs' noise);
# wgpu-native up to 11 us slower ((4194304, 32) 53.9 -> 65.1, (128, 128, 128, 64) over (0,
# 1, 2) 54.4 -> 62.7): Dawn only.
ARG_WG_PACK_TILECOL_PACKED: tuple[str, ...] = ("dawn",)

# Threads the GPU needs in flight to saturate memory: an H100/H200 holds 132 SMs x 2048
# threads. At 2^17 (half of that), argmax over a flat 2^28 float32 on an H200 reached 8% of
# the copy kernel's bandwidth (2026-11-22, with branchy keys); raised to a full GPU.
# Then (H200, wgpu-native, same-run ratios, flat 2^28 argmax f32 / argmin f32 / argmax f16
# as % of copy): 2^18 with MAX_SPLIT 1024: 89/85/85%; 2^19 with 2048: 93/88/88%; 2^20 with
# 4096: 95/90/87% (torch: 1.02x/0.98x/1.71x). Four times a full GPU: the split workgroups
# end unevenly, and more of them even out the tail.
TARGET_THREADS = 1 << 20
# ... but columns ("col") and short runs under a kept dim (rows of TPR = the run) split
# only until this many run: a thread walks a longer stretch of its column, fewer partials
# are written and merged. H100, wgpu-native, 2026-11-26, same runs, % of copy, 2^20 ->
# 2^17 (bench/results/argreduce-cols/h100-wgpu-coltarget2.json): float32 (2, 4096, 8192)
# over (0, 1) 72 -> 91%, (8192, 4096, 2) over (0, 2) 71 -> 89%, (128, 128, 128, 64) over
# (0, 2) 80 -> 90%, int64 84 -> 97%; off the grid (4096, 4096) float32 58 -> 64%, (65536,
# 512, 2) over (0, 2) 83 -> 89%. 2^16 lost float32 points again (over (0, 1) 85%), 2^15
# and 2^14 everywhere (66% / 38%); tile columns unchanged from 2^20 to 2^18
# (h100-wgpu-coltarget.json). Hardmax's column plans (a fill pass first) keep
# TARGET_THREADS: not measured in these runs, and its grid's one column point of that kind,
# float32 (512, 256, 512) over (0, 1), took 237 us at 2^17 against 212 at 2^20 (wgpu-native,
# bench/results/surface/h100-wgpu-argreduce-hardmax-20261126y.json against -20261126u).
COL_TARGET_THREADS = 1 << 17
# ... to the nearest whole number of splits, not up: a split that adds less than half again
# the threads costs its merge pass more than it gives. H100, 2026-11-27, same run, GPU us,
# up -> nearest (bench/results/argreduce-col-round/h100-{wgpu,dawn}-r.json), wgpu-native /
# Dawn: columns of 257 (130561 outputs, 0.4% short of 2^17: two splits and a merge pass ->
# one pass) float32 61.0 -> 54.4 / 62.7 -> 56.9, int64 107.0 -> 97.3 / 105.4 -> 97.3, uint8
# 34.0 -> 31.0 / 35.6 -> 31.8, float16 53.1 -> 52.0 / 55.8 -> 55.0. No other point of the
# grids changes plan.
COL_SPLIT_ROUND = True
# Row plans give rows more threads each (up to a workgroup) until this many run (see
# ARG_ROWS_BYTES).
ROWS_TARGET_THREADS = 1 << 19
# ... and ArgMax/ArgMin's 8/16-bit rows (contiguous rows, word lanes) up to this many where
# each thread's share of a row stays whole tiles (REDUCE_UNROLL words: no tail). H100,
# 2026-11-28, ROWS_TARGET_THREADS 2^19 / 2^20 / 2^21 for every row plan, twice in one
# process, GPU us (bench/results/argreduce-rows-whole/h100-{wgpu,dawn}-rt2.json, -rtr.json):
# where whole tiles stay, faster: uint8 (2, 4096, 8192) over (0, 2) 28.5 / 29.0 -> 27.6 /
# 27.9 (ArgMax / ArgMin; 84 -> 86-87% of a copy; Dawn 28.0 / 28.2 -> 27.7 / 27.8), (8192,
# 4096, 2) over axis 1 (word lanes) 28.2 / 28.6 -> 27.6 / 27.8, float16 (2, 4096, 8192) over
# axis 2 49.8 -> 48.3, over (0, 2) 50.6 -> 48.4, word lanes 50.5 -> 49.2 (Dawn 51.7 ->
# 50.7), Dawn's uint8 within 0.4 us either way; where a thread's share is part of a tile
# (2^21 for uint8 rows of 8192: 8 words a thread; the rows grid's rows of 257 to 5000 at
# 2^20), slower: (2, 4096, 8192) over axis 2 27.6 -> 34.7, (33554, 1000) over axis 1 11.6 ->
# 13.0, float16 (6710, 5000) 30.2 -> 34.7. So this many, whole tiles only; 2^21 lost at
# float16's word lanes on Dawn (ArgMin 51.9 -> 54.5). 32/64-bit rows not measured: not them.
ARG_ROWS_WHOLE_TARGET_THREADS = 1 << 20

# Least work for one workgroup/thread of a split reduction: below this the second pass and
# the partials cost more than the extra parallelism gives.
MIN_ROW_CHUNK = 8192  # elements per workgroup (32 per thread at 256 threads)
# Long 8/16-bit rows read as words: words per workgroup of a split at least (0: elements,
# MIN_ROW_CHUNK, as 32-bit rows). H100, wgpu-native, 2026-11-25, bench/results/
# argreduce-tilecol/ (% of copy, MIN_ROW_CHUNK elements -> 16K / 32K / 64K words): uint8
# 2^27 over every axis 62 -> 68 / 67 / 66%, (2, 256, 256, 1024) over (0, 1, 3) 73 -> 77 /
# 78 / 65%; float16 2^27 74 -> 77 / 80 / 79%, (512, 512, 512) over (0, 2) 90 -> 90 / 91 / 81%.
PACKED_ROW_CHUNK_WORDS = 32768
# ... and longer where that would take more than PACKED_ROW_GROUPS workgroups in all (0: no
# such cap): fewer, longer workgroups, fewer partials (and a tally merge in the pass where
# that leaves it few a thread). H100, wgpu-native, 2026-11-26, same run, the grid's packed
# row points whose plan the cap changes, % of copy, no cap / 256 / 512 / 1024
# (bench/results/argreduce-row-groups/h100-wgpu-rowgroups.json): uint8 (512, 512, 512)
# over (1, 2) 84 / 89 / 90 / 83%, over every axis 80 / 78 / 84 / 80%, (128, 128, 128, 64)
# over every axis 81 / 77 / 85 / 79%; float16 (2, 256, 256, 1024) over (1, 3) 87 / 92 / 92 /
# 88%; the 2^26-element points within a point or two either way. 256 cut too deep
# (uint8 over (0, 1, 3) of (2, 256, 256, 1024) 83 -> 76%). Not for "lanes" plans (float16
# (8192, 4096, 2) over (0, 1) 79 -> 76% at 512). H200, 2026-11-29, again with 1024 and 2048
# (bench/results/argreduce-h200-groups/, both implementations): even or slower (float16
# (2, 256, 256, 1024) over (1, 2, 3) 66.2 -> 70.4-70.9 us, uint8 within 1 us): 512 stays.
PACKED_ROW_GROUPS = 512
# ArgMin's loops over 8/16-bit integer words, by dtype, in these strategies: the least of
# the lanes' codes unflipped (dtypes.lanes_min), complemented once a tile, instead of every
# word complemented and the most taken. H100, 2026-11-26, the ArgMin grid's 51 points for
# uint8 and int8, GPU us, the better of two runs each, same process, off -> on
# (bench/results/argreduce-min-fold/h100-{wgpu,dawn}-min-fold.json): uint8 tile columns of
# 2^27 elements faster at 14 of 16 on wgpu-native (-1.9 to -18.6 us: (128, 128, 128, 64)
# over (0, 1, 2) 79.5 -> 60.9 us, 59 -> 77% of copy; (2, 256, 256, 1024) over axis 2 67.8 ->
# 55.0), the other two -0.4 / +0.2; on Dawn 15 of 16 (-1.4 to -18.2, +0.5); uint8's 2^26
# tile columns -0.2 to +0.6; uint8 rows -0.7 to +1.9 (not taken); int8 tile columns (its
# keys keep an xor a word either way; they ran as fast as uint8's do now) -1.4 to +2.4.
# uint16 / int16 not measured. Again with ARG_WG_PACK (H100, 2026-11-27, uint8 ArgMin at the
# grid's 27 row and word-lane points, tile columns / + lanes / + rows twice, bench/results/
# argreduce-wg-pack/h100-{wgpu,dawn}-mf-uint8.json): lanes even (within 0.7 us either way),
# rows even to 1.8 us slower ((2, 256, 256, 1024) over axis 3 on Dawn 50.6 -> 52.4).
ARG_MIN_FOLD = {"uint8": ("tilecol",)}
# ... but not tile columns whose splits merge unpacked in the pass (without tile runs or rows
# joined at their own shift, which keep the workgroup-memory tree): they
# fold by max over complemented keys, so as to take the workgroup atomic tree
# (ARG_WG_PACK_TILECOL), which the min fold excludes. H100, 2026-11-28 (third session), uint8
# ArgMin, min fold everywhere / off twice in one process, GPU us (bench/results/
# argreduce-min-fold/h100-{wgpu,dawn}-mf2-uint8.json): the grid's three such points, all at
# 64 MiB, 0.3-0.8 us faster in all 12 pairs ((8192, 4096, 2) over axis 0 31.2 / 31.2 -> 30.4
# / 30.6 on wgpu-native, 30.7 / 30.8 -> 30.4 / 30.5 on Dawn; (2, 4096, 8192) over axis 1 31.0
# -> 30.4-30.6); (128, 128, 128, 64) over (1, 2) (split 4, 16 row groups) -0.8 / +0.1 on
# wgpu-native, +0.8 / +0.6 on Dawn. Off elsewhere it lost: 4-14 us where the reduction is
# not split ((512, 512, 512) over axis 1 52.0 -> 66.0) and with tile runs ((128, 128, 128,
# 64) over (0, 2) 51.9 -> 65.3); packed partials even.
ARG_MIN_FOLD_TREE = True
# ... and short runs as lanes of a word (TILECOL_RUNS) take the atomic tree with the min
# fold kept: its codes, complemented once a tile, are the max fold's. H200, 2026-11-28
# (fourth session), uint8 ArgMin, min fold with the tree wherever ArgMax's tile columns take it
# / as before, twice in turns in one process, GPU us (bench/results/argreduce-min-fold-tree/
# h200-{wgpu,dawn}-mt-uint8.json): the grid's short runs, (8192, 4096, 2) over (0, 2), 24.7 /
# 24.7 -> 24.0 / 24.2 on wgpu-native, 24.0 / 24.0 -> 23.5 / 23.7 on Dawn; elsewhere it lost up
# to 11.8 us (wgpu-native's 64 MiB tile columns 26.0-26.3 -> 37.7-38.0; (128, 128, 128, 64)
# over (1, 2) 39.6 -> 47.8), or won on Dawn alone ((128, 128, 128, 64) over (1, 2) 42.5 ->
# 40.1).
ARG_MIN_FOLD_WG_PACK_RUNS = True
# ArgMax/ArgMin over short contiguous rows back to back (one reduced dim of stride 1, one
# kept dim whose stride is the row's length) of a power of two words (any number with
# ARG_STAGE_ANY_WORDS) in this range, by element bits: a workgroup copies
# ARG_STAGE_BLOCK_WORDS words of whole rows into workgroup memory with coalesced loads,
# then each thread reduces the rows of its own max(ARG_STAGE_THREAD_WORDS, row) words
# there, no tree over threads (plan._stage_rows); a workgroup keeps at least
# ARG_STAGE_MIN_WG threads. H100, wgpu-native, 2026-11-26, ArgMax
# over 2^27 elements, % of a copy's bandwidth (bench/results/argreduce-stage/): the plans
# before -> staged at 4096 / 32 block / thread words -> at 1024 / 8 (h100-wgpu-stage2.json,
# h100-wgpu-stage3.json): uint8 rows of 16 / 32 / 64 / 128 21 / 63 / 77 / 74 -> 52 / 79 /
# 81 / 80 -> 97 / 96 / 91 / 83%, float16 rows of 8 / 16 / 32 / 64 41 / 19 / 75 / 70 -> 52 /
# 80 / 82 / 79 -> 95 / 93 / 88 / 82%, float32 rows of 4 / 8 / 16 / 32 76 / 36 / 6 / 66 -> 55
# / 85 / 87 / 86 -> 100 / 96 / 93 / 87%, int64 rows of 4 / 8 / 16 / 32 74 / 36 / 10 / 67 ->
# 92 / 95 / 95 / 84 -> 102 / 100 / 98 / 84% (rows of 32: 64 words, 32 threads a workgroup;
# 16 threads 74%). Fewer words a thread were faster wherever a row allows them (float16 rows
# of 16 at 1024-word blocks: 32 / 16 / 8 words a thread 83 / 90 / 93%), as were blocks of
# 1024 words over 4096 and 2048 at most points; 512 within 3.5 points either way (same
# runs). Rows of 2 words lose (float32 rows of 2 96 -> 37%, uint8 rows of 8 47 -> 38%), as
# do int64 rows of 2 (102 -> 83%) and rows of 64 words of 8/16/32-bit elements (float32
# rows of 64 91 -> 71%, uint8 rows of 256 78 -> 68%; h100-wgpu-stage.json). (0, 0): off.
# float16 rows of 64 (32 words) through the row plan's vector loads instead ({16: (4, 16)};
# H100, 2026-11-27, bench/results/argreduce-knobs-20261127/h100-{wgpu,dawn}-sw.json):
# (128, 128, 128, 64) over axis 3 114.1 -> 130.6 us (wgpu-native), 118.4 -> 135.6 (Dawn).
# 64 and 128 threads at least against 32 (H100, 2026-12-07, ArgMax over 2^27 elements,
# bench/results/argreduce-stage-wg/h100-{wgpu,dawn}-wg.json): float16 rows of 64 106.8 / 106.0
# / 107.9 us (Dawn 107.9 / 109.0 / 111.0), int64 rows of 32 425.7 / 422.4 / 510.6, float32
# rows of 32 207.5 / 203.4 / 209.1 (Dawn 208.6 / 211.2 / 216.2): 32 kept.
ARG_STAGE_WORDS = {8: (4, 32), 16: (4, 32), 32: (4, 32), 64: (8, 64)}
ARG_STAGE_BLOCK_WORDS = 1024
ARG_STAGE_THREAD_WORDS = 8
ARG_STAGE_MIN_WG = 32
# ... and rows of any number of words in the range, a row in the power of two of places at
# or above it (rows of 10 float32 in 16). H100, 2026-11-26, ArgMax over 2^22 rows, GPU us,
# the plans before -> staged, wgpu-native / Dawn (bench/results/argreduce-stage-any/, same
# runs): float32 rows of 10 237 -> 77 / 238 -> 81, of 20 1795 -> 150 / 1789 -> 158; float16
# rows of 10 65 -> 44 / 69 -> 47, of 24 704 -> 89 / 855 -> 93; uint8 rows of 20 73 -> 43 /
# 78 -> 45; int64 rows of 12 716 -> 157 / 723 -> 162; the one not faster int64 rows of 5
# (10 words in 16 places: 70.8 -> 72.2 / 75.3 -> 75.5).
ARG_STAGE_ANY_WORDS = True
# ... and 8/16-bit rows that are not whole words (uint8 rows of 10, float16 rows of 7), a
# word's worth of rows at a time (4 / 2 rows of n elements: n words, each row's elements at
# places known to the kernel), n words in this range (else column plans). H100, 2026-11-27,
# ArgMax/ArgMin over 2^25 elements, GPU us, column plans -> staged, the better of two runs,
# wgpu-native / Dawn (bench/results/argreduce-odd-tails/h100-{wgpu,dawn}-odd.json): uint8
# rows of 5 57.9 -> 45.1 / 59.1 -> 47.6, of 7 51.9 -> 36.3 / 54.1 -> 39.6, of 13 45.2 ->
# 29.3 / 47.4 -> 32.6, of 31 34.4 -> 29.6 / 37.9 -> 33.3; float16 rows of 3 90.4 -> 73.3 /
# 88.7 -> 73.9, of 5 75.3 -> 49.1 / 75.5 -> 52.2, of 15 62.0 -> 46.8 / 63.3 -> 50.3. Slower:
# uint8 rows of 3 (73.5 -> 124.4 / 72.1 -> 126.6: 3 words of 4 rows) and float16 rows of 31
# (56.9 -> 58.1 / 59.4 -> 60.8). Against column plans with the last thread ragged
# (COL_VOUT_RAGGED below; bench/results/argreduce-col-ragged/h100-wgpu-rg.json, same GPU,
# a later run) the shortest lose too: uint8 rows of 5 staged 45.1 against 36.6 ragged, of 7
# 36.3 / 35.0 (of 12 ragged 33.6, of 13 staged 29.3); float16 rows of 3 73.3 / 58.3, but of
# 5 49.1 / 54.8 and of 7 47.1 / 53.4: the ranges start and end inside the rows measured
# faster staged.
ARG_STAGE_ODD = True
# Column plans over rows of whole words (16-bit rows of 2, 8-bit rows of 4, every row
# starting on a word): a word's lanes keyed at once and the row's best lane code taken as
# its index, instead of an element's key and comparison at a time (plan.argreduce,
# word_rows). H100, 2026-11-27, GPU us, off / on / off / on in one process, wgpu-native
# (Dawn) (bench/results/argreduce-knobs-20261127/h100-{wgpu,dawn}-wr.json): float16 rows of 2,
# (8192, 4096, 2) over axis 2, ArgMax 117.6 / 94.3 / 118.1 / 95.1 (120.1 / 98.6 / 121.1 /
# 98.6), 81 -> 100% of a copy; ArgMin 125.7 / 94.9 / 125.4 / 95.1 (127.8 / 98.5 / 128.4 /
# 98.4), 75 -> 100%; int16 97.9 -> 95.1; uint8 rows of 4, (4096, 4096, 4) over axis 2, 68.9
# / 50.4 / 68.7 / 51.1 (71.4 / 54.3 / 71.6 / 55.1), 74 -> 100%; the controls (rows of
# other lengths) within 0.5 us.
ARG_WORD_ROWS = True
# ... of up to this many words (rows of 4 words and more are staged: ARG_STAGE_WORDS). H100,
# 2026-11-27, GPU us, 1 / 3 / 1 / 3 in one process, ArgMax, wgpu-native (Dawn)
# (bench/results/argreduce-knobs-20261127/h100-{wgpu,dawn}-wr2.json): float16 rows of 4,
# (4096, 4096, 4) over axis 2, 101.3 / 72.4 / 101.5 / 73.0 (105.3 / 76.6 / 105.4 / 76.0), 70
# -> 97% of a copy; rows of 6 75.4 -> 52.2 / 51.7 (64 -> 91-93%); uint8 rows of 8 76.0 ->
# 39.5 / 39.3 (49 -> 95-97%), of 12 47.4 -> 28.4 / 29.1 (55 -> 89-92%); ArgMin alike; the
# controls (float16 rows of 8 and 12, staged; uint8 rows of 4 and of 6, not whole words)
# within 1 us.
ARG_WORD_ROWS_MAX_WORDS = 3
# ... and rows shorter than a word back to back (8-bit rows of 2, two to a word) likewise,
# each row the best of its own lanes, instead of two element loads a row. H200, 2026-11-29,
# GPU us off / on / on with 2 groups a thread (wgpu-native's 8-bit COL_REPS is 4) / off /
# on in one process (bench/results/argreduce-sub-rows/h200-{wgpu,dawn}-sub.json): (8192,
# 4096, 2) over axis 2, uint8 ArgMax 68.3 / 54.0 / 54.2 / 68.5 / 54.0 (76 -> 96% of a copy),
# int8 72.0 -> 54.1, Dawn 66.0 -> 53.2 (80 -> 100%), int8 69.6 -> 53.2; ArgMin alike; (1024,
# 1024, 2) 5.2 -> 4.3-4.6; rows of 4 (word rows, the control) within 0.4 us.
ARG_SUB_ROWS = True
ARG_STAGE_ODD_WORDS = {8: (9, 32), 16: (5, 16)}
# Staged rows of a power of two words, whole vectors of 4 (plan._stage_rows), read from the
# input and through workgroup memory a vector at a time, a pad vector every max(8, a
# thread's vectors) instead of the scalar layout's swizzle: 4x fewer loads and stores a
# word, no bank arithmetic an access (the memory does not bound the plan: float16 rows of
# 64 took 98 us on the H200, 106 on the H100, whose copy takes 40% longer). H100,
# 2026-12-07, ArgMax over 2^27 elements, scalar -> vector twice in turns, GPU us,
# wgpu-native (Dawn) (bench/results/argreduce-stage-vec/h100-{wgpu,dawn}-vec.json):
# float16 rows of 64 106.0 -> 99.6 (107.0 -> 101.1), 87 -> 93% of a copy; ArgMin there
# 107.5 -> 100.2; float16 rows of 32 102.8 -> 99.8 (104.2 -> 100.7); float32 rows of 32
# 204.9 -> 193.6 (206.7 -> 195.4), 89 -> 95%; the control (float32 rows of 64, row plan)
# within 0.3 us.
ARG_STAGE_VEC = True
MIN_COL_CHUNK = 64  # elements per thread
# Column plans of one reduced dim up to COL_VOUT_MAX_RED elements: COL_VOUT[bits]
# neighbouring outputs a thread (where the innermost kept dim is a multiple of it). Rows of
# 2 over 2^25 outputs took 0.22-0.28 ms on an H100 whatever the dtype (uint8 to int64): a
# thread's fixed instructions, not bytes, bound them. H100, wgpu-native, % of copy at 1 / 2
# / 4 outputs a thread (bench/results/argreduce-vout/, same run): (8192, 4096, 2) over axis
# 2 float32 68 / 86 / 113, float16 37 / 50 / 77, uint8 34 / 46 / 75, int64 89 / 96 / 84;
# (2, 4096, 8192) over axis 0 float32 60 / 82 / 114, int64 83 / 95 / 111; (2, 256, 256,
# 1024) over axis 0 float32 59 / 84 / 93, int64 85 / 99 / 99; longer columns unchanged.
# 64-bit keys take 2 (their worst point 95% against 84% at 4).
COL_VOUT = {8: 4, 16: 4, 32: 4, 64: 2}
COL_VOUT_MAX_RED = 64
# ... and where the only kept dim is no multiple of it ((3, 11184810) over axis 0), the last
# thread's outputs ragged (else a thread an output), 8/16-bit columns up to
# COL_VOUT_RAGGED_MAX_RED rows. H100, 2026-11-27, ArgMax over 2^25 elements, GPU us, a
# thread an output -> ragged, wgpu-native (torch.argmax's time over ours) / Dawn, same runs
# (bench/results/argreduce-col-ragged/h100-{wgpu,dawn}-rg.json): float32 columns of 3
# 104.4 -> 64.5 (60 -> 97% of a copy; torch 1.08 -> 1.75x) / 105.7 -> 68.7, of 7 87.0 ->
# 58.3 (torch 0.90 -> 1.34x), of 12 82.1 -> 57.3 (0.80 -> 1.15x), of 20 60.4 -> 56.5;
# float16 of 3 104.9 -> 49.4 / 103.9 -> 52.3, of 12 79.0 -> 39.6 (0.73 -> 1.47x); uint8 of
# 3 94.3 -> 43.0 / 95.2 -> 46.2, of 12 68.7 -> 35.5 (0.78 -> 1.52x); int64 even (two a
# thread: the kept dims of these shapes are even). But 8/16-bit columns of 20 (element
# loads: an odd kept dim) slower, uint8 35.2 -> 36.4 / 37.8 -> 40.3, float16 52.1 -> 53.3 /
# 54.2 -> 58.0: they keep a thread an output from 17 rows (those read as joined words,
# COL_JOIN below, are ragged at any length they take).
COL_VOUT_RAGGED = True
COL_VOUT_RAGGED_MAX_RED = {8: 16, 16: 16}
# 8/16-bit columns of COL_VOUT outputs (a multiple of a word's) read as words, the lanes'
# keys at once. H200, wgpu-native, 2026-11-25, % of copy, element loads -> words, same run
# (bench/results/argreduce-colwords/h200-wgpu-cols.json): two-element columns (2, 4096,
# 8192) over axis 0 float16 56 -> 66, uint8 60 -> 62; (2, 256, 256, 1024) float16 61 -> 71;
# sixteen-element columns (16, 4096, 2048) float16 53 -> 77, uint8 37 -> 45, int16 76 -> 94.
# (8 outputs a thread with words: 16-element columns better still, float16 83, but uint8
# two-element columns 62 -> 44; 16 a thread: 14-24% on two-element columns: COL_VOUT stays.
# Rows of 2 read as words, whole rows to a word, lost: float16 (8192, 4096, 2) over axis 2
# 56 -> 43, uint8 62 -> 45, h200-wgpu-rows.json: they keep element loads.)
COL_WORDS = True
# ... COL_VOUT_WORDS of them a thread (two words) where read as words, from
# COL_VOUT_WORDS_MIN_RED rows. H100, 2026-11-27, ArgMax GPU us, 4 -> 8 a thread (vector
# stores both), wgpu-native, same runs (bench/results/argreduce-col-ragged/h100-wgpu-rg.json
# "rg" -> "rg8", bench/results/argreduce-col-vstore/h100-wgpu-vs.json "vs" -> "vs8"): uint8
# columns of 4 / 8 / 16 / 32 over 2^25 elements 36.4 -> 33.6 / 32.1 -> 28.0 / 30.6 -> 26.8 /
# 28.9 -> 26.9, (16, 4096, 2048) over axis 0 95.3 -> 78.4 (Dawn 96.0 -> 81.5); float16
# columns of 4 / 8 / 16 44.2 -> 43.3 / 39.6 -> 38.1 / 39.1 -> 37.5, (16, 4096, 2048) 126.0 ->
# 116.1; but two-element columns slower (uint8 (2, 4096, 8192) over axis 0 85.0 -> 97.3,
# float16 102.4 -> 109.2): from 4 rows. And columns of 50 slower (the surface's rows grid
# with 8 a thread from 4 rows, h100-{wgpu,dawn}-rows-20261127b.json against -20261127.json,
# % of a copy: uint8 (50, 671088) over axis 0 51 -> 47 / 53 -> 51, float16 61 -> 55 / 61 ->
# 57; columns of 33 even): to 32 rows.
COL_VOUT_WORDS = {8: 8, 16: 8}
COL_VOUT_WORDS_MIN_RED = 4
COL_VOUT_WORDS_MAX_RED = 32
# 8/16-bit columns whose rows do not start on a word (an odd kept dim: (20, 1677721) float16
# over axis 0) read as words too, each row's joined from one more load at its own shift,
# COL_JOIN_VOUT outputs a thread, columns up to COL_JOIN_MAX_RED rows (else element loads).
# H100, 2026-11-27, ArgMax over 2^25 elements, GPU us, element loads -> joined words 4 / 8
# a thread, wgpu-native (Dawn), the same runs (bench/results/argreduce-col-join/h100-{wgpu,
# dawn}-jn.json): uint8 columns of 5 38.3 -> 37.0 / 34.5 (41.8 -> 36.1 at 8), of 10 35.8 ->
# 34.5 / 31.9 (39.2 -> 33.8), of 12 35.4 -> 33.9 / 31.7, of 20 35.4 -> 34.5 / 32.9; float16
# columns of 10 51.4 -> 44.8 / 43.0 (56.0 -> 46.8), of 20 51.8 -> 46.8 / 46.9 (54.7 ->
# 50.0); but long columns slower (fewer threads, split more): uint8 columns of 257 / 1000 /
# 5000 32.9 -> 42.6 / 33.9 -> 41.5 / 42.4 -> 53.6 at 4, float16 of 257 52.7 -> 55.4: to 32
# rows (33 to 256 not measured; 32 the word columns' own bound, COL_VOUT_WORDS_MAX_RED).
COL_JOIN = True
COL_JOIN_VOUT = {8: 8, 16: 8}
COL_JOIN_MAX_RED = 32
# ... and longer ones as tile columns ("tilecol") whose rows' words are joined at each
# row's shift (one kept dim and one reduced dim; the last word's outputs ragged), by element
# bits, from this many rows (else a thread an output and element loads). H100, wgpu-native,
# 2026-11-27, ArgMax over 2^25 elements, GPU us, element loads -> joined tile columns, same
# run (bench/results/argreduce-tilecol-join/h100-wgpu-tj.json, `python ../argreduce-col-vstore/
# table.py FILE off,tj,off2`): uint8 columns of 1000 33.5 -> 29.8 (42 -> 47% of a copy), of
# 1500 35.0 -> 31.7, of 5000 40.2 -> 28.9 (35 -> 48%), but of 257 32.9 -> 36.4; float16
# columns of 257 53.1 -> 54.5, of 1000 even, of 1500 58.6 -> 68.6, of 5000 41.8 -> 42.4:
# not taken. The rows grid with it from 1000 rows (surface/h100-{wgpu,dawn}-rows-20261127v
# .json against -20261127c): Dawn's uint8 columns of 1000 lost (38.0 -> 45.6 us, 1.07 ->
# 0.90x torch.argmax) where those of 1500 and 5000 gained (39.4 -> 33.8, 43.6 -> 33.0):
# from 1500. With more threads for them (ARG_TILECOL_JOIN_MIN_ROWS below), from fewer rows:
# H100, 2026-11-28 (third session), 2^25 elements over axis 0, two pairs in one process, GPU
# us (bench/results/argreduce-join-rows/h100-{wgpu,dawn}-{jl,jl2}-uint8.json): uint8 from 256
# rows against 1500, faster at all 5 points of 257-1400 rows on both implementations, (1000,
# 33554) 30.9 / 30.7 -> 19.7 / 19.4 (Dawn 31.9 / 33.5 -> 19.9 / 19.6), (700, 47935) 34.4 ->
# 21.9, (257, 130561) 25.8 -> 22.2; from 64 against 256: 64-128 rows 1.5-9 us faster ((64,
# 524287) 26.1 -> 16.9, (128, 262143) 25.3 -> 17.6, Dawn alike), (200, 167773) 0.3-1.3 us
# slower (26.6 -> 27.3 / 26.9), 257 even. float16 from 256 rows, with 128 rows a row group
# (h100-{wgpu,dawn}-jf-float16.json, against element loads): faster at all 6 points, 4-23 us
# ((5001, 6709) 61.8 -> 44.8, Dawn 62.4 -> 38.6; (700, 47935) 58.9 -> 47.3; (257, 130561)
# 48.9 -> 44.8, Dawn 49.6 -> 39.3); then from 64 rows against 256 (h100-{wgpu,dawn}-jf2-
# float16.json, 64-200 rows): Dawn 4-14 us faster at all 8 ((128, 262143) 45.4 -> 34.3),
# wgpu-native at 7 of 8 ((200, 167773) ArgMin 52.2 -> 44.7), its ArgMax at (128, 262143)
# 44.8 -> 47.7.
TILECOL_JOIN = {8: 64, 16: 64}
# Column plans' COL_VOUT indices a thread stored as whole vectors of four words (two for two
# words) where they are neighbours in the output (else a scalar store each, a warp's store a
# word every 4 * COL_VOUT bytes). H100, 2026-11-27, ArgMax GPU us, scalar -> vector stores,
# wgpu-native / Dawn, same runs (bench/results/argreduce-col-vstore/h100-{wgpu,dawn}-vs.json,
# `python table.py FILE base,vs` there): two-element columns uint8 (2, 4096, 8192) over axis
# 0 102.6 -> 85.0 / 104.2 -> 85.9 (73 -> 88% / 78 -> 94% of a copy), (8192, 4096, 2) over
# axis 2 100.2 -> 84.4 / 103.4 -> 86.2, (2, 256, 256, 1024) over axis 0 193.9 -> 160.6;
# float16 116.1 -> 102.4 / 118.7 -> 105.1 (81 -> 92%), 224.1 -> 198.1; float32 143.2 ->
# 135.8, 280.1 -> 266.5; (8192, 4096, 2) over axis 2 float16 121.9 -> 117.2, float32 144.4
# -> 137.9; int64 even; every other point within 2%. With 8 outputs a thread
# (vectors too) the two-element columns lost (uint8 85.0 -> 97.3) but sixteen-element ones
# gained (uint8 (16, 4096, 2048) over axis 0 95.3 -> 78.4, float16 126.0 -> 116.1): COL_VOUT
# stays, COL_VOUT_WORDS above takes longer columns; 16 a thread lost everywhere.
COL_VSTORE = True
# ... and COL_REPS[implementation][bits] groups of COL_VOUT outputs a thread, a workgroup's
# width apart (each warp's loads and stores stay contiguous runs), in columns of at most
# COL_REPS_MAX_RED elements, where one split leaves COL_REPS_MIN_THREADS threads or more:
# more bytes in flight a thread, its fixed costs shared. Before it, two-element columns over
# 2^25 outputs took the time of a copy of 8M vectors whatever their dtype (uint8 at 66-73%
# of a copy's bandwidth): a thread's share, not bytes, bound them. H200, 2026-11-29, ArgMax
# GPU us, 1 / 2 / 4 / 8 groups a thread, in turns in one process (1 and 4 twice on
# wgpu-native, 1 twice on Dawn), bench/results/argreduce-col-reps/h200-{wgpu,dawn}-reps.json:
# (2, 4096, 8192) over axis 0, wgpu-native: uint8 75.0 / 65.7 / 61.2 / 71.5 (70 -> 85% of a
# copy at 4), float16 89.2 / 78.9 / 77.7 / 85.3, float32 104.3 / 96.6 / 103.9 / 107.7, int64
# 164.8 / 155.1 / 159.0 / 162.5; Dawn uint8 72.0 / 58.1 / 60.2 / 85.6 (73 -> 92% at 2),
# float16 86.7 / 76.5 / 81.2 / 129.3, float32 104.8 / 99.3 / 105.1, int64 165.6 / 158.8 /
# 160.4. (2, 256, 256, 1024) over axis 0 alike (wgpu-native uint8 143.5 -> 115.4 at 4, Dawn
# 138.9 -> 110.9 at 2). Rows of 2, (8192, 4096, 2) over axis 2: uint8 79.7 / 70.8 / 68.3 /
# 80.9 (wgpu-native), 79.8 / 66.1 / 67.1 / 92.5 (Dawn); float16 70.9 -> 67.9-68.5; float32
# best at 2 (103.3 -> 97.9; 109.0 at 4); int64 157.1 / 159.7 / 168.3 on wgpu-native (Dawn
# 157.8 / 158.1). Longer columns mixed (COL_REPS_MAX_RED): rows of 4, (4096, 4096, 4) over
# axis 2, uint8 36.2 / 35.9 / 37.2, float16 53.8 / 51.6 / 52.7; sixteen-element columns,
# (16, 4096, 2048) over axis 0, float16 110.8 / 111.7 / 119.3, uint8 74.6 / 73.4 / 80.6.
COL_REPS = {"wgpu": {8: 4, 16: 4, 32: 2, 64: 2}, "dawn": {8: 2, 16: 2, 32: 2, 64: 2}}
COL_REPS_MAX_RED = 2
# (the column plans' own target, not measured apart: every point above has 2^21 threads or
# more before the groups but (2, 1024, 1024), 2^19, where 2 to 8 groups were even or up to
# 0.9 us faster)
COL_REPS_MIN_THREADS = COL_TARGET_THREADS
# 8/16-bit column plans ("tilecol"): a thread per word of neighbouring outputs, TILECOL_WX
# words side by side (a warp reads one row's 128 bytes), the rest of the workgroup's threads
# as row groups over the reduced range, at least TILECOL_MIN_ROWS rows each. H100,
# wgpu-native, 2026-11-25 (bench/results/argreduce-tilecol/, `python -m bench.tuning_sweep`,
# the surface's 23 column points of uint8 and float16, % of copy bandwidth): element loads
# and a thread per output -> this: uint8 25-53% -> 49-85%, float16 34-69% -> 47-109%
# (float16 at 85%: 0 -> 16 of 23 points). Rows per row group 16 / 32 / 64 / 128: uint8
# (512, 512, 512) axis 0 71 / 71 / 82 / 84%, (2, 4096, 8192) axis 1 47 / 54 / 61 / 66%,
# float16 (2, 4096, 8192) over (0, 1) 67 / 67 / 72 / 81% (128 loses at uint8 (2, 256, 256,
# 1024) over (0, 2), 80 -> 74%); 64 words side by side: 2-19 points lower. (The earlier
# packed column plan, a thread per word without row groups, lost to element loads over
# long reductions: (512, 512, 512) axis 0 uint8 47 -> 34%; TILECOL False: element loads.)
TILECOL = True
TILECOL_WX = 32
TILECOL_MIN_ROWS = 128
# ... ArgMax/ArgMin's at least this many (fewer row groups and splits): H100, wgpu-native,
# 2026-11-26, the grid's 20 tile-column points x uint8 / float16, same run, % of copy,
# 128 -> 256 (bench/results/argreduce-cols/h100-wgpu-tilecol-rows.json): uint8 faster at 18
# of 20 ((512, 512, 512) over axis 0 83 -> 89%, over (0, 1) 72 -> 78%; (2, 256, 256, 1024)
# over (0, 2) 73 -> 80%; (128, 128, 128, 64) over (0, 1, 2) 72 -> 77%), float16 within a
# point but (8192, 4096, 2) over (0, 2) 79 -> 83%; 512 lost the 2^26-element points (uint8
# (2, 4096, 8192) over axis 1 75 -> 62%), 1024 nearly all. 8-bit short runs as lanes keep
# 128 (ARG_TILECOL_RUN_MIN_ROWS: uint8 (8192, 4096, 2) over (0, 2) 71 -> 66% at 256).
# Checked again on H100, 2026-11-28, with their atomic tree (ARG_WG_PACK_TILECOL_RUNS), 128 /
# 256 / 64 twice in one process at four uint8 short-run points over (0, 2), GPU us
# (bench/results/argreduce-tilecol-wg/h100-{wgpu,dawn}-rr-uint8.json): 128 the fastest at
# every point on both implementations ((8192, 4096, 2) ArgMax 29.8 / 32.4 / 31.7 on
# wgpu-native, 28.7 / 32.0 / 29.6 on Dawn).
ARG_TILECOL_MIN_ROWS = 256
ARG_TILECOL_RUN_MIN_ROWS = {8: 128}
# ... and rows joined at their own shift (row_join, TILECOL_JOIN) at least this many, by
# element bits (more row groups, or splits, where they have few threads: an output's word
# takes two loads a row). H100, 2026-11-28 (third session), uint8 ArgMax / ArgMin over axis
# 0 of 13 joined shapes of 2^25-2^26 elements, 256 / 128 twice in one process, GPU us
# (bench/results/argreduce-join-rows/h100-{wgpu,dawn}-jr-uint8.json): 1-8 us faster at 10
# (the rows grid's (1500, 22369) 28.1 / 27.8 -> 21.0 / 21.2 on wgpu-native, 27.9 / 28.0 ->
# 22.9 / 23.1 on Dawn; (2000, 16777) 25.7 -> 18.2; (30000, 1119) 32.7 -> 26.0), even at
# two ((5000, 6710), (2500, 13421)), slower at (8000, 4193) (19.1 -> 21.4 / 21.0; Dawn
# 20.6 -> 22.1 / 22.3), whose split of 8 packs its partials where 4 merged them unpacked.
# 16-bit: with their joined rows (TILECOL_JOIN above).
ARG_TILECOL_JOIN_MIN_ROWS: dict[int, int] = {8: 128, 16: 128}
# ... but, by WebGPU implementation and dtype, (rows, splits): this many rows (where fewer
# than that) where that leaves at most that many splits (more threads where a plan has few:
# a row group's rows are its split's rows over the row groups). H100, wgpu-native,
# 2026-11-27 (late), ArgMax / ArgMin GPU us, 256 -> 128 everywhere, two pairs in one process
# (bench/results/argreduce-knobs-20261127/h100-wgpu-tc.json): float16 tile columns split 2-8
# ways (up to 16 at 128) faster at 24 / 24 pairs (-0.3 to -2.9 us; those of one split, more
# row groups only, within 1.5 us either way): (8192, 4096, 2) over axis 0 57.3 / 57.5 ->
# 55.3 / 55.8 (82 -> 85% of a copy), (2, 4096, 8192) over axis 1 57.6 -> 56.0, over (0, 1)
# 56.9 -> 55.8, (128, 128, 128, 64) over (0, 2) 107.2 -> 104.6, over (1, 2) 104.2 -> 102.8;
# split more already it lost ((512, 512, 512) over (0, 1), 128 -> 256 ways: 103.6 -> 107.7)
# or stayed even; short runs (lanes of a word) lost ((8192, 4096, 2) over (0, 2) 54.0 ->
# 56.9: they keep ARG_TILECOL_MIN_ROWS); uint8 lost at 2^27 elements (up to +14 us: (128,
# 128, 128, 64) over (0, 1, 2) 61.8 -> 75.3) and stayed within a point at 2^26 (H200, same
# configs, h200-wgpu-w1.json there: float16 51.6 -> 48.2 at (8192, 4096, 2) over axis 0).
# Dawn (H100, same day, with ROW_ROUGH_KEYS, h100-dawn-rkd.json there, configs base / new)
# lost at the three 2^26-element points, 59.0-59.9 -> 60.2-61.4 us ((2, 4096, 8192) over
# axis 1 59.9 / 59.8 -> 60.7 / 61.3), and stayed even at the two of 2^27: not for Dawn.
ARG_TILECOL_FEW_SPLITS = {"wgpu": {"float16": (128, 16)}}
# An innermost kept dim narrower than this (bits) stays "interleave"/"col": row groups of
# one word each straddle far-apart kept rows (float16 (8192, 4096, 2) over axis 1, H100,
# 2026-11-25: interleaved 48% of copy, tilecol 30%).
TILECOL_MIN_INNER_BITS = 256
# ...and reductions shorter than this stay "col" (COL_VOUT outputs a thread). H200,
# wgpu-native, % of copy tilecol -> col (bench/results/argreduce-vout/h200-wgpu-notile.json,
# same run): two-element columns float16 (2, 4096, 8192) over axis 0 35 -> 55, (2, 256,
# 256, 1024) 50 -> 62, uint8 51 -> 60 and 41 -> 47; columns of 3 to 63 not measured.
TILECOL_MIN_RED = 64
# ...and takes short reduced runs under the innermost kept dim as lanes of a word
# ((8192, 4096, 2) over (0, 2)), where the run divides a word, instead of a thread per run
# element. H200, wgpu-native, 2026-11-25, % of copy, threads -> word lanes, same run
# (bench/results/argreduce-runs/h200-wgpu-runs.json): (8192, 4096, 2) over (0, 2) uint8
# 19 -> 60, float16 41 -> 71, int16 45 -> 79; (65536, 512, 2) over (0, 2) uint8 24 -> 58,
# float16 53 -> 70; uint8 runs of 4, (4096, 8192, 4) over (0, 2) 53 -> 77.
TILECOL_RUNS = True
# Tile columns over several reduced dims whose innermost is whole tiles (a split's range
# rounded up to whole tiles too) find a tile's place in them once a tile, its rows a stride
# apart, instead of a carry and an address a row. H100, 2026-11-27 (later), the four grid
# points it reaches (two a dtype) x ArgMax / ArgMin, three pairs in one process
# (bench/results/argreduce-tile-runs/h100-{wgpu,dawn}-tr-{uint8,float16}.json, GPU us):
# wgpu-native uint8 (2, 256, 256, 1024) over (0, 2) 55.0 / 55.3 / 55.1 -> 50.1 / 50.0 / 50.1
# (84 -> 92% of a copy; ArgMin 55.7 -> 50.2), (128, 128, 128, 64) over (0, 2) ArgMin 55.4 ->
# 51.8 (ArgMax even, 52.7 -> 52.9), float16 0.5-2 us faster at all four; Dawn uint8 (128, 128,
# 128, 64) over (0, 2) 56.6 / 55.4 / 56.1 -> 53.8 / 53.0 / 53.8 (ArgMin alike), float16 up
# to 3.3 us faster, at most 0.8 slower; slower: Dawn uint8 ArgMin (2, 256, 256, 1024) over (0, 2)
# 54.3 -> 58.0 in all three pairs (its ArgMax even).
TILECOL_TILE_RUNS = True
# Tile columns that run fewer than `threads` threads in all (every split's), by element
# bits: `rows` rows a thread's tile instead of REDUCE_UNROLL, that many loads in flight.
# ({}: off.) The uint8 tile columns of 64 MiB run 65,536 threads, 16 loads each: 4 MiB in
# flight. H100, 2026-12-07, uint8 ArgMax / ArgMin, base / 32 rows twice in turns in one
# process, GPU us (bench/results/argreduce-tilecol-inflight/h100-{wgpu,dawn}-inflight-u8.json;
# REDUCE_UNROLL 32, which these plans take alike): wgpu-native 0.2-1.5 us slower at all five
# 64 MiB points ((2, 4096, 8192) over axis 1 29.1 / 29.0 -> 29.5 / 29.6, (8192, 4096, 2) over
# axis 0 ArgMin 29.5 -> 31.0 / 30.9), Dawn 0-0.4 us faster there but up to 1.5 us slower
# at the 2^27-element control (128, 128, 128, 64) over (0, 2). More row groups or splits
# instead (ARG_TILECOL_MIN_ROWS 128) were 1.5-3 us slower on wgpu-native (up to 8 us at
# that control), Dawn -0.2 to +0.8 (control +3). Not the H100's bound; the H200 (the same
# SMs, 40% more bandwidth) is not measured.
TILECOL_DEEP: dict[int, tuple[int, int]] = {}
# ArgMax/ArgMin's tile columns split at most this many ways, by element bits, where their
# partials would be packed (an output's splits atomicMax one word; fewer splits, longer).
# H100, 2026-11-27 (second session), the uint8 tile columns of 2^27 elements split 512 ways,
# GPU us, ArgMax / ArgMin, two pairs in one process, off -> 256
# (bench/results/argreduce-tilecol-cap/h100-{wgpu,dawn}-cap-uint8.json): the grid's (128, 128,
# 128, 64) over (0, 1, 2) 58.5 / 58.8 -> 54.3 / 53.8 on wgpu-native (78.7 -> 84.8-85.5% of a
# copy), 59.7 / 59.8 -> 55.2 / 55.2 on Dawn (78 -> 84%); off the grid (4194304, 32) over axis 0
# 55.5 / 55.3 -> 53.8 / 53.8, (1048576, 128) 58.9 / 58.6 -> 53.6 / 53.8 (Dawn 59.3 -> 54.7).
# 128 lost everywhere (62-66 us). It changes no other grid point. Not 16-bit: float16 (1048576,
# 64) over axis 0 54.7 -> 61.9 on wgpu-native (h100-*-cap-float16.json there; Dawn even;
# (1048576, 128) 0.5-2.5 us faster on both).
ARG_TILECOL_PACK_MAX_SPLIT: dict[int, int] = {8: 256}
MAX_SPLIT = 4096  # partials per output (see TARGET_THREADS); one merge workgroup reads them
# (Split row plans' sizes, H200, wgpu-native, 2026-11-25, same run, 18 split points of
# float32 / float16 / uint8, bench/results/argreduce-chunks/: PACKED_ROW_CHUNK_WORDS 16384 /
# 8192 / 4096 (and the splits to allow them) were 0-4% / 2-12% / 12-35% slower than 32768;
# MAX_SPLIT 8192 0-8% slower, 2048 within 1%: these numbers stay. A split's tiles dealt as
# one block of consecutive ones instead of every n_split-th: float32 4-7% slower, uint8
# up to 6%, float16 and int64 even, bench/results/argreduce-block-tiles/, the patch there.)

# Reductions whose innermost kept dim is contiguous and directly under the reduced dims go
# "interleaved" (that dim's outputs share a workgroup, lanes over them) when the dim holds
# fewer bits than this; a wider one is read coalesced by a thread per output ("col": 32
# lanes x 32 bits is one 128-byte line). H100 surface, wgpu-native, (8192, 4096, 2) over
# axes (0, 1), % of copy, "col" -> interleaved: float32 21 -> 203%, float16 7 -> 92%,
# uint8 7 -> 73%, int64 37 -> 207% (over axis 1: uint8 29 -> 79%, int64 109 -> 220%).
# The same bound sends a contiguous reduced run shorter than this, right under the kept
# dims, to "row" with the run's power-of-two floor of threads per output, several outputs
# per workgroup (neighbouring runs of one row per load). (8192, 4096, 2) over axes (0, 2),
# same surface, % of copy, a workgroup per output -> this: float16 30 -> 31%, uint8 17 ->
# 18%, int64 68 -> 103%; a thread per output ("col") reached only 22% / 12% for float16 /
# uint8, too few threads for the GPU.
INTERLEAVE_BELOW_BITS = 1024
# ...and 8/16-bit ones whose inner kept dim divides a word ("lanes": whole words, a max per
# output lane) read words instead of elements. H200, wgpu-native, 2026-11-25, % of copy,
# element lanes -> word lanes, same run (bench/results/argreduce-lanes/h200-wgpu-lanes.json):
# (8192, 4096, 2) over axis 1 uint8 29 -> 67, float16 34 -> 74, int16 48 -> 87; over (0, 1)
# uint8 29 -> 61, float16 34 -> 65; uint8 (16384, 2048, 4) over axis 1 28 -> 67.
WORD_LANES = True

# The merge pass reads partials with a thread per output once there are this many outputs.
MERGE_COL_MIN_OUT = 4096
# The merge pass loads this many partials per thread before comparing them, and a thread
# per output ("col" merge) reads partials stored split-major (neighbouring threads,
# neighbouring entries). H100, wgpu-native, 2026-11-25 (bench/results/argreduce-tilecol/,
# the 34 float32/int64 surface points with a split, % of copy, a load per comparison and
# output-major partials -> this): at 85% 54 -> 67 of 68; float32 (2, 4096, 8192) axis 1
# 78 -> 93%, (8192, 4096, 2) axis 0 73 -> 86%, int64 (128, 128, 128, 64) over (0, 1) 85 ->
# 96%; split float16 columns 93-95 -> 99%.
MERGE_UNROLL = 4
PARTIALS_SPLIT_MAJOR = True
# ArgMax/ArgMin's split plans merge in the split pass: the last workgroup of each block of
# outputs to finish (by a counter in the device's tally buffer) merges the block's partial
# indices, instead of a second dispatch, where it takes at most TALLY_MAX_PER_THREAD of them
# a thread (see TALLY_BATCH). H100, wgpu-native, 2026-11-26: the merge pass
# added 5-6 us to every split plan, and an empty dispatch in its place the same (uint8
# (512, 512, 512) over every axis: 52.1 us split + 6.1 merge = 57.3 us; bench/results/
# argreduce-tally/h100-wgpu-mergeprobe.log). Same run, GPU time, two passes -> this
# (bench/results/argreduce-tally/, README there): short reductions 1-2.3 us faster (4 x
# 150000: uint8 12.7 -> 10.4 us, float32 12.0 -> 10.9; h100-wgpu-tally3.json); the grid
# (h100-wgpu-tally-grid.json, the better of two passes each): uint8 faster at all 19
# points that merge in the pass (-2.0 to -10.1 us), float32 at 14 of 18 rows (-0.2 to
# -8.2 us) but columns slower (+14 us at two-way splits), float16 slower at all 22 (+0.9
# to +16 us); Dawn (h100-dawn-tally-grid.json) uint8 19 / 19 (-0.5 to -12.4 us), float32
# 15 / 16. Up to 16 a thread (h100-wgpu-tally2.json) lost where it took 4 or more. Hence
# these strategies and element bits (H200, h200-wgpu-tally-grid-u1.json: uint8 faster at
# all 19 again, -0.4 to -5.9 us; float32 rows -20 to +8 us, float16 -6 to +10 us, int64
# -3.6 to +4.3 us). Then without the split cap (H100, h100-wgpu-tally-grid-bits.json):
# int64 faster at all 9 points that merge in the pass (-1.4 to -4.1 us), float16 slower at
# 12 of 13 (-0.2 to +7.9 us): 16-bit elements keep the merge pass.
TALLY_MERGE = True
TALLY_STRATEGIES = ("row", "lanes", "tilecol")
TALLY_BITS = (8, 32, 64)
# ... and for row plans these too. float16 row splits, the merge pass -> in the pass (H100,
# wgpu-native, 2026-11-27, same run, GPU us, two passes each, bench/results/argreduce-
# tally-pack/h100-wgpu-t16.json): (2, 4096, 8192) over (1, 2) 57.1 / 57.6 -> 54.9 / 55.3
# (82 -> 86% of a copy), over every axis 57.5 / 57.2 -> 56.4 / 56.7, (8192, 4096, 2) over
# every axis 57.6 / 56.8 -> 56.2 / 56.1; word lanes (not row plans) over (0, 1) even. Then
# every grid point it moves (12 x both ops: the three above and nine of 256 MiB; H100,
# 2026-11-27 (night), base / t16 / base / t16 in one process, h100-{wgpu,dawn}-t16g.json there):
# faster at 24 / 24 on both implementations in both pairs but one (within 0.4 us), e.g.
# (2, 4096, 8192) over (1, 2) ArgMax 57.0 / 58.2 -> 55.1 / 55.7 (wgpu-native), 61.6 / 61.9
# -> 58.2 / 59.1 (Dawn); (128, 128, 128, 64) over (1, 2, 3) 102.8 / 102.0 -> 98.8 / 99.2
# and 106.1 / 106.0 -> 102.7 / 102.8. (In the 2026-11-26 run, before TALLY_BATCH, that
# point went 105.9 -> 113.9 us in the pass: h100-wgpu-tally-grid-bits.json.)
TALLY_ROW_BITS = (16,)
# ... and, by element bits, where the merge would otherwise take a pass (more partials a
# thread than TALLY_MAX_PER_THREAD, or bits not in TALLY_BITS) and the reduced indices fit
# under the key in a word (2^24 for 8-bit, 2^16 for 16-bit): an output's partials folded
# into one word of the tally by atomicMax, its merge a load an output (plan.argreduce,
# tally_pack). H100, 2026-11-27, same run, GPU us, the merge pass -> packed
# (bench/results/argreduce-tally-pack/h100-wgpu-pk.json; Dawn's h100-dawn-pk3.log, 1 us
# steps, its run cut short): uint8 (2, 256, 256, 1024) over (1, 2) 63.6 -> 55.6 (74 ->
# 85% of copy; Dawn 65 -> 58), over (0, 1, 2) 61.1 -> 56.6 (Dawn 64 -> 57), (512, 512,
# 512) over (0, 1) 59.5 -> 57.5 (Dawn 63 -> 60), (128, 128, 128, 64) over (0, 1, 2) 62.2 ->
# 59.8; float16 (2, 256, 256, 1024) over (1, 2) 111.2 -> 99.3 (Dawn 110 -> 103), (128,
# 128, 128, 64) over (0, 1) 105.3 -> 97.9, (2, 4096, 8192) over axis 1 59.2 -> 57.6 (Dawn 61
# -> 59); float16 columns of 1000 / 5000 (rows grid, h100-{wgpu,dawn}-pr.json) 42.8 / 42.0
# -> 41.2 / 39.5 (Dawn 45.2 / 44.5 -> 41.9 / 41.7). Where the unpacked merge in the pass
# was taken (uint8 tile columns split 2-4 ways, two partials a thread) packing lost a
# little: (2, 4096, 8192) over axis 1 34.3 -> 35.2, (8192, 4096, 2) over axis 0 34.7 ->
# 35.1 (every workgroup waits for its atomicMax results): those keep it.
# Short runs as lanes of words (tile columns over a run under a kept dim) pack too, their
# partial indices the output's (the unpacked merge, which keys partials again, cannot walk
# the run's dim): H100, 2026-11-27 (night), TALLY_PACK off / on twice in one process, GPU us
# (h100-{wgpu,dawn}-rp.json there; the grid's one point it moves a dtype, from a merge pass
# to none): (8192, 4096, 2) over (0, 2) uint8 36.9 / 37.1 -> 33.5 / 33.3 (69 -> 74% of a
# copy), float16 57.6 / 57.2 -> 54.1 / 54.1 (82 -> 86%) on wgpu-native; Dawn 38.6 / 38.3 ->
# 35.2 / 35.1 and 60.7 / 61.2 -> 58.6 / 57.8.
TALLY_PACK = {8: True, 16: True}
# ... and where the reduced indices take up to this many bits more than fit: a word holds
# the index's top bits, and the merge keys the 2^shift elements they stand for again (one
# load each, from the last workgroup of a block) to find the first (DECREASING: last) of
# the best key among them. H100, 2026-11-27 (night), shift 0 / 3 / 0 / 3 in one process,
# GPU us (bench/results/argreduce-tally-pack/h100-{wgpu,dawn}-ps.json; the grid's three
# points it moves, from a merge pass to one): uint8 (8192, 4096, 2) over (0, 1) (2^25, a
# shift of 1) 37.1 / 37.5 -> 33.1 (67 -> 76% of a copy; wgpu-native) and 39.4 / 39.5 ->
# 35.6 / 35.9 (Dawn); float16 (2, 256, 256, 1024) over (0, 1, 2) (2^17) 108.8 / 108.9 ->
# 100.5 (84 -> 91%) and 112.3 / 112.5 -> 109.3 / 107.7; float16 (512, 512, 512) over (0,
# 1) (2^18) 107.6 / 109.3 -> 102.1 and 111.5 / 111.4 -> 109.2 / 109.5. (More than 3 bits:
# eight loads a thread of the last workgroup, not measured.)
TALLY_PACK_SHIFT = 3
# ... and packed first, by strategy, where the unpacked merge in the pass would be taken
# and a split takes at least TALLY_PACK_FIRST_MIN_SPLIT ways: the last workgroup loads a
# word an output instead of a split's index and its key again. H100, 2026-11-27, in one
# process, base / packed first / packed first with ARG_WG_PACK below, twice, ArgMax GPU us
# (bench/results/argreduce-wg-pack/h100-{wgpu,dawn}-wp-{uint8,float16}.json): uint8 (2,
# 4096, 8192) over (0, 1, 2) (512 ways) 30.6 / 28.7 / 27.7 and 30.8 / 28.6 / 27.9 (wgpu-
# native; Dawn 31.4 -> 29.3 -> 28.6), over (1, 2) (256) 29.8 -> 28.8 -> 28.1, (512, 512, 512)
# over (0, 1, 2) 51.8 -> 50.3 -> 49.2; float16 (2, 4096, 8192) over (0, 1, 2) 51.9 -> 50.9 ->
# 50.1 (Dawn 53.2 -> 52.0 -> 51.0). Split 2 ways it lost on Dawn: float16 (2, 256, 256,
# 1024) over (0, 1, 3) 98.0 -> 102.6, over (0, 2, 3) 97.7 -> 101.5 (wgpu-native even); at 4
# ways within -1.4 to +0.6 us (float16 (128, 128, 128, 64) over (1, 2, 3), (0, 1, 3)).
TALLY_PACK_FIRST = ("row",)
TALLY_PACK_FIRST_MIN_SPLIT = 4
# ... and past that, where a block's outputs leave the last workgroup's threads to share
# their codes' elements at most this many loads a thread (0: not at all): one round of
# loads, a workgroup atomic an output for the first (DECREASING: last) of the key. H100,
# 2026-11-27 (night), 0 / 4 / 0 / 4 in one process, GPU us (h100-{wgpu,dawn}-cp.json
# there; the grid's one point it moves for each 16-bit type, word lanes of 2^25, 9 bits
# over, 128 threads an output keying 4 elements each, from a merge pass to none): float16
# (8192, 4096, 2) over (0, 1) ArgMax 58.4 / 58.4 -> 55.9 / 55.5 (80 -> 85% of a copy),
# ArgMin 59.2 / 60.0 -> 55.4 / 55.6 (wgpu-native), 62.4 / 62.2 -> 59.1 / 59.4 (Dawn);
# int16 58.0 / 58.0 -> 54.0 / 54.0 and 61.5 / 61.2 -> 56.5 / 57.7; (2, 4096, 8192) over
# (0, 1) (not moved) within 0.6 us.
TALLY_PACK_COOP_LOADS = 4
# (A thread's two partials loaded together by an unrolled merge loop cost float16 up to 15
# us more on the H100: h100-wgpu-tally-grid.json against h100-wgpu-tally3.json; float16
# no longer merges in the pass, and TALLY_BATCH below loads them together again.) The uint8
# tile columns that keep the merge pass, merged in the pass at 16 / 32 / 128 a thread
# (H100, 2026-11-27, GPU us, 2 -> 16 / 32 / 128, wgpu-native, h100-{wgpu,dawn}-tm.json
# there): (2, 256, 256, 1024) over (1, 2) 62.9 -> 68.5 / 67.7 / 68.1, over (0, 1, 2) 60.4
# -> 61.0 / 86.1 / 86.8, (128, 128, 128, 64) over (0, 1, 2) 61.6 -> 61.8 / 61.4 / 183.2,
# (512, 512, 512) over (0, 1) 59.4 -> 59.6 / 60.2 / 116.8; only (128, 128, 128, 64) over
# (0, 1) (8 a thread) gained, 58.4 -> 56.6 at most (Dawn 62.0 -> 59.4): the merging
# workgroup's loads, one after another, cost more than the pass they save.
TALLY_MAX_PER_THREAD = 2
# A thread of the merging workgroup with at most this many partials loads all their
# indices, then all their keys: two round trips to memory instead of two a partial (else
# one partial at a time; 0: always). H100, wgpu-native, 2026-11-26, same run, the grid's
# split points where the merge ran in the pass, one at a time (better of two) -> batched
# (bench/results/argreduce-tally/h100-wgpu-tally-batch.json): float32 faster at 7 of 9
# ((128, 128, 128, 64) over (1, 2, 3) 210.9 -> 187.0 us, 80 -> 96% of copy; over (0, 1, 3)
# -6.6 us; +0.4 us at most), uint8 -1.3 to +0.9 us, int64 -0.6 to +0.9. With it, 4 or 8
# partials a thread (TALLY_MAX_PER_THREAD) gained nothing over 2 (uint8 2^27 over every
# axis 57.2-58.5 us either way), and float16 in the pass stayed slower (tile columns 58.0
# -> 66.5 us, h100-wgpu-tally-batch-f16.json).
TALLY_BATCH = 8
# Such plans splitting at most that much (a row of one output: 512 ways) where that
# leaves TALLY_CAP_MIN_THREADS running: off. H100 (h100-wgpu-tally3.json): uint8 2^27
# elements over every axis 58.0 -> 56.1 us, float32 2^24 38.0 -> 35.2; H200 (h200-wgpu-
# tally-grid-u1.json): the one-output reductions of 2^27 elements 4096 -> 512 ways slower,
# float32 +21 us, float16 +10, int64 +4.
TALLY_CAP_SPLIT = False
TALLY_CAP_MIN_THREADS = 1 << 17
# The merging workgroup waits for a partial index at most this many loads (it was stored
# before its workgroup counted in, so the first load sees it on every GPU measured; the
# bound keeps a broken driver from hanging the device).
TALLY_SPIN = 1 << 20
# The unpacked merge in the pass (8/16-bit keys whose indices fit under them in a word):
# each split stores its best's key with its index, (key << (32 - bits)) | the index's code,
# so that the merging workgroup reads a partial's key from its word instead of loading the
# element again: one dependent round trip to memory fewer at the end of the dispatch. H100,
# 2026-11-28 (third session), off / on twice in one process at the 9 uint8 points of the
# grid and rows grid whose plans it changes, ArgMax and ArgMin, GPU us
# (bench/results/argreduce-tally-codes/h100-{wgpu,dawn}-tcode-uint8.json): faster in 36 / 36
# pairs on wgpu-native, up to 1.4 us ((8192, 4096, 2) over axis 0 30.4 / 30.5 -> 29.9 /
# 30.1; (2, 256, 256, 1024) over (0, 1, 3) 52.0 -> 50.8 / 51.1; rows grid (5000, 6710) over
# axis 0 26.5 -> 25.3), 34 / 36 on Dawn (up to 1.6: (1500, 22369) over axis 0 29.5 -> 27.9;
# (128, 128, 128, 64) over (0, 2) 1.3-1.7 slower in one pair, faster in the other). Short
# runs merged this way instead of packed, and 16-bit keys unpacked in the pass (TALLY_BITS),
# did not gain (wgpu-native's float16 tile columns 10 us slower; README there).
TALLY_CODES = True

# NonZeroCoordinates. Measured on an H200 (wgpu-native, 2026-11-22), 8192 x 8192 float32:
# with 8192-element tiles the count pass read at 3.8 TB/s (70.7 us), and the scatter pass,
# latency-bound at low density, took 93 us at density 0.001; a rerun on a GPU running ~3x
# slow throughout (so relative figures only) favoured 16384-element tiles with one scan
# level (sparse scatter -31%, dense scatter -6%); 32768-element tiles sped the sparse
# scatter further but slowed density 1 by 16%. The current kernels (sparse-tile path,
# prefetched loads) are not yet measured there.
# Threads per workgroup of its three passes; a mask block is 32 x this many elements.
NONZERO_WG = 256
# Input words each thread of the count pass loads per tile (the tile is as many mask blocks
# as that takes: 16384 elements of 32-bit types, 8192 of 64-bit, 32768 of 16-bit, 65536
# of 8-bit). The scatter pass runs a workgroup per block whatever the tile, so that this
# moves only the count and scan passes: 32 / 64 / 128 within 5% at densities 0.1 to 1 on
# the H100 (bench/results/nonzero-scatter/h100-wgpu-setbits.json; 128 slowed uint8 at
# density 0.001, 0.023 -> 0.035 ms). The count pass issues a block's loads at a time;
# issuing a whole tile's (64 a thread) before using any was tried and dropped: float16/32
# and int64 within 2%, uint8 15% slower (density 0.5 rank 1 0.056 -> 0.065 ms;
# bench/results/nonzero-scatter/h100-{wgpu,dawn}-count-tile-loads.json).
NONZERO_TILE_LOADS = 64
# The scatter pass stages a block's rows in workgroup memory when there are at most this
# many (4 KiB; 0: never); denser blocks write in rounds of WG elements. Swept on the H100
# (wgpu-native, 2^24 elements, ranks 1-4, float16/float32/uint8/int64, torch in the same
# run: bench/results/nonzero-scatter/h100-wgpu-stage.json), points at >= 1.5x torch of 80:
# 2048 70 (its 8 KiB of workgroup memory cost occupancy: density 0.5 rank 1 float32 0.097
# vs 0.089 ms), 1024 77, 512 68, 0 68 (rounds everywhere: density 0.1 rank 4 float32
# 0.107 vs 0.090 ms staged). Rounds at every density but staging by each thread's own set
# bits, uncoalesced, lost 2-4x at density 0.5 (h100-wgpu-setbits.json).
NONZERO_STAGE = 1024
# The scatter's workgroup arrays in one (its column words, the scan, the stage and a sparse
# tile's list in turn at its start): 6 KiB instead of 10 a workgroup (WG 256, STAGE 1024),
# for coordinates of at most this many columns (0: never). H100 (the lent device gave one),
# wgpu-native, 2026-11-26, 2^24 elements, ten dtypes x five densities, GPU us, apart -> in
# one, same run (bench/results/nonzero-fused/h100-wgpu-pool-ab.json): rank 1 -0.1 to -3.9
# at every density, rank 4 -0.2 to -6.5 at densities 0-0.1 but +0.5 to +7.5 at 0.5 and
# +4.5 to +15.3 at 1 (more workgroups an SM writing four coordinates an element); the grids
# before and after (h100-wgpu-nonzero-{fused,pool}.json, two runs): ranks 2 and 3 -0.2 to
# -4.4 but rank 3 at density 1 +0.8 to +2.7. A STAGE of 512 in the pool (4 KiB) lost
# 3.5-12 us at density 0.1.
NONZERO_SCATTER_POOL_MAX_COORDS = 3
# The scatter stores a row of coordinates as vectors of 4 (or 2) words where its columns
# are a multiple of that, the rows contiguous and the bound offset whole vectors: one store
# a vector instead of one a word. H100, 2026-11-26, 2^24 elements, float32 / int32 / uint8
# x densities 0.001-1 x ranks 1-4, GPU us, words -> vectors, the better of two runs each,
# same process (bench/results/nonzero-vec/h100-{wgpu,dawn}-nz-vec.json): rank 4 at density
# 0.5 -6.3 to -7.7 (wgpu-native) / -2.8 to -4.4 (Dawn), at 1 -1.8 to -5.2 / -2.5 to -4.1, at
# 0.1 -1.3 to -1.7 / -1.2 to -1.6; rank 2 at 0.5 -2.1 to -2.4 / -1.2 to -1.7; ranks 1 and 3
# (word stores both ways) and the rest within +-1.1.
NONZERO_VEC_STORES = True
# The count's and the scatter's workgroup sums (a tile's count; the counts of the tiles
# before a scatter workgroup's) by subgroup sums and an atomic add each, two barriers, where
# the device has subgroups; the portable scan of log2(WG) barriers otherwise. H100,
# 2026-11-26, 2^24 elements, float32 / int32 / uint8 x densities 0.001-1 x ranks 1 and 4, GPU
# us, scan -> subgroup sums, the better of two runs each, same process (bench/results/
# nonzero-subgroup-sums/h100-{wgpu,dawn}-nz-sgsum.json): faster at 24 of 24 points on both
# (-0.3 to -5.4 us wgpu-native, -0.9 to -4.7 Dawn): float32 density 0.5 rank 1 80.8 -> 78.2
# us (1.50x -> 1.55x torch.nonzero), int32 density 0.1 rank 1 67.0 -> 64.2 (1.49x -> 1.55x),
# uint8 density 0.1 rank 4 51.2 -> 45.8.
NONZERO_SUBGROUP_SUMS = True
# ... and the scatter's block ranks (a prefix sum over the workgroup) by subgroup inclusive
# sums and the subgroups' totals, two barriers, where every subgroup of the workgroup is a
# run of threads in lane order of at least NONZERO_SUBGROUP_SCAN lanes (checked per
# workgroup; each thread adds up WG / lanes totals; the portable scan otherwise; 0: off),
# for coordinates of up to NONZERO_SUBGROUP_SCAN_MAX_COORDS columns. H100, 2026-11-26,
# 2^24 elements, float32 / int32 / uint8 x densities 0.1 / 0.5 / 1 x ranks 1 / 2 / 4, GPU
# us, scan -> subgroups, the better of two runs each, same process (bench/results/
# nonzero-subgroup-scan/h100-{wgpu,dawn}-nzscan.json): rank 1 faster at 9 / 9 (wgpu-native,
# -0.4 to -2.5 us; float32 density 0.5 78.3 -> 77.3) and 8 / 9 (Dawn, -0.4 to -2.0, uint8
# density 0.1 +0.1); rank 2 at densities 0.1 / 0.5 -0.2 to -2.0 on both, at density 1 +0.2 to
# +0.8; rank 4 -1.1 to +1.1 (9 of 18 slower).
NONZERO_SUBGROUP_SCAN = 8
NONZERO_SUBGROUP_SCAN_MAX_COORDS = 2
# Rounds per iteration of the scatter's dense loop (their workgroup-memory loads issued
# together). H100, wgpu-native, 36 points (bench/results/nonzero-scatter/h100-wgpu-
# unroll.json), float32 rank 1 density 0.5 / 1 and rank 4 density 1, GPU ms: 1 0.090 /
# 0.089 / 0.143, 4 0.083 / 0.082 / 0.145, 8 0.084 / 0.083 / 0.150, 32 0.087 / 0.088 / 0.150;
# points at >= 1.5x torch: 32 / 35 / 35 / 33 of 36.
NONZERO_ROUNDS_UNROLL = 4
# Values one workgroup of the scan pass sums (16 per thread): 4096 tiles (2^26 float32
# elements) in one dispatch; every further level costs a dispatch (about 6 us on the H200).
NONZERO_SCAN_SPAN = 4096
# Where one scan level holds every tile (1 to SCAN_SPAN tiles), the scatter pass sums the
# counts of the tiles before its own instead (each workgroup: SCAN_SPAN / WG loads a thread
# and a workgroup sum), and its first workgroup writes the count: no scan dispatch. H200,
# wgpu-native, 2026-11-26, the NonZero grid's ranks 1 and 4, ten dtypes x five densities,
# GPU us, scan -> fused, same run (bench/results/nonzero-fused/h200-wgpu-fused-ab1.json):
# median -1.2 us, 16- to 64-bit types 0 to -6 us everywhere (dense rank 4 -4 to -6), but
# 8-bit types +2 to +3 us at densities 0-0.1: their sparse tiles' workgroups, which had
# returned after reading the tile count, summed the counts too. They now return first:
# again (H100, same conditions, h100-wgpu-fused-ab2.json) median -1.6 us, 8-bit -0.2 to
# -6.9 but two points at density 0.1 (+2.4), 32-bit +0.2 to +2.3 at six points of densities
# 0.1-0.5 and -0.4 to -5.0 at the rest.
NONZERO_FUSED_SCAN = True
# TILE_LOADS swept on the H100 (wgpu-native, 2^24 elements, GPU ms, same run; `python -m
# bench.tuning_sweep`, bench/results/nonzero-tuning/h100-wgpu-sweep.json): density 1, rank
# 1, float16 / float32 / int64: 0.158 / 0.151 / 0.175 as set; 16: 0.138 / 0.153 / 0.175
# (and 0.029 -> 0.032 at density 0.001), 32: 0.134 / 0.153 / 0.175. Within 15%: what held
# the dense scatter at 26-30% of a copy then was its per-tile staging (a workgroup ranked
# and staged 2048 rows a round, tiles in sequence). Its replacement (a workgroup per block,
# rounds when dense) took density 1 float32 rank 1 / 4 from 0.151 / 0.391 to 0.085 / 0.143
# ms in one run (h100-wgpu-rounds-block-vs-tile.json: a workgroup per tile, blocks in
# sequence, was 0-20% slower).


# TopK1 (dmlgpu/topk.py). Measured on an H200 through wgpu-native (2026-11-22), float32
# 16384 x 16384 along rows, K = 1/8/64/1024: see the numbers below; the rest are starting
# points until measured.
# Threads per workgroup of the in-workgroup sort and select kernels, where the device allows
# it (else 256, WebGPU's core limit). 1024 x 16 keeps a row of 16384 in one workgroup's
# registers: K=8 took 3.0 ms against 3.6 ms at 512 threads (tile 8192, candidates + merge)
# and 5.3-9.9 ms at 256 threads (tile 4096), all before the early stop below.
TOPK_WG = 1024
# Elements each thread of the select kernel holds in registers (the tile is TOPK_WG x this,
# read once, coalesced, all loads in flight). 512 x 32 doubled the load phase (1.45 against
# 0.73 ms: register pressure). At most 32 (a thread's state is a bitmask).
TOPK_ELEMS_PER_THREAD = 16
# Digit width of the select kernel's radix passes (2048 bins: a float32 key in 3 passes).
# 8 bits measured within 10% (K=8: 2.87 against 3.17 ms; K=1024: equal); 11 bits leave
# smaller bins after the first pass, which the early stop below needs.
TOPK_RADIX_BITS = 11
# Rows up to this many elements are bitonic-sorted whole in workgroup memory (several short
# rows per workgroup); longer rows go to the radix select. 1M rows of 16, K=4: 0.36 ms
# (torch.topk 2.1 ms).
TOPK_SORT_MAX = 2048
# Entries each thread of that sort holds in registers for the stages of strides below it
# (1: every stage through workgroup memory, a barrier each). H100, 2^26 elements, K = 64 /
# 128 over rows of 256 / 512 / 1024, both axes, float16 and float32 (24 points, `python -m
# bench.tuning_sweep`, bench/results/topk-sort/h100-{wgpu,dawn}-sort-items.json), GPU ms
# for float32 rows of 512 K=128: 1 4.59, 2 4.46, 4 4.04, 8 5.02 (wgpu-native; Dawn 4.32 /
# - / 3.95 / 5.26); 4 was fastest at all 24 points, 8-13% below 1 (8 spills or conflicts).
# Not the gain the barrier count promised (45 -> 36 stages at 512): the sort is bound by
# instructions; one `better` test per pair instead of one each way then took float32 rows
# of 512 K=128 from 4.04 to 3.39 ms (1 item: 4.59 -> 4.13; h100-{wgpu,dawn}-one-test.json,
# the same points). Sorting runs of K (to a power of two) and halving them into the best
# instead of sorting whole rows: 3.39 -> 3.14 ms there, up to 24% at K=64 over rows of 1024,
# never slower (h100-{wgpu,dawn}-best-runs.json). Over rows of 512-1024 float16 it stays at
# 0.44-0.80x torch.topk (the last axis), float32 0.75-1.41x.
TOPK_SORT_ITEMS = 4
# Entries one workgroup of that sort takes (whole rows, several if short; at most the
# capacity above) and entries per thread (its invocations: the one over the other). H100,
# wgpu-native, rows of 256 / 512 / 1024, K = 64 / 128, both axes, float16 and float32 (24
# points, bench/results/topk-pack/h100-wgpu-sort-geometry.json, same run), time over
# torch.topk's, worst / geometric mean: 2048 entries at 2 a thread (a register block of 4
# left half the threads idle) 0.55 / 1.26x, 1024 at 2 0.57 / 1.33x, 1024 at 4 0.79 / 1.62x,
# 512 at 4 0.79 / 1.55x, 2048 at 4 0.79 / 1.57x; float16 rows of 512 K=128 2.49 -> 1.81 ms
# (torch 2.32), float32 3.14 -> 2.52 (torch 4.06). The worst, float16 rows of 1024 K=128
# (1.96 against 1.55 ms), lies between the surface's 2^9 and 2^11.
TOPK_SORT_GROUP = 1024
TOPK_SORT_PER_THREAD = 4
# Rows longer than this (and K <= n / 2) go to the one-workgroup-per-row kernels rather
# than the whole-row sort. H100, wgpu-native, 2^26 float32, sort -> threshold/wide (GPU ms,
# same run): rows of 2048 K=64 6.47 -> 0.86, K=128 6.47 -> 2.28, K=1024 6.51 -> 1.70 (axis
# 0: 6.65 -> 2.74, 6.68 -> 3.21, 7.25 -> 5.07); but rows of 512 K=128 4.57 -> 8.14 and of
# 256 K=128 3.76 -> 14.7 (one workgroup per short row): the sort keeps rows up to 1024.
TOPK_SORT_ROWS_MAX = 1024
# ...except K below this, over rows of at least TOPK_THRESHOLD_WG elements: a reduction of
# each row by one workgroup ("threshold" with K = 1) instead of sorting it whole. The H100
# surface (bench/results/surface/, 2026-11-23, wgpu-native): K=1 over 32768 rows of 2048
# float32 took 6.5 ms sorted (3% of a copy's bandwidth, 0.22x torch.topk). H200, same run,
# 2^26 float32 elements, sorted (1) -> reduced (2): rows of 2048 6.47 -> 0.132 ms (0.20x ->
# 9.80x torch; Dawn 0.132 ms), rows of 512 4.56 -> 0.393 ms (8.1x), the first axis of 512
# 4.68 -> 1.40 ms (3.3x), of 2048 6.65 -> 1.22 ms (2.4x); float16 alike (4.6-5.7x last
# axis, 1.5-2.0x first).
TOPK_SORT_MIN_K = 2
# 8/16-bit keys: the bitonic sorts' (key, index) entries one u32 each, key above the
# complemented index (ops/topk.py entries_pack), where every index of the row fits: a
# compare-exchange is a max and a min over half the workgroup memory. H100, wgpu-native,
# float16, 2^26 elements, GPU ms pairs -> packed (bench/results/topk-pack/, same run):
# "sort" rows of 512 K=128 3.168 -> 2.490 (first axis 3.464 -> 2.746); "threshold" rows of
# 2048 K=128 1.082 -> 1.017 (first axis 2.821 -> 2.711), of 8192 0.335 -> 0.319 (first axis
# 1.202 -> 1.121); "wide" first axis of 8192 K=1024 1.708 -> 1.546 (its fallback's sort);
# the other 28 points within 2%. Register blocks of 8 then lost again (2.490 -> 2.990).
TOPK_PACK_ENTRIES = True
# A strided axis whose strategy reads a row per workgroup ("sort", "select", "candidates",
# "threshold", "wide") first gathers its rows into contiguous scratch (a tiled transpose of
# 32 rows at a time, kernels/topk_gather.wgsl.j2): from TOPK_GATHER_MIN_ROWS rows, where
# that scratch is at most TOPK_GATHER_MAX_BYTES. H200, wgpu-native, 2^26 elements over the
# first axis, GPU ms strided -> gathered (bench/results/topk-gather/, same run): float16
# rows of 2048 K=128 2.63 -> 1.28, K=1024 4.74 -> 2.02; 8192 K=128 0.98 -> 0.57, K=1024
# 1.43 -> 0.70; 524288 K=1024 1.88 -> 0.62; rows of 512 K=128 ("sort") 2.72 -> 2.07;
# float32 alike (2.89 -> 1.36, 5.06 -> 2.24, ...; rows of 512 2.75 -> 2.86, the one loss).
# 8 rows of 2^23 K=1024 lost (float16 0.75 -> 1.27: a tile's rows three quarters empty).
TOPK_GATHER = True
TOPK_GATHER_MIN_ROWS = 32
TOPK_GATHER_MAX_BYTES = 1 << 30
# Strategy "regs" (ops/topk.py, kernels/topk_regs.wgsl.j2): K <= REGS_MAX_K over rows of at
# most REGS_MAX_N, each of a row's threads keeping its K best in registers (one compare and
# two selects a slot an element, no barrier), the row's lists merged through workgroup
# memory. The "rows" kernel's bound, second read and ranking cost most of its time on such
# rows (H200 surface, 2026-11-26, bench/results/surface/h200-wgpu-topk-20261126.json, time
# over a copy's: rows of 32 K = 1 / 2 / 8 2.7 / 2.4 / 5.3-7.4x float32, 2.6-2.9 / 3.9-6.2
# / 9.8-15.4x float16; rows of 128 K = 8 2.1-2.6x / 4.2-6.2x).
# H200, wgpu-native / Dawn, 2^26 elements, time over a copy's, "rows" -> "regs" (same run,
# bench/results/topk-regs/h200-{wgpu,dawn}-regs1.json, 8 stage words, K = 8 entries one at a
# time; wgpu-native's figures): last axis, float32 rows of 32 K = 1 / 2 / 8 2.73 / 2.39 /
# 7.37 -> 1.07 / 1.22 / 2.08, rows of 128 1.40 / 1.57 / 2.61 -> 1.09 / 1.22 / 2.13; float16
# rows of 32 2.97 / 4.18 / 13.9 -> 1.20 / 1.42 / 2.57, rows of 128 1.91 / 2.25 / 5.16 ->
# 1.19 / 1.37 / 2.22; first axis, float32 rows of 32 1.65 / 2.06 / 7.17 -> 0.73 / 0.85 /
# 1.46, float16 2.77 / 6.29 / 15.5 -> 1.35 / 1.57 / 2.83. Longer rows: at K = 8 "rows"
# wins from 512 (float32 last axis 1.39 against 2.36-2.68, float16 2.21 against 2.22-2.44),
# at K <= 2 "regs" up to 2048 but for float32 along the last axis at K = 2 (rows of 512 /
# 1024 / 2048 1.07 / 1.09 / 1.05 against 1.15-1.16, h200-wgpu-trunc.json; the grid of
# 2026-11-26b: rows of 2048 136 -> 150 us): there (key, position) pairs up to MAX_N.
# At K = 8 float32 rows of 256 along the last axis lost too ("rows" 1.80 against 2.69, the
# first axis 1.99 against 1.57; float16 3.09 / 3.84 against 2.24 / 2.31; h200-wgpu-regs2.json):
# Rows of 128 for the others; for 8/16-bit keys (one u32 with the position, K > 4 taken 8
# at a time, TOPK_REGS_BATCH_MIN_K) 1024 (h200-{wgpu,dawn}-pk-n.json, K = 5 / 8, "rows" ->
# "regs", wgpu-native: float16 rows of 512 last axis 1.93 / 2.18 -> 1.69 / 1.71, first axis
# 2.41 / 2.84 -> 1.83 / 1.85, rows of 1024 1.88-2.19 -> 1.70-1.83; uint8 rows of 512 2.75-7.35
# -> 2.26-2.29; rows of 2048 mixed: float16 last axis 1.58 / 1.68 -> 1.73 / 1.73, uint8 first
# axis 3.82 / 6.35 -> 2.57 / 2.63).
TOPK_REGS = True
TOPK_REGS_MAX_K = 8
TOPK_REGS_MAX_N = 128
TOPK_REGS_MAX_N_PK = 1024
TOPK_REGS_SMALL_K = 2
TOPK_REGS_MAX_N_SMALL_K = 2048
# Threads a workgroup, stage mode (WG) and direct mode (DIRECT_WG). H200, 2026-11-28 (eighth
# session), 2^26 elements, GPU us, 256 -> 128, twice in turns in one process, wgpu-native
# (bench/results/topk-regs-direct/h200-{wgpu,dawn}-swg.json): stage mode faster at every
# "regs" point on both (3-12%): float32 rows of 32 K = 1 / 8 117.5 -> 110.2 / 234.2 ->
# 225.1, rows of 128 K = 8 212.7 -> 196.9, rows of 2048 K = 1 109.3 -> 96.3; float16 rows of
# 32 K = 8 132.1 -> 128.6 (Dawn 128.0 -> 123.9), rows of 128 K = 2 76.8 -> 71.6 (64: within
# 2% of 128 but rows of 512 K = 8 97.4 -> 98.4 against 95.8, h200-*-xp4.json). Direct mode
# stays at 256 (128: float16 rows of 512 K = 2 52.3 -> 56.6). Earlier, both at 256: the
# units (words; elements of 8/16-bit rows off word boundaries) each thread loads into the
# stage per chunk (same run, 16 -> 8 / 32: last axis float32 rows of
# 32 K = 1 1.26 -> 1.07 / 1.77, float16 rows of 128 K = 8 2.51 -> 2.22 / 3.44; 8 better or
# even at every point but float32 rows of 512 and 2048 at K = 8, which "rows" takes); loads
# in flight in direct mode (h200-wgpu-regs2.json: 4 / 16 within 3% but the first axis,
# float32 rows of 32 K = 8 1.46 -> 1.54 / 1.68, float16 rows of 128 K = 8 2.45 -> 2.62 / 2.37)
TOPK_REGS_WG = 128
TOPK_REGS_DIRECT_WG = 256
TOPK_REGS_STAGE_WORDS = 8
TOPK_REGS_UNROLL = 8
# Direct mode with (key, position) entries in one u32 (pk) keeps UNROLL_PK loads in flight,
# then 8, then one at a time (bench/results/topk-regs-direct/h200-*-dx.json and -vk.json,
# GPU us, 8 -> 16 / 32 / 64, float16 first axis: rows of 32 K = 2 72.0 -> 68.1 / 66.9 /
# 145.8 (64: every element one at a time, before the 8-step), K = 8 162.8 -> 160.7 / 156.1 /
# 164.4, rows of 128 K = 8 110.7 -> 99.2 / 97.2 / 137.4, rows of 512 K = 8 94.7 -> 85.5 /
# 83.1 / 106.9; Dawn alike); pairs keep UNROLL (float32 rows of 32 K = 8 185.3 -> 212.5 /
# 291.8 at 16 / 32).
# A thread a row, rows side by side (direct) whose j-th outputs lie side by side (rows
# first), writes its K outputs from its registers: no round through workgroup memory, and
# the output pass's loops go (8/16-bit values: only where the thread's word of W rows fills
# a value word). Same run, GPU us off -> on (h200-{wgpu,dawn}-xp6.json, wgpu-native):
# float16 rows of 32 K = 2 64.9 -> 55.4, K = 8 156.2 -> 101.3 (with word lanes from rows of
# 32, below; Dawn 155.2 -> 99.5, 2.32 -> 1.50x a copy), rows of 128 K = 8 97.3 -> 83.4;
# float32 rows of 32 K = 8 185.5 -> 158.4 (Dawn 180.5 -> 152.8), rows of 128 174.1 -> 166.3;
# elsewhere within 1%.
TOPK_REGS_UNROLL_PK = 32
TOPK_REGS_REG_OUT = True
# ... and a thread a contiguous row (stage, a thread a row) writes its row's K outputs from
# its registers too: no round through workgroup memory (8/16-bit values only where a row's
# K lie side by side and fill whole value words). H200, 2026-11-29, 2^26 elements, last
# axis, GPU us off -> on, twice in turns in one process, wgpu-native (Dawn)
# (bench/results/topk-regs-stage-out/h200-{wgpu,dawn}-so{,2}.json): float16 rows of 32
# K = 2 / 4 / 8 79.9 / 103.9 / 129.0 -> 72.0 / 88.8 / 112.0 (75.4 / 98.9 / 123.2 -> 68.7 /
# 84.6 / 119.2), rows of 128 K = 8 101.2 -> 95.7 (98.3 -> 92.6); uint8 rows of 32 K = 4 / 8
# 75.6 / 99.4 -> 61.2 / 86.0 (73.6 / 96.2 -> 60.0 / 90.9); float32 rows of 32 K = 2 / 4
# 126.5 / 155.9 -> 123.2 / 150.1 (120.0 / 145.3 -> 118.0 / 143.1); K = 1 and rows of 512
# (several threads a row) within 1%. Slower, so not taken: float32 at K > 4 (truncated
# keys, selected again exactly) rows of 32 K = 8 223.7 -> 281.4 (210.3 -> 275.2), of 128
# 197.6 -> 198.8; 64-bit types (pairs of two-word keys) int64 rows of 32 K = 2 / 4 / 8
# 212.6 / 254.3 / 392.6 -> 214.2 / 278.9 / 488.8 (211.7 / 246.8 / 369.9 -> 214.5 / 271.6 /
# 491.3).
TOPK_REGS_REG_OUT_STAGE = True
# Contiguous rows that fill every chunk of the stage skip the checks against a row's end (a
# unit's load and an element's entry). H200, 2026-11-28 (seventh session), 2^26 elements,
# last axis, GPU us off -> on, twice in turns in one process, wgpu-native / Dawn
# (bench/results/topk-regs-whole/h200-{wgpu,dawn}-wh.json): faster at all 11 "regs" points
# on both, float16 rows of 32 K = 1 / 8 81.9 -> 70.2 / 145.7 -> 132.8 (2.20 -> 2.00-2.03x a
# copy; Dawn 141.6 -> 128.3, 2.11 -> 1.92x), rows of 512 K = 8 114.2 -> 97.9; float32 rows
# of 32 K = 1 / 8 133.5 -> 116.9 / 244.1 -> 234.2, rows of 512 K = 1 128.0 -> 110.9.
TOPK_REGS_WHOLE_CHUNKS = True
# 8/16-bit keys (a key and its position one u32) from this K: an 8-slot list takes 8
# elements at a time (a sorting network of 19 exchanges, a merge of 20: ~9 max/min an
# element against 16 for K = 8 one at a time). (One at a time, a max and a min a slot down
# the list beat comparing every slot at once and moving the lower ones down (a compare and
# two selects a slot, no chain): H200, wgpu-native, same conditions, float16 K = 8 rows of
# 32 / 128 / 256 2.84 / 2.44 / 2.50 -> 2.58 / 2.21 / 2.24x, h200-wgpu-regs2.json.) One at a
# time -> 8 at a time (h200-{wgpu,dawn}-batch.json, float16, time over a copy's, wgpu-native
# / Dawn): K = 8 last axis rows of 32 / 128 / 256 2.63 / 2.22 / 2.21 -> 2.19 / 1.81 / 1.74
# (Dawn 2.42 / 2.09 / 2.08 -> 2.12 / 1.71 / 1.67), first axis 2.84 / 2.38 / 2.31 -> 2.44 /
# 1.97 / 1.87; K = 5 within 3% either way (1.97-2.13 against 2.02-2.18). A thread's first
# group becomes its list without the merge (h200-{wgpu,dawn}-first.json against -lanes-
# final.json: float16 K = 8 rows of 32 2.28 -> 2.22x, Dawn 2.11 -> 2.06x; 0-6% elsewhere).
TOPK_REGS_BATCH_MIN_K = 5
# 8/16-bit outputs from rows of this many on take their values from the list's keys (the
# dtype table's key_raw; +-0.0 and NaN read again) instead of a second read of the input:
# float16 K = 8 first axis rows of 128 / 512 1.94 / 1.60 -> 1.69 / 1.48x a copy (Dawn 1.89 /
# 1.56 -> 1.67 / 1.45x), but rows of 32 2.50 -> 2.61x (Dawn 2.35 -> 2.55x, the last axis
# 2.06 -> 2.21x); K <= 2 within 3% (bench/results/topk-regs/h200-{wgpu,dawn}-keyval.json).
TOPK_REGS_VALUES_FROM_KEYS_MIN_N = 128
# float32 rows, contiguous, from this K (trunc): an entry is the key's top 32 - b bits and
# the position (b bits: n < 2^b), one u32 like the 8/16-bit ones (a max and a min a slot
# instead of a compare and four selects), one slot past K telling whether the top bits
# decided the set; where they did not (ties in the top bits) the row is selected again with
# whole keys. H200, same conditions, float32 along the last axis, time over a copy's, pairs
# -> trunc (bench/results/topk-regs/h200-{wgpu,dawn}-trunc.json, wgpu-native / Dawn): rows
# of 32 K = 5 / 8 1.62 / 2.08 -> 1.42 / 1.90 (Dawn 1.53 / 1.99 -> 1.38 / 1.80), rows of 128
# 1.62 / 2.14 -> 1.39 / 1.78 (1.53 / 2.03 -> 1.34 / 1.69); K <= 2 and longer rows lost
# (rows of 256 K = 1 1.11 -> 1.20, rows of 512 K = 8 2.68 -> 2.49 against "rows" 1.38), and
# rows side by side lost everywhere from rows of 128 (0.64 -> 0.94 at K = 1): there a row's
# reselection, one thread reading the row alone, holds up its neighbours. Rows whose top
# bits tie (every row reselected: seven levels of values, or values 64 ulps apart) took
# 1.3-1.7x the pairs' time (h200-wgpu-trunc-ties.json: wall time per call of 200 calls,
# rows of 128 K = 8 372 -> 509 us; rows half zeros 373 -> 313 us; trunc_ties.py beside it).
TOPK_REGS_TRUNC = True
TOPK_REGS_TRUNC_MIN_K = 5
# A row takes more threads (at most MAX_TPR, each at least MIN_ELEMS and K elements) until
# TARGET_THREADS run: a thread a row leaves the GPU short of threads below ~2^19 rows. (Same
# run, 2^20: the first axis of rows of 2048 K = 1 float32 0.82 -> 1.46, float16 1.53 ->
# 2.78; nowhere better by more than 1%.)
TOPK_REGS_TARGET_THREADS = 1 << 19
TOPK_REGS_MIN_ELEMS = 16
# At most MAX_TPR threads a row: fewer rows of 32768 (2048 of them) took 1.33 / 1.46 / 1.90x
# a copy at K = 1 / 2 / 8 with 32 threads a row, 1.11 / 1.27 / 1.68x with 128 (float16, last
# axis, H200, wgpu-native, bench/results/topk-regs/h200-wgpu-long.json); but batched lists
# of word lanes (8 slots, 8 elements at a time, 2 or 4 lists a thread) keep at least
# BATCH_MIN_ELEMS elements a thread: their merges cost (float16 rows of 8192 side by side
# K = 8 1.48 / 1.64 / 1.92x at 32 / 64 / 128 threads a row, h200-wgpu-lanes.json; along the
# last axis, float16 rows of 512 K = 8 lost 1.73 -> 1.79x with the bound, h200-wgpu-lanes-
# final.json: it keeps 16).
TOPK_REGS_MAX_TPR = 128
TOPK_REGS_BATCH_MIN_ELEMS = 256
# 8/16-bit rows side by side in whole words: a thread takes a word of 2 or 4 rows (a load
# and a lane_keys for them, a list each) rather than an element each.
TOPK_REGS_WORD_LANES = True
TOPK_REGS_LANE_ROWS = 32
# Batched lists (K > 4) take word lanes from rows of this length: 128 while the outputs went
# through workgroup memory (float16 first axis rows of 32 K = 8 169 -> 174 us); with the
# outputs from the registers (REG_OUT), 32 (same run, h200-*-xp6.json: 155.8 -> 101.3 us,
# Dawn 155.0 -> 99.5; from registers without word lanes nothing changes for 16-bit values).
TOPK_REGS_WORD_LANES_BATCH_MIN_N = 32
TOPK_REGS_LONG_WORDS = True
# Long contiguous 16-bit rows (same run, "rows" or "threshold" -> "regs", float16, last
# axis, K = 1 / 2 / 8): rows of 4096 1.63 / 1.46 / 1.48 -> 1.08 / 1.24 / 1.69, 8192 1.01 /
# 1.99 / 2.02 -> 1.10 / 1.25 / 1.71, 32768 0.92 / 1.74 / 1.76 -> 1.11 / 1.27 / 1.68 (Dawn
# alike): "regs" at K = 2 up to LONG_MAX_N, at K > 2 past TOPK_ROWS_MAX_N up to it, at K = 1
# up to LONG_K1_MAX_N. (Rows side by side stay: 1.49-1.62x through "rows", 1.50-3.38x
# through "regs"; 8-bit rows not measured there.)
TOPK_REGS_LONG_MAX_N = 32768
TOPK_REGS_LONG_K1_MAX_N = 4096
# Strategy "rows" (ops/topk.py, kernels/topk_rows.wgsl.j2): TPR threads per row, several
# rows per workgroup, the threshold kernel's bound (B = 2K buckets) and a second read from
# the cache. The issue's shapes (top-8 of 256, top-2 of 128) went to the whole-row sort at
# 3-7% of a copy's bandwidth (H100 surface, 2026-11-23). H100, wgpu-native, 2^26 float32,
# GPU ms sort (or threshold) -> rows, torch.topk's ratio in the same run after:
#   last axis:  rows of 32 K=8 1.86 -> 1.01 (4.2x), 128 K=2 3.06 -> 0.29 (11x), 256 K=8
#   -> 0.245 (13x), 512 K=8 4.56 -> 0.193 (18x), 2048 K=8 6.47 -> 0.156 (9.2x), K=32 6.48
#   -> 0.295 (4.8x); 128 K=32 3.06 -> 2.64 (1.3x: ranking 44 candidates of 128 costs c^2).
#   first axis: 2048 K=8 6.65 -> 0.374 (8.2x), 8192 K=8 1.46 (threshold) -> 0.40 (6.0x).
# A first version kept each thread's best L = K (to a power of two) sorted in registers,
# merged pairwise: K <= 2 as fast (0.10-0.16 ms), K = 8 0.36-0.67 ms (insertion chains
# diverge across a warp), K = 32 4.7-10.7 ms (spilled).
# Largest K it takes (K=128 over rows of 256/512/2048: 14.5/8.0/2.3 ms against the sort's
# 4.3/4.9/6.7: the c^2 ranking of ~180 candidates):
TOPK_ROWS_MAX_K = 32
# ...and up to this K over rows the whole-row sort would take (at most TOPK_SORT_ROWS_MAX)
# where they hold at least TOPK_ROWS_SORTED_MIN_N_PER_K x K. H100, wgpu-native, 2026-11-27,
# 2^25 elements, GPU us sort -> rows, same run, torch.topk's time over ours after
# (bench/results/topk-rows-k64/h100-wgpu-tk.json): float32 rows of 1000 K = 40 / 50 / 64
# 1252 -> 550 / 1253 -> 586 / 1252 -> 666 (torch 0.97x -> 2.21x / 2.08x / 1.83x), over the
# first axis 1388 -> 755 / 801 / 894; rows of 1024 alike; float16 rows of 1000 896 -> 529 /
# 567 / 649 (torch 0.79x -> 1.33x / 1.24x / 1.09x); but rows of 512 (n / K 8 to 12.8):
# float16 812 -> 956 / 1005 / 1166, float32 K = 64 1125 -> 1183; rows of 2048 and 4096
# ("threshold" at K > 32) within -6% to +29%, not taken.
TOPK_ROWS_SORTED_MAX_K = 64
TOPK_ROWS_SORTED_MIN_N_PER_K = 14
# ...but above K = SHORT_MAX_K rows shorter than MIN_N_PER_K x K go to the whole-row sort
# (its ~1.4 K candidates ranked against each other cost the rows kernel (1.4 K)^2 per row).
# H100, wgpu-native, 2^26 float16, GPU ms rows -> sort, last / first axis, float32 alike
# (bench/results/topk-lanes/h100-wgpu-short-sort.json): rows of 32 K = 16 2.83 / 2.49 ->
# 1.47 / 1.97, K = 8 0.99 / 1.02 -> 1.37 / 1.61; rows of 128 K = 32 2.63 / 3.16 -> 2.16 /
# 2.34, K = 16 0.87 / 0.95 -> 2.00 / 2.10; rows of 512 K = 32 0.78 -> 2.63.
TOPK_ROWS_SHORT_MAX_K = 8
TOPK_ROWS_MIN_N_PER_K = 8
# Rows at most this long (longer rows: "threshold", one workgroup per row)...
TOPK_ROWS_MAX_N = 4096
# ...or, over an outer axis (lanes along rows), any length with at least this many rows.
TOPK_ROWS_MIN_ROWS = 4096
# Longer rows, fewer than these many (contiguous rows / strided: an outer axis), are cut
# into chunks, each chunk's K best a candidate list for the "candidates" merge passes (K = 1
# over contiguous rows excepted: a reduction). H100, wgpu-native, 2^26 elements, GPU ms,
# same runs (`python -m bench.tuning_sweep`, bench/results/topk-chunks/h100-wgpu-
# sweep{1,2,3}.json), "threshold"/"candidates" -> chunks of 4096 (of 8192) at K = 2 / 8 / 32:
#   float32 128 rows of 524288: 0.384 / 0.384 / 0.389 -> 0.193 / 0.195 / 0.261 (0.225);
#   32 rows of 2^21: 0.56 / 0.67 / 0.89 -> 0.18 / 0.18 / 0.26 (0.22); 512 rows of 131072:
#   0.215 / 0.216 / 0.220 -> 0.221 / 0.233 / 0.329 (0.294), float16 alike; 2048 rows of
#   32768: 0.22 -> 0.37-0.53 (each row's merge takes a 1024-thread workgroup): 256.
#   first axis, float32, 2048 rows of 32768: 1.09 / 1.13 / 1.19 -> 0.44 / 0.50 / 0.58;
#   512 of 131072: 1.06 / 1.09 / 1.15 -> 0.30 / 0.31 / 0.37; 8 of 2^23: 0.86 / 0.94 / 1.10
#   -> 0.23 / 0.23 / 0.30; K = 1 (a reduction before) 0.53 -> 0.27, 1.52 -> 0.22: 4096
#   (from TOPK_ROWS_MIN_ROWS rows on, rows run whole).
#   K = 1 over contiguous rows is chunked below TOPK_THRESHOLD_LONG_MIN_ROWS rows only (from
#   there "threshold" takes it; below, "candidates"): GPU ms, "threshold"/"candidates" ->
#   chunks (bench/results/topk-packed/h100-{wgpu,dawn}-k1-chunks.json, float16, words): 128
#   rows of 524288 0.114 -> 0.123 (threshold kept), 32 rows of 2^21 0.194 -> 0.122, 8 rows
#   of 2^23 0.196 -> 0.123; Dawn alike.
TOPK_ROWS_CHUNK_BELOW_ROWS = 256
TOPK_ROWS_CHUNK_BELOW_ROWS_STRIDED = 4096
# Chunk length: TOPK_ROWS_CHUNK up to K = CHUNK_SMALL_K, above that CHUNK_PER_K x K (to a
# power of two) up to CHUNK_MAX: longer chunks rank fewer candidates per position. sweep3,
# chunks of 256 / 512 / 1024 K (float16, 8 rows of 2^23): K = 32 0.251 / 0.207 / 0.200,
# K = 128 0.367 / 0.293 / 0.278 (float32 over the first axis 0.431 / 0.318 / 0.264); K = 8,
# 4096 / 8192 positions: first axis 0.198 / 0.252, last axis 0.193 / 0.185.
TOPK_ROWS_CHUNK = 4096
TOPK_ROWS_CHUNK_SMALL_K = 8
TOPK_ROWS_CHUNK_PER_K = 1024
# Over an outer axis, K <= CHUNK_OUTER_MAX_K, at least CHUNK_OUTER_MIN_ROWS rows: chunks
# CHUNK_OUTER_DIV times shorter (twice the tasks, a chunk's K best cheap to merge). H200,
# 2026-11-29, first axis, 2^26 elements, GPU us 4096 -> 2048 positions, twice in turns in
# one process, wgpu-native (Dawn) (bench/results/topk-rows-chunk/h200-{wgpu,dawn}-outer.json):
# float16 rows of 32768 to 2^21 K = 1 103.5-108.2 -> 98.2-102.1 (103.5-108.3 -> 97.5-100.9),
# K = 2 116.6-118.0 -> 110.4-111.6 (117.4-118.2 -> 109.9-111.4); float32 K = 1 151.7-160.2 ->
# 140.5-142.2 (152.9-158.7 -> 141.7-143.7), K = 2 165.3-221.4 -> 154.6-210.8 (167.2-226.2 ->
# 156.6-215.8): every point faster. K = 8 was mixed in the eighth session's one pass
# (h200-*-xp7.json: float16 rows of 524288 131.8 -> 133.8 / 131.0 -> 129.8, float32 176.0 ->
# 169.6), and 8 rows of 2^23 slower at K = 2 (float16 110.7 -> 131.0): K up to 2, from 32
# rows.
TOPK_ROWS_CHUNK_OUTER_DIV = 2
TOPK_ROWS_CHUNK_OUTER_MAX_K = 2
TOPK_ROWS_CHUNK_OUTER_MIN_ROWS = 32
# Largest chunk, and largest K the chunks (and rows of lanes at least CHUNK_PER_K x K long)
# take: above TOPK_ROWS_MAX_K a long chunk ranks its ~1.4 K candidates at well under a
# comparison per position. K = 128, "threshold"/"candidates" -> chunks of 32768 (of 16384),
# GPU ms, sweep2: float32 32 rows of 2^21 1.04 -> 0.34 (0.46), first axis 1.69 -> 0.44
# (0.56); 512 rows of 131072, first axis, 1.29 -> 0.51 (0.63); float16 8 rows of 2^23 1.04
# -> 0.37 (0.50), first axis of 2048 rows 1.14 -> 0.39 (0.88); chunks of 131072: sweep3.
TOPK_ROWS_CHUNK_MAX = 131072
# The chunks' merge: a workgroup per row of just enough threads for its lists (at least
# this many) rather than TOPK_WG (1024 threads radix-selecting a tile of 16384 for 64
# entries: 2048 rows of 32768 along the first axis took 2.8x a copy at K = 2 against 1.5x at
# K = 1). H200, first axis, time over a copy's, merge of 1024 / 256 / 64 threads at least
# (bench/results/topk-word-lanes/h200-wgpu-merge.json, with the word lanes and 512 above):
# float32 rows of 32768 K = 2 / 8 2.78 / 3.17 -> 2.26 / 2.56 -> 1.76 / 1.91, 131072 K = 32
# 2.06 -> 1.83 -> 1.66; float16 32768 K = 8 5.54 -> 2.47 -> 2.28; 8 to 128 rows (the
# last axis's merges too) within 3%. 64 (K <= 8 within 2x a copy, 96 points: 22 before
# the three changes, 45 after; Dawn 22 -> 45, h200-dawn-new.json).
TOPK_MERGE_MIN_WG = 64
TOPK_ROWS_CHUNK_MAX_K = 128
# Elements per thread that the row's thread count aims at (TPR = n / this, to a power of
# two, at least 2K). H100, 2^26 float32, K = 1 / 8, 8 -> 32 -> 64 (same runs): rows of 512
# 0.251 / 0.260 -> 0.153 / 0.194 -> 0.153 / 0.194 ms, of 2048 0.356 / 0.211 -> 0.154 /
# 0.156 -> 0.185 / 0.195; rows of 128 0.241 / 0.354 -> 0.252 / 0.346 -> 0.452 / 0.346.
TOPK_ROWS_ELEMS = 32
# Threads per workgroup (fewer where workgroup memory is short; over an outer axis more,
# up to the device's limit, for 2K buckets beside the rows a sector holds).
TOPK_ROWS_WG = 256
# Loads in flight per thread. Swept 4 / 8 / 16 over the first axis (H100, wgpu-native, 2^26
# elements, rows of 512-2^23, bench/results/topk-lanes/h100-wgpu-rows-unroll.json): 16 is up
# to 12% faster at K = 1 (float16 rows of 8192 0.225 -> 0.198 ms) and up to 21% slower at K
# = 8 (rows of 524288 0.196 -> 0.237); 4 slower everywhere: 8.
TOPK_ROWS_UNROLL = 8
# 8/16-bit contiguous rows on word boundaries: "rows" (at least a word per bucket) and
# "threshold" (at least a word per thread) read whole words, one lane_keys per word, rather
# than an element (a load, a shift, a key) at a time. float16 took float32's time per
# element (2^26 elements, rows of 8192, K = 8: 0.201 against 0.196 ms, 2.1x a copy of its
# bytes). H100, float16, 2^26 elements, last axis, elements -> words, GPU ms, same run
# (bench/results/topk-packed/h100-{wgpu,dawn}-packed.json, 47 points, every one right):
# rows of 512 K = 1 / 8 0.174 / 0.215 -> 0.105 / 0.151; 2048 K = 8 0.179 -> 0.114; 8192
# K = 2 / 32 / 128 0.200 / 0.236 / 0.398 -> 0.137 / 0.175 / 0.335; 524288 K = 1 0.254 ->
# 0.113; 2^23 K = 8 / 128 0.193 / 0.277 -> 0.130 / 0.177; no point slower (rows of 32-128,
# K = 8-32, ranking-bound: 2-8%). Dawn alike. "wide" reads words too (at least a word per
# bucket): float16 K = 1024 (h100-wgpu-wide-packed.json) rows of 8192 0.432 -> 0.376 ms
# (1.79x -> 2.07x torch), 32768 0.266 -> 0.204, 2^19-2^23 (chunks) 0.435-0.479 -> 0.373-0.417.
TOPK_PACKED = True
# Over an outer axis, lanes cover this many bytes of consecutive rows (a 32-byte sector)...
TOPK_ROWS_LANE_BYTES = 32
# ...and rows from LANE_WIDE_N long LANE_ROWS rows (at most LANE_MAX_BYTES), when there are
# as many. H100, wgpu-native, 2^26 elements, first axis, K = 1 / 2 / 8, GPU ms at lanes of
# 32 / 64 / 128 bytes (bench/results/topk-lanes/h100-wgpu-lanes.json): float32 rows of 2048
# 0.372 / 0.245 / 0.194 (K = 1), 8192 0.401 / 0.238 / 0.196 (K = 8), 512 0.195 / 0.196 /
# 0.164; float16 rows of 512 0.193 / 0.158 / 0.156, 2048 0.211 / 0.176 / 0.189 (K = 8),
# 32768 0.383 / 0.354 / 0.395 (K = 2): 32 rows either way (128 bytes of float32, 64 of
# float16). Rows of 32 and 128 at K = 8 were slower with more lanes (float16 rows of 32
# 1.015 / 1.149 / 1.434): 32 bytes there. The first-axis grid, 32 bytes -> these numbers
# (h100-wgpu-lanes-grid.json, 94 points, K = 1-128): 44 faster by over 5%, one slower
# (float32 rows of 512, K = 32: 0.822 -> 0.947 ms).
TOPK_ROWS_LANE_ROWS = 32
# Rows side by side read a word of rows at a time (8/16-bit types, rows of whole words): a
# thread takes the word's 2 or 4 rows, one load and one lane_keys for them, rather than a
# load, a shift and a key per element (float16 over the first axis took float32's time per
# element). H200, wgpu-native, float16, first axis, 2^26 elements, GPU us elements -> words
# (bench/results/topk-word-lanes/h200-wgpu-words.json): rows of 512 K = 1 159 -> 120, 2048
# K = 8 175 -> 130, 8192 K = 1 224 -> 139, 524288 K = 8 194 -> 136; slower: rows of 32 K = 2
# 300 -> 416, 131072 K = 128 254 -> 276 (a thread's 2 rows of candidates).
TOPK_ROWS_WORD_LANES = True
# With word lanes, rows side by side from this many bytes (8 float16 rows: 16 bytes, half
# a sector, each lane a word): 8 rows of 2^23 along the first axis K = 1 / 8 190 / 198 ->
# 101 / 124 us (same file, "words-lane16").
TOPK_ROWS_WORD_LANE_BYTES = 16
# Threads a workgroup, at least, for rows side by side of TOPK_ROWS_LANE_WIDE_N or more (more
# threads a row: at 256, 8192 rows of 8192 K = 1 ran 8 threads a row, 65536 in all). H200,
# first axis, 2^26, time over a copy's at 256 / 512 / 1024 (h200-wgpu-threads.json): float16
# rows of 8192 K = 1 2.07 / 1.49 / 1.56, 2048 K = 1 1.85 / 1.64 / 1.91, 2^23 K = 1 1.48 /
# 1.67 / 3.53; float32 8192 K = 1 1.65 / 1.18 / 1.12: 512 (K <= 8 within 2x a copy, 96
# points: 33 / 40 / 36).
TOPK_ROWS_LANE_WIDE_WG = 512
TOPK_ROWS_LANE_MAX_BYTES = 128
TOPK_ROWS_LANE_WIDE_N = 512
# Candidate slots per row: this many per K (to a power of two; 1.4 K expected for distinct
# keys), at least MIN_CAP; more candidates (ties at T) take the kernel's K-round fallback.
TOPK_ROWS_CAP_PER_K = 4
TOPK_ROWS_MIN_CAP = 32
# ...but a workgroup's slots take at most this many bytes (per 256 threads) where 2K slots
# per row fit in it:
# (H100, wgpu-native, 2^26 float32 in rows of 32, K = 1, 128 rows per workgroup) 32 slots
# per row (32 KiB) took 0.68 ms, against 0.12 ms for a kernel without slots. Per 256 threads:
# over an outer axis of float16 (16 rows side by side, 1024 threads), K = 32 had 2K slots
# for ~44 expected candidates plus float16's ties; a row past them sent the workgroup into
# the K rounds: 8192 rows of 8192 1.38 ms against 0.24 at K = 8 (bench/results/topk-chunks).
TOPK_ROWS_CAND_BYTES = 8192
# Most survivors one workgroup sorts (K above it, or above what workgroup memory holds, goes
# to the multi-dispatch radix strategy). 4096 pairs = 32 KiB.
TOPK_SELECT_CAP = 4096
# The select kernel that redoes the rows (chunks) a "threshold" or "wide" kernel flagged
# takes them in blocks of up to 1024 a workgroup, with at least this many workgroups (so
# that where every row is flagged, the GPU still runs about as many as fit at once).
# Launched a workgroup a row as before, its flag test alone took 22 us over 4096 chunks and
# 152 us over 32768 rows of 2048 (H200, wgpu-native, 2026-11-26, `python -m bench.steps
# wgpu --topk`: 15% of float16 K = 128 over rows of 2048, 1013 us in all); in blocks of 32
# (at least 1024 workgroups) 9.7 / 10.2 us, of up to 1024 (at least 256) 6.6 / 8.6 us.
TOPK_GUARD_MIN_GROUPS = 256
# The select kernel's radix passes stop once the selected elements plus the whole bin of
# the K-th fit a sort of max(TOPK_SORT_MIN, TOPK_SORT_SLACK x K (to a power of two)): the
# passes cost about 2 ms of the 3.0 ms of K=8 (each a histogram, a search and 5 barriers)
# while a bitonic sort of 64 costs about 0.25 ms. Not yet measured with the early stop.
TOPK_SORT_SLACK = 2
TOPK_SORT_MIN = 64
# Strategy "threshold" (K <= TOPK_THRESHOLD_MAX_K): threads per workgroup (one row each),
# loads in flight per thread (8 as for the argmax rows, tuning.REDUCE_UNROLL's sweep), the
# candidates kept (expected about -B ln(1 - K/B) for distinct keys with B buckets: 9 for
# K = 8, 89 for K = 64, 177 for K = 128, so 512 leaves room for ties), and the fewest rows
# for which it replaces "candidates" on rows longer than a tile (one workgroup per row
# needs many rows to fill the GPU).
# H100, 16384x16384 float32, one bucket per thread (B = 256): K = 8 1.15 ms, K = 64 1.24 ms
# (the "select" kernel: 2.52 and 3.03 ms); with 512 threads 3.03 and 3.12 ms, as ranking
# the B thread bests costs B^2: hence B = 2K buckets (at least TOPK_THRESHOLD_MIN_BUCKETS).
TOPK_THRESHOLD_WG = 256
TOPK_THRESHOLD_UNROLL = 8
TOPK_THRESHOLD_MAX_K = 128
TOPK_THRESHOLD_MIN_BUCKETS = 32
TOPK_THRESHOLD_CAP = 512
# From this many buckets (K > 64), T comes from a bitonic sort of the B bucket bests (B
# log^2 B compare-exchanges) rather than ranking each against all (B^2). H100, 2^26
# elements, GPU ms rank -> sort (bench/results/topk-threshold/h100-{wgpu,dawn}-sort-t.json),
# K=128: rows of 2048 float32 2.28 -> 1.35 (Dawn 1.49 -> 1.32), float16 2.30 -> 1.37; rows
# of 8192 0.69 -> 0.45; rows of 32768 0.32 -> 0.27; the first axis of 2048 3.31 -> 2.92
# (the first axis of 8192 float32 read 1.25 -> 1.51, but a sweep's first configuration runs
# beside torch's timing and reads high there: 1.55 against 1.24 for the same code in the
# next sweep). K = 8 / 32 (32 / 64 buckets) 0-8% slower sorted: ranked.
TOPK_THRESHOLD_SORT_T_MIN_BUCKETS = 256
# From this K, the candidates (about 1.39 K of them) are bitonic-sorted rather than each
# ranked against all. H100, GPU ms ranked -> sorted (h100-{wgpu,dawn}-sort-cands.json,
# configurations after the first): K=128 rows of 2048 float32 1.35 -> 1.11 (Dawn 1.32 ->
# 1.05), rows of 8192 0.45 -> 0.38, the first axis of 2048 3.19 -> 3.00; K=64 rows of 2048
# 0.86 -> 1.00, K=32 rows of 8192 0.23 -> 0.26: ranked up to 64.
TOPK_THRESHOLD_SORT_CANDS_MIN_K = 65
# Rows longer than the select kernel's tile take "wide" whole, a workgroup each, from this
# many rows; fewer go per chunk, their lists through merge passes. H200, wgpu-native,
# 2026-11-26, 2^26 elements, K = 1024, time over a copy's, 1024 -> 256 -> 64 -> 16
# (bench/results/topk-wide-rows/h200-wgpu-minrows.json, `python -m bench.tuning_sweep`):
# float16 512 rows of 131072 5.90 -> 2.24 -> 2.23 -> 2.28 (the merge of 8 lists a row took
# 174 of 396 us), 128 rows of 524288 5.23 -> 5.23 -> 3.22 -> 3.27, 32 rows of 2^21 5.24 ->
# 5.28 -> 5.24 -> 10.39 (a workgroup per row leaves most of the GPU idle); float32 alike
# (3.48 -> 1.61, 3.14 -> 2.80, 3.16 -> 9.86), the first axis alike; K = 128 unchanged.
TOPK_THRESHOLD_MIN_ROWS = 64
# ...but "threshold" itself (K <= 128) takes rows longer than a tile from this many rows:
# H100, wgpu-native, 2^26 float32, K = 2 / 8 / 32 / 128, "candidates" -> "threshold" (GPU
# ms, same run): 512 rows of 131072 0.60 / 0.72 / 0.96 / 1.10 -> 0.215 / 0.215 / 0.220 /
# 0.250 (4.2x torch.topk); 128 rows of 524288 0.56 / 0.67 / 0.89 / 1.04 -> 0.38 / 0.38 /
# 0.39 / 0.41 (float16 0.58-1.00 -> 0.44-0.46). (Below it a workgroup per row leaves most
# of the GPU idle: 32 rows stay with "candidates".) The "wide" kernel still runs per
# chunk below TOPK_THRESHOLD_MIN_ROWS.
TOPK_THRESHOLD_LONG_MIN_ROWS = 64
# Strategy "wide" (TOPK_THRESHOLD_MAX_K < K, K to a power of two sort slots, at most
# TOPK_WIDE_MAX_SLOTS of them; above that "select"): threads per workgroup (one row each),
# loads in flight per thread (8: 5 workgroups per SM, see below), buckets per K (B =
# this x K, to a power of two), candidate slots as a percentage of those expected for
# distinct keys, -B ln(1 - K/B) (1.39 K for B = 2K; in 3000 rows of 16384 normal floats
# at K = 1024: mean 1360, at most 1435, against 1568 slots: more and the row falls back),
# the digit width of its radix selects (256 bins), and the sort's entries per thread.
# Measured on an H200 (2026-11-22), float32 16384 x 16384 along rows, GPU ms:
# - The first "wide" (2K sort slots, candidates by count, scan and a third read, a
#   2048-bin histogram), at 256 / 512 threads ("select" 3.75 / 4.16 / 5.27 at K =
#   256 / 512 / 1024): K = 256 2.29 / 2.29, K = 512 3.49 / 3.60, K = 1024 8.13 / 6.78.
#   Stopped after its phases (K = 1024): 0.63 ms up to T, 0.89 after the count read, 1.08
#   after the scan, 3.45 after the gather. The same kernel stopped after the scan with
#   4 / 8 / 16 / 24 KiB more workgroup memory: 1.26 / 1.69 / 3.05 / 3.05 ms: workgroup
#   memory, not threads, bounds how many workgroups an SM runs at once there.
# - This one (slots for the candidates, then exactly K sorted): K = 256 / 512 / 1024
#   1.16 / 1.63-1.67 / 2.58-2.61 ms, the same through Dawn (1.21 / 1.62 / 2.55); at K =
#   1024: 0.35 ms after the first read, 0.51 after T, 1.31 after the gather, 1.73 after the
#   exact K, so the sort of 1024 takes 0.85. Sort entries per thread 4 / 8 / 16: 2.93 /
#   3.18 / 4.12 ms (before the one-comparison exchange); 512 threads 2.76; B = 4K with
#   1248 slots (11 KiB) 2.60, B = 8K 5.24 (no longer fits: "select"); loads 4 or 16 per
#   batch: 2.61 / 2.58; a thread's equal digits counted with one atomic: 2.63; the next
#   batch's loads issued before the candidate stores: 2.61; the outputs' values not read
#   back from the input (wrong values, for timing): 2.62. The sort alone (each row's first
#   1024 elements loaded and sorted by this kernel's phase 5): 1.01 ms with C slots, 0.94
#   with N: a separate sort kernel with less workgroup memory would not gain.
# - With subgroup lanes (H200, 32 lanes, 2026-11-22; old = without): K = 256 / 512 / 1024
#   1.06 / 1.49 / 1.94 ms (old 1.22 / 1.54 / 2.64; torch.topk 3.54 at K = 256, 3.71 at
#   1024). At K = 1024: 0.48 ms after T, 1.09 after the gather, 1.26 after the exact K
#   (the sort of 1024: 0.68 ms, was 0.85). Lane bits 4 / 3: 1.96 / 2.00; 16 loads per
#   batch 1.89, 4: 1.94; 512 threads 2.63; B = 4K 1.92; slots at 100% of the expected
#   candidates 1.97; E = 8 2.32; the gather read forwards 1.95 (backwards 1.94). The whole
#   row held in registers (64 per thread, one read): 3.13 ms alone, 1.92 with lanes.
#   A window's register bits at its bottom (fewer shuffles): 1.83 ms (K = 512 1.44, was
#   1.53). A bound sampled from the row's first batch (T0 of rank r there, candidates
#   gathered in the first read, steps 2-3 redone only where they are not K to C): 2.31
#   ms, 1.96 on rows sorted up (all redone; 1.51 without the sample): selecting T0 among
#   4096 sampled keys costs more than the second read saves. The gather (step 3) stopped
#   after: 1.03 ms; without its slot stores 0.79; counting only (one atomic per thread)
#   0.79: the second read takes 0.31 ms, the stores (divergent, a few lanes each) 0.24.
#   Stores without branches (the others' to a spare slot): 1.04 (whole: 1.87).
#   Slot indices clamped to C - 1 instead of tested (past C the row falls back anyway):
#   1.79 ms; the shuffle stages' direction taken once per window: 1.74 (2.14x torch; Dawn
#   1.81, 2.05x). Where the sort's time goes (1.83 ms then; the sort 0.64): key-only
#   comparisons (wrong on ties) 1.73, no index shuffles 1.74, no direction tests 1.78.
#   Occupancy: 4 KiB more workgroup memory 2.18 ms, 1 or 2 KiB more 1.84, 1-8 KiB less
#   1.80-1.86: the memory is just under a step (registers or threads bound below it).
#   Histogram atomics spread over the bins (wrong counts, timing): the T search 0.473 ms
#   against 0.478, the exact K slower: contention on the first digit does not cost.
#   First read alone 0.37 ms, with T 0.48.
#   K = 256 / 512 / 1024 now 1.03 / 1.38 / 1.74 ms. The gather's first batch (the row's
#   last) taken from the first read's registers instead of read again: 1.04 / 1.50 / 1.76
#   ms (16 more registers live through step 2 cost more than the reads they save).
# - Occupancy, counted by the kernel itself (workgroups started and not yet ended; H200,
#   wgpu-native, K = 1024): 3 per SM at 1.74 ms, bound by workgroup memory (13.6 KiB; 4
#   fit at 11.3 KiB, not at 12.3; registers allow 4 at 16 loads per batch, 5 at 8).
#   Starting the first wave's workgroups staggered (0 to 3 quarter rows late) only added
#   the delay: the phases already overlap as far as occupancy lets them.
#   The candidate slots holding positions only (keys read again in step 4, from the
#   cache), 2048 words instead of 3136: 4 per SM, 1.65 ms; one atomic per thread instead
#   of per subgroup (Dawn lost candidates with the subgroup's: see the kernel) 1.62; 8
#   loads per batch, 5 per SM: 1.53 ms = 2.44x torch (Dawn 1.62, 2.31x). Now stopped after
#   the first read 0.36 ms, after T 0.47, after the gather 0.82: the exact K and the sort
#   take 0.70. Tried: E = 8 1.66, 4 lane bits 1.54, B = 4K 1.74 (3 per SM: registers),
#   slots at 130% 1.55; the exact K's key digits from
#   the top bit of (key - T) among the candidates (a run-time loop of passes, one fewer on
#   normal floats): 1.57 (Dawn 1.60 against 1.62). With workgroup memory shrunk to nothing
#   (wrong results, occupancy only) registers still allow 5 per SM, with 5 or 4 candidate
#   registers per thread in step 4 (slots at 80 or 70%) and with E = 8 alike: the register
#   peak is not step 4's nor the sort's. K = 256 / 512 / 1024 now 0.92 / 1.26 / 1.53 ms
#   (torch.topk 3.59 / 3.62 / 3.76 in the same runs: 3.9x / 2.9x / 2.5x).
#   1 x 2^24 float32, K = 1000 (H200, same run as torch): the "candidates" strategy (the
#   select kernel per chunk of 16384, 3 merge passes) 0.48 ms = 0.78x torch; "wide" per
#   chunk instead, the same merges: 0.256 ms = 1.46x (Dawn 0.259, 1.43x).
TOPK_WIDE_WG = 256
# K from this many over rows of TOPK_THRESHOLD_WG to TOPK_WIDE_MAX_N take "wide" (a
# workgroup per row, its sorts by subgroup shuffles, its ranks by bins) instead of the
# whole-row sort (rows up to TOPK_SORT_ROWS_MAX) or "threshold" (K <= 128); longer rows
# keep "threshold". H200, wgpu-native, 2026-11-26, 2^26 elements, K = 128, time over a
# copy's, sort or threshold -> wide (bench/results/topk-wide-rows/h200-wgpu-k128.json):
# float16 rows of 512 26.2 -> 12.1 (sort), 2048 12.3 -> 4.3, 8192 4.0 -> 2.3, 131072 1.80
# -> 2.75 (threshold kept there); the first axis 30.2 -> 20.8, 16.3 -> 8.7, 7.7 -> 6.1;
# float32 alike (19.3 -> 7.8, 7.0 -> 2.7, 2.5 -> 1.7, 1.39 -> 2.45). With it (h200-wgpu-
# wide-first.json, same run as torch): every K = 128 point from rows of 512 to 32768 at
# 2.7x torch.topk or more; rows of 32768 threshold / wide float16 2.11 / 2.14, float32
# 1.54 / 1.74 (so TOPK_WIDE_MAX_N stays below them).
TOPK_WIDE_FROM_K = 65
TOPK_WIDE_MAX_N = 16384
# A chunked "wide" (fewer rows than TOPK_THRESHOLD_MIN_ROWS, longer than a tile) takes
# chunks of several tiles while at least this many chunks remain (0: a tile each): fewer
# candidate lists, fewer merge passes. H200, wgpu-native, 2026-11-26, 2^26 elements, K =
# 1024, time over a copy's, a tile (16384) each -> 128 / 256 / 512 / 1024 chunks at least
# (bench/results/topk-wide-rows/h200-wgpu-wide-chunks.json): float16 32 rows of 2^21 5.18
# -> 2.95 / 2.95 / 2.82 / 3.49, 8 rows of 2^23 5.79 -> 3.58 / 3.58 / 3.43 / 3.51, the first
# axis of 2^23 10.90 -> 5.42 / 5.36 / 5.43 / 6.36; float32 3.14 -> 2.22 / 2.24 / 1.96 /
# 2.34, 3.46 -> 2.56 / 2.59 / 2.29 / 2.34, 9.60 -> 4.72 / 4.79 / 4.94 / 6.11.
TOPK_WIDE_CHUNKS = 512
# ...its workgroups taking the rows' first chunks, then their second ones (1), rather than a
# row's chunks in turn (0): rows along an outer axis interleave, so a chunk's workgroups read
# the same lines of memory together. H100, 2026-11-26, same run, time over a copy's, row ->
# chunk major (bench/results/topk-chunks/h100-{wgpu,dawn}-chunk-major.json): 8 rows of 2^23
# along the first axis, K = 1024, float16 4.38 -> 3.44 (1.97x -> 2.50x torch.topk; Dawn
# 4.26 -> 3.37), float32 4.67 -> 2.79 (Dawn 4.64 -> 2.90); the wide kernel alone (bench.steps)
# 300 us against 144 for the same rows along the last axis before. Rows of 2^21 and 2^23
# along either axis, K = 128 or 1024, otherwise within 1%.
TOPK_WIDE_CHUNK_MAJOR = 1
TOPK_WIDE_UNROLL = 8
TOPK_WIDE_BUCKETS = 2
TOPK_WIDE_CAP_PCT = 110
TOPK_WIDE_RADIX_BITS = 8
TOPK_WIDE_SORT_ENTRIES = 4
TOPK_WIDE_MAX_SLOTS = 1024
# The "wide" kernel ranks its candidates within bins (a counting sort over bins of key - T,
# then each candidate's rank among its bin's, for the bins that start below K) where those
# bins' sum of (candidates in it)^2 is at most RANK_COST x K and they hold at most N +
# STAGE_MARGIN candidates (a multiple of 32: the slots' swizzle); otherwise the exact radix
# select and the bitonic sort take the row. Measured on an H200 (2026-11-23, wgpu-native,
# 16384 x 16384 normal float32, K = 1024, torch.topk 3.72-3.76 ms in the same runs):
# - Ranks of the K survivors of the radix select instead of the bitonic sort (256 linear
#   bins): 1.53 -> 1.26 ms (2.95x torch); every candidate ranked, without the radix select:
#   1.19 ms (3.08x); log-linear bins (4 octaves): 1.17 ms; 512 bins: 1.11 ms = 3.36x (Dawn
#   1.21, 3.09x). The same code with RANK_COST = 0 (every row by the radix select and the
#   bitonic sort): 1.58-1.63 ms.
# - Stopped after each phase (256 log-linear bins, 1.17 ms in all): the gather 0.86 ms, the
#   bins' counts and first ranks 0.93, the staging 0.96; the ranks within the bins 0.15 ms.
# - RANK_COST 8: 1.62 ms (most rows above it: simulated normal rows cost 7.9 per K with 256
#   log-linear bins, 11.2 with linear ones). STAGE_MARGIN 32: 1.108 against 1.108 ms for
#   64 (512 bins), 1.176 against 1.173 (256 log-linear); 128: 1.191 against 1.192 (256
#   linear). Simulated: the staged bins pass N by 21 at most in 200 normal rows.
#   RANK_BINS 256 / 1024: 1.15 / 1.19 ms against 1.11 (1024: 3 KiB more workgroup memory).
#   OCTAVES 1 (linear) / 2 / 8: 1.22 (at 256 bins, against 1.17) / 1.13 / 1.14 ms against
#   1.11. Candidate slots at 100% of those expected: 1.59 ms (rows overflow into the
#   fallback). TOPK_WIDE_BUCKETS 4: 1.35 ms.
TOPK_WIDE_RANK_COST = 32
TOPK_WIDE_STAGE_MARGIN = 64
# The bins are log-linear in key - T: OCTAVES - 1 octaves below the greatest and the rest
# get bins / OCTAVES bins each (1: linear). Simulated (numpy, 16384 elements, K = 1024,
# 256 bins; mean sum of squares per K, linear -> 4): normal 11.2 -> 7.9, uniform 9.0 ->
# 10.9, exponential 14.3 -> 8.4, -|normal| 26.6 -> 13.6, lognormal 17.2 -> 9.6 (8: 13.5,
# 20.8, 11.2, 10.5, 10.3). A power of two.
TOPK_WIDE_RANK_OCTAVES = 4
# Its bins (a power of two; their counts share the radix selects' histogram, which grows to
# this many words).
TOPK_WIDE_RANK_BINS = 512
# Rows (chunks) of at most DENSE_SHARE x K: T lies in the bulk of the values rather than in
# their tail, where 4 octaves below the greatest key - T crowd most candidates into the top
# octave's few bins (float keys are nearly logarithmic: normal rows of 2048 at K = 1024 cost
# 18 / 138 per K (float16 / float32) with 512 bins in 4 octaves, 11 / 64 in 2, simulated),
# so too many rows took the radix select and the sort. There: DENSE_OCTAVES, and RANK_COST
# times DENSE_COST_SCALE. H200, wgpu-native, 2026-11-26, 2^26 elements, time over a copy's,
# default -> 2 octaves with RANK_COST 64 everywhere (bench/results/topk-wide-rows/h200-wgpu-
# rank-bins.json): float16 rows of 2048 K = 1024 20.61 -> 17.38, float32 11.68 -> 11.45;
# K = 128 over rows of 512 / 2048 / 8192 and K = 1024 over 8192 within -0.2% / +2.7% (1
# octave alike: 17.58 / 11.45; 1024 bins lose occupancy: rows of 512 K = 128 12.1 -> 20.9).
# A trade on the data (bench/results/topk-wide-rows/bins_sim.py, rows of 2048, K = 1024,
# cost per K with 4 -> 2 octaves): rows whose candidates straddle zero gain (normal float32
# 152 -> 80, still past the bound for most rows; float16 20 -> 11), rows of one sign lose
# (exponential 3.5 -> 4.6, lognormal 4.6 -> 7.7; both still ranked): the surface's rows are
# normal. Choosing per row (2 octaves where T < 0 <= the greatest) is untried on the GPU.
TOPK_WIDE_DENSE_SHARE = 4
TOPK_WIDE_DENSE_OCTAVES = 2
TOPK_WIDE_DENSE_COST_SCALE = 2
# Dense rows taken whole (K x DENSE_SHARE >= n, one key word) skip steps 1-4 of "wide":
# every element is a candidate (at most DENSE_ALL_MAX_REGS a thread), T the least key, and
# float rows whose values straddle zero rank in bins linear in the value. Where the time
# went before (H100, wgpu-native, 2026-11-26, 32768 rows of 2048, K = 1024, GPU us, the
# kernel stopped after each step, bench.steps): float16 82 after the first read, 472 after
# T (two radix passes over 2048 bucket bests), 843 after the gather, 1100 after step 5's
# counts, 1160 in all; float32 85 / 625 / 929 / 1173 / 1467 (its rows sorted; ranked in
# bins log-linear in key - T, 2413). A/B, same run, time over a copy's, before -> dense_all
# (bench/results/topk-dense/h100-{wgpu,dawn}-dense-all.json): float16 rows of 2048 K = 1024
# 12.46 -> 8.22 (1.82x torch.topk; Dawn 13.04 -> 7.84), rows of 512 K = 128 8.56 -> 6.14;
# float32 8.16 -> 4.03 (3.14x torch; Dawn 8.80 -> 3.88), 5.51 -> 3.03; the first axis
# (gathered rows) float16 19.37 -> 19.05, 15.00 -> 14.62, float32 11.34 -> 8.60, 7.46 ->
# 5.84; rows of 2048 K = 128 and of 8192 (not dense) unchanged. Not kept: the staging of
# step 5 skipping the candidates of bins that start past K (a load of the bin's count
# first): 1-3% slower (h100-wgpu-stage-skip.json).
TOPK_WIDE_DENSE_ALL = 1
TOPK_WIDE_DENSE_ALL_MAX_REGS = 16
# There, 8/16-bit keys pack an entry of step 5's staging and the sort's slots in one word
# (the key above the position's 16 bits): half the workgroup memory, which bounds how many
# workgroups an SM runs at once (tuning notes of TOPK_WIDE_WG). H100, wgpu-native, same run,
# time over a copy's, unpacked -> packed (bench/results/topk-dense/h100-wgpu-pack.json):
# float16 rows of 2048 K = 1024 8.20 -> 7.80 (1.92x torch.topk; Dawn 7.84 -> 7.59), rows
# of 512 K = 128 6.12 -> 5.66; int16 6.81 -> 6.34, 5.63 -> 5.23; the first axis and K = 128
# over rows of 2048 within 1%.
TOPK_WIDE_DENSE_PACK = 1
# ...and where that leaves DENSE_BINS_PER_THREAD or fewer a thread, step 5 takes
# DENSE_RANK_BINS bins (the memory saved; a normal float16 row's value bins near its median
# hold ~11 of 2048 at 512 bins). Same runs, 512 -> 1024 / 2048 bins (h100-wgpu-dense-bins
# .json): float16 rows of 2048 K = 1024 7.84 -> 6.92 / 8.21, int16 6.37 -> 5.94 / 7.24,
# float32 (unpacked) 4.03 -> 4.04 / 5.25; the first axis float16 19.06 -> 20.34 / 21.46;
# rows of 512 K = 128 (64 threads: 16 bins a thread) 5.70 -> 11.24 / 31.95.
TOPK_WIDE_DENSE_RANK_BINS = 1024
TOPK_WIDE_DENSE_BINS_PER_THREAD = 4
# Lanes (log2) the "wide" sort's windows span where the device has subgroups (32 lanes on
# NVIDIA; fewer where its subgroups are smaller).
TOPK_WIDE_LANE_BITS = 5
# Strategy "radix": digit width of its global histograms (256 counters per row keep the
# histograms small for many rows), threads per workgroup and elements per thread per chunk.
# 1 x 2^24, K=10000: 0.33-0.37 ms (torch.topk 0.41-0.43 ms).
TOPK_GLOBAL_RADIX_BITS = 8
TOPK_GLOBAL_WG = 256
TOPK_GLOBAL_ELEMS_PER_THREAD = 16


def _apply_overrides(spec: str) -> None:
    """DMLGPU_TUNING="NAME=value,..." overrides numbers above (for tuning sweeps)."""
    for item in filter(None, (s.strip() for s in spec.split(","))):
        name, _, value = item.partition("=")
        if name not in globals() or not name.isupper():
            raise ValueError(f"DMLGPU_TUNING: {name!r} is not a tuning number "
                             f"(allowed: {', '.join(n for n in globals() if n.isupper())})")
        globals()[name] = int(value)


if os.environ.get("DMLGPU_TUNING"):
    _apply_overrides(os.environ["DMLGPU_TUNING"])
