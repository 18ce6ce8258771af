"""Plans: which kernels run, on what grid, with what scratch, for a canonical problem.

Nothing here touches wgpu: a plan is data (template variables, uniform values, group
counts) that `ops` turns into launches through the pipeline cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import tuning
from .canon import Dim, Reduction
from .errors import DeviceLimitError
from .sizes import ceil_div, pow2_ceil, pow2_floor

# Bindings start at multiples of this (it is >= every adapter's min storage offset alignment
# and a multiple of 8, so no 64-bit element straddles two windows).
WINDOW_ALIGN = 256
# Words a vector load reads (vec4<u32>, WGSL's widest vector: 16 bytes).
VEC_WORDS = 4


@dataclass
class Step:
    template: str
    variables: dict  # template variables, without the window counts
    params: dict  # uniform values, without offsets and windows
    n_groups: int
    source: str  # "input" or "partials"
    sink: str  # "output" or "partials"
    # variables of its element-load variant, for an input whose offset is not a whole word
    # (checked when bound): its word loads (packed_rows over several reduced dims,
    # col_words) need one
    mid_word: dict | None = None
    # variables of its variant for an input and output whose offsets are at different
    # places in their words (checked when bound): Hardmax's streamed zeros need them alike
    skew: dict | None = None
    # (elements, variables): its variant for an output whose offset is not a multiple of
    # `elements` (checked when bound): its vector stores need one
    out_align: tuple | None = None
    # (elements, variables): its variant for an input whose offset is not a multiple of
    # `elements` or that takes several bindings (checked when bound): its vector loads need
    # one binding of vectors and rows that start on a vector
    in_align: tuple | None = None
    # binds the device's tally buffer last (runtime.device.Device.tally_block): the
    # counters and partials of the merge in the split pass, zero between dispatches
    tally: bool = False


@dataclass
class Plan:
    steps: list[Step]
    partial_bytes: int = 0  # scratch for the split pass
    notes: dict = field(default_factory=dict)  # what was chosen, for `explain` and the bench
    tally_bytes: int = 0  # bytes of the device's tally buffer the merge in the split pass uses


def _packed_chunk(words: int) -> int:
    """Words a workgroup of a split packed (8/16-bit) row plan reads at least, of `words`
    in all: PACKED_ROW_CHUNK_WORDS, or more where that would run over PACKED_ROW_GROUPS
    workgroups."""
    groups = tuning.PACKED_ROW_GROUPS
    return max(tuning.PACKED_ROW_CHUNK_WORDS, ceil_div(words, groups) if groups else 0)


def rows_bytes(dt, sink: str = "index") -> int:
    """Bytes a thread of a row plan reads at least (tuning.ROWS_BYTES; ArgMax/ArgMin:
    ARG_ROWS_BYTES by element bits)."""
    if tuning.ROWS_BYTES <= 0 or sink != "index":
        return tuning.ROWS_BYTES
    return tuning.ARG_ROWS_BYTES.get(dt.bits, tuning.ROWS_BYTES)


def _whole_tiles_tpr(tpr: int, wg: int, rows: int, row_words: int) -> int:
    """ArgMax/ArgMin's 8/16-bit rows read as words, `row_words` each (rows: how many):
    threads each as ARG_ROWS_WHOLE_TARGET_THREADS asks (up to a workgroup), where that is
    more than `tpr` and each thread's share of a row is whole tiles (REDUCE_UNROLL words);
    else `tpr`."""
    more = min(wg, pow2_floor(tuning.ARG_ROWS_WHOLE_TARGET_THREADS // max(1, rows)))
    whole = row_words % (more * tuning.REDUCE_UNROLL) == 0
    return more if more > tpr and whole else tpr


def argreduce(red: Reduction, dt, op: str, descending: bool, idx_words: int,
              *, sink: str = "index", template: str = "argreduce.wgsl.j2",
              extra: dict | None = None, tally: bool = True,
              webgpu: str | None = None) -> Plan:
    """Arg-reduction of `red` (canonical): one pass, or a split pass plus a merge pass (or
    the merge in the split pass: the device's tally buffer, where `tally` allows it).

    sink: "index" writes the index; "onehot" (Hardmax) sets the winner's element of a
    zeroed output; `extra` adds template variables to every step; webgpu: the device's
    implementation ("wgpu", "dawn"), for the tunings measured to differ between them.
    """
    n_out, n_red = red.n_out, red.n_red
    if n_out == 0 or n_red == 0:  # an empty output: nothing to launch
        return Plan([], 0, dict(strategy="empty", split=0, chunk=0, tally_merge=False,
                                tally_pack=False, tally_codes=False))
    kept = red.kept
    # every reduced dim has size 1: one element, index 0
    reds = red.red or (Dim(1, (0,) * (len(kept[0].strides) if kept else 1)),)
    words = _stage_row_words(red, dt, sink)
    if words:
        return _stage_rows(red, dt, op, descending, idx_words, words, template, extra or {})
    wg = tuning.REDUCE_WG
    red_contig = reds[-1].strides[0] == 1
    kept_contig = bool(kept) and abs(kept[-1].strides[0]) == 1
    row_min = tuning.ROW_MIN_RED if sink == "index" else tuning.HARDMAX_ROW_MIN_RED
    # contiguous rows shorter than a workgroup's share: TPR threads per row, several rows
    # per group (rows_bytes, at least an unrolled iteration's elements, per thread), and at
    # least 2 threads per row from twice that; ArgMax/ArgMin: up to ROWS_MIN_TPR while each
    # keeps ROWS_MIN_WORDS words and an unrolled iteration's elements
    elems = max(tuning.REDUCE_UNROLL, rows_bytes(dt, sink) * 8 // dt.bits)
    tpr = min(wg, pow2_floor(n_red // elems))
    least, per = 2, tuning.REDUCE_UNROLL
    # Hardmax's short rows: threads enough that their zeros' stores fill a sector, where
    # each keeps its words (else as they were)
    hot_per = dt.per_word * tuning.HARDMAX_STREAM_MIN_WORDS.get(dt.bits, 0)
    if sink == "index":
        words = n_red * dt.bits // 32
        least = max(2, min(tuning.ROWS_MIN_TPR, pow2_floor(words // tuning.ROWS_MIN_WORDS)))
    elif (red_contig and tuning.HARDMAX_STREAM and hot_per
          and n_red // hot_per >= tuning.HARDMAX_STREAM_MIN_TPR):
        least, per = tuning.HARDMAX_STREAM_MIN_TPR, hot_per
    tpr = max(tpr, min(least, pow2_floor(n_red // per)))
    # few rows: more threads each, up to a workgroup (64 rows of 1000 float32 took 0.015 ms
    # at 32 threads a row, 8 workgroups, against 0.008 ms with a workgroup each; H100)
    tpr = max(tpr, min(wg, pow2_floor(tuning.ROWS_TARGET_THREADS // max(1, n_out))))
    if red_contig and sink == "index" and dt.per_word > 1 and n_red % dt.per_word == 0:
        tpr = _whole_tiles_tpr(tpr, wg, n_out, n_red // dt.per_word)
    segmented = red_contig and 2 <= tpr < wg and tuning.ROWS_BYTES > 0
    # a small contiguous kept block right under the reduced dims ((n, 2) over n, (h, w, 3)
    # over h and w): its outputs share a workgroup, lanes interleaved over them, so that the
    # workgroup reads memory in order (a thread per output would stride through it)
    inner = kept[-1].size if kept_contig else 0
    lanes = pow2_ceil(inner)
    interleave = (not red_contig and kept_contig and n_red >= row_min
                  and reds[-1].strides[0] == inner and 2 <= lanes <= wg // 2
                  and inner * dt.bits < tuning.INTERLEAVE_BELOW_BITS)
    # 8/16-bit reductions under a narrow contiguous kept dim that divides a word ((n, 2)
    # uint8 over n): whole words, each holding pw / inner reduced indices of all `inner`
    # outputs (element loads read each word pw times: float16 (8192, 4096, 2) over axis 1
    # 35% of copy, uint8 28%; H200, 2026-11-25)
    pw = dt.per_word
    lanes_words = (interleave and sink == "index" and tuning.WORD_LANES and pw > 1
                   and pw % inner == 0 and kept[-1].strides[0] == 1 and len(reds) == 1
                   and n_red % (pw // inner) == 0
                   and all(d.strides[0] % pw == 0 for d in kept[:-1]))
    # a short contiguous reduced run right under the kept dims ((n, m, 2) over n and the 2):
    # as many threads per output as the run is long, several outputs per workgroup, so that
    # a workgroup's loads are neighbouring runs of one row (a workgroup per output would
    # gather runs from rows far apart); split over workgroups like long rows
    run = reds[-1].size if red_contig else 0
    short_run = (red_contig and len(reds) > 1 and bool(kept) and kept[-1].strides[0] == run
                 and run * dt.bits < tuning.INTERLEAVE_BELOW_BITS and n_red >= row_min)
    if short_run:
        segmented = False
        strategy, tpr = "row", min(wg // 2, pow2_floor(run))
        threads = n_out * tpr
        max_split = ceil_div(n_red * (wg // tpr), tuning.MIN_ROW_CHUNK)
    elif segmented:
        strategy, threads = "row", n_out * tpr
        max_split = 1
    elif lanes_words:
        # TPR threads a block of `inner` outputs as contiguous rows take them (at least
        # rows_bytes a thread), several blocks per workgroup; split where one block a
        # workgroup leaves the GPU short of threads
        block_words = n_red * inner // pw
        tpr = min(wg, pow2_floor(max(1, block_words * pw // elems)))
        blocks = n_out // inner
        tpr = max(tpr, min(wg, pow2_floor(tuning.ROWS_TARGET_THREADS // blocks)))
        tpr = _whole_tiles_tpr(tpr, wg, blocks, block_words)
        strategy, interleave, threads = "lanes", False, blocks * tpr
        max_split = ceil_div(block_words, tuning.PACKED_ROW_CHUNK_WORDS) if tpr == wg else 1
    elif interleave:
        strategy, tpr = "row", wg // lanes
        threads = n_out // inner * wg
        max_split = ceil_div(n_red * inner, tuning.MIN_ROW_CHUNK)
    elif n_red >= row_min and (red_contig or not kept_contig):
        strategy, threads, tpr = "row", n_out * wg, wg
        max_split = ceil_div(n_red, tuning.MIN_ROW_CHUNK)
    else:
        strategy, threads = "col", n_out
        max_split = ceil_div(n_red, tuning.MIN_COL_CHUNK)
    # 8/16-bit columns ("tilecol"): a thread per word of neighbouring outputs (the innermost
    # kept dim contiguous and whole words, every other stride whole words), several row
    # groups per workgroup over the reduced range
    # (the inner kept dim whole words, every other stride whole words: rows start on words)
    whole_words = (bool(kept) and kept[-1].size % pw == 0
                   and all(d.strides[0] % pw == 0 for d in (*kept[:-1], *reds)))
    tilecol_ok = ((strategy == "col" or (interleave and sink == "index")) and pw > 1
                  and tuning.TILECOL and n_red >= tuning.TILECOL_MIN_RED
                  and kept_contig and kept[-1].strides[0] == 1
                  and kept[-1].size * dt.bits >= tuning.TILECOL_MIN_INNER_BITS)
    tilecol = tilecol_ok and whole_words
    # ... and where the rows do not start on a word (an odd kept dim, a reduced stride no
    # multiple of a word): one kept dim and one reduced dim, each row's words joined at its
    # own shift, the last word's outputs ragged (TILECOL_JOIN rows at least; ArgMax/ArgMin)
    row_join = (tilecol_ok and not tilecol and sink == "index"
                and n_red >= tuning.TILECOL_JOIN.get(dt.bits, 1 << 32)
                and len(kept) == 1 and len(reds) == 1)
    tilecol = tilecol or row_join
    # ... and short runs under the innermost kept dim ((n, m, 2) uint8 over n and the 2): a
    # word holds the runs of pw / run neighbouring outputs; the kernel walks the reduced
    # dims above the run, `run` lanes of a word per output
    run_words = (short_run and sink == "index" and pw > 1 and tuning.TILECOL_RUNS
                 and pw % run == 0 and kept[-1].size * run % pw == 0
                 and kept[-1].size * run * dt.bits >= tuning.TILECOL_MIN_INNER_BITS
                 and n_red // run >= tuning.TILECOL_MIN_RED
                 and all(d.strides[0] % pw == 0 for d in (*kept[:-1], *reds[:-1])))
    wrun = run if run_words else 1
    walked = reds[:-1] if run_words else reds  # the reduced dims the first step walks
    n_walk = n_red // wrun
    tilecol = tilecol or run_words
    ry = 1
    if tilecol:
        n_words = ceil_div(n_out * wrun, pw)
        inner_words = ceil_div(kept[-1].size * wrun, pw)
        wx_min = min(tuning.TILECOL_WX, pow2_ceil(inner_words))

        def row_groups(rows: int) -> int:
            """A workgroup's row groups where each takes at least `rows` rows."""
            return max(1, min(wg // wx_min, pow2_floor(n_walk // rows)))
        min_rows = tuning.TILECOL_MIN_ROWS
        if sink == "index":  # ArgMax/ArgMin (Hardmax keeps the general figure)
            min_rows = tuning.ARG_TILECOL_MIN_ROWS
            if wrun > 1:
                min_rows = tuning.ARG_TILECOL_RUN_MIN_ROWS.get(dt.bits, min_rows)
            elif row_join:
                min_rows = tuning.ARG_TILECOL_JOIN_MIN_ROWS.get(dt.bits, min_rows)
            elif few := tuning.ARG_TILECOL_FEW_SPLITS.get(webgpu, {}).get(dt.name):
                # (fewer rows a row group where that splits the columns few ways still)
                few_rows, most = few
                if (few_rows < min_rows
                        and ceil_div(n_walk, row_groups(few_rows) * few_rows) <= most):
                    min_rows = few_rows
        ry = row_groups(min_rows)
        strategy, interleave, tpr = "tilecol", False, 0
        threads = ceil_div(n_words, wg // ry) * wg
        max_split = ceil_div(n_walk, ry * min_rows)
    # short column reductions over many outputs: COL_VOUT neighbouring outputs of the
    # innermost kept dim a thread (one reduced dim), its fixed costs shared
    # (one kept dim of any size: the last thread's outputs ragged, where COL_VOUT_RAGGED, up
    # to COL_VOUT_RAGGED_MAX_RED), read as whole words of neighbouring outputs where they are
    # 8/16-bit columns (the inner kept dim contiguous, every other stride whole words; the
    # offset: when bound), COL_VOUT_WORDS of them from COL_VOUT_WORDS_MIN_RED to _MAX_RED rows
    words_ok = pw > 1 and tuning.COL_WORDS and whole_words and kept[-1].strides[0] == 1
    # (both measured on ArgMax/ArgMin, not on Hardmax's one-hot columns); and where they are
    # not whole words (an odd kept dim, a reduced stride no multiple of a word), each row's
    # words joined at its own shift (COL_JOIN; COL_JOIN_VOUT a thread, up to COL_JOIN_MAX_RED)
    join_ok = (pw > 1 and tuning.COL_JOIN and sink == "index" and not words_ok and bool(kept)
               and kept[-1].strides[0] == 1 and len(reds) == 1
               and n_red <= tuning.COL_JOIN_MAX_RED)
    vout = tuning.COL_VOUT.get(dt.bits, 1)
    if (words_ok and tuning.COL_VOUT_WORDS_MIN_RED <= n_red <= tuning.COL_VOUT_WORDS_MAX_RED
            and sink == "index"):
        vout = tuning.COL_VOUT_WORDS.get(dt.bits, vout)
    if join_ok:
        vout = tuning.COL_JOIN_VOUT.get(dt.bits, vout)
    ragged = bool(kept) and kept[-1].size % vout != 0
    max_red = max(tuning.COL_JOIN_MAX_RED, tuning.COL_VOUT_MAX_RED) if join_ok \
        else tuning.COL_VOUT_MAX_RED
    ragged_red = n_red if join_ok else tuning.COL_VOUT_RAGGED_MAX_RED.get(dt.bits, n_red)
    if (strategy == "col" and len(reds) == 1 and kept and n_red <= max_red
            and (not ragged or (len(kept) == 1 and tuning.COL_VOUT_RAGGED and sink == "index"
                                and n_red <= ragged_red))):
        threads = ceil_div(n_out, vout)
    else:
        vout, ragged = 1, False
    col_words = vout > 1 and vout % pw == 0 and words_ok
    col_join = vout > 1 and vout % pw == 0 and join_ok
    # ... and rows of a few whole words each (16-bit rows of 2, 8-bit rows of 4, up to
    # ARG_WORD_ROWS_MAX_WORDS words) starting on words (every kept stride whole words; the
    # offset: when bound): a row's lanes keyed a word at once, its best lane code its
    # index, no loop (ARG_WORD_ROWS; the template variable: the row's words, 0 for none)
    word_rows = (n_red // pw if vout > 1 and tuning.ARG_WORD_ROWS and sink == "index"
                 and pw > 1 and len(reds) == 1 and n_red % pw == 0
                 and n_red // pw <= tuning.ARG_WORD_ROWS_MAX_WORDS
                 and reds[0].strides[0] == 1 and all(d.strides[0] % pw == 0 for d in kept)
                 else 0)
    # ... and rows shorter than a word back to back (8-bit rows of 2: two to a word), each
    # thread's group of rows from a word's start (every other kept stride whole words; the
    # offset: when bound): a word's lanes keyed at once, each row's best of its own lanes
    # (ARG_SUB_ROWS; the template variable: rows a word, 0 for none)
    sub_rows = (pw // n_red if vout > 1 and tuning.ARG_SUB_ROWS and sink == "index"
                and pw > 1 and len(reds) == 1 and n_red < pw and pw % n_red == 0
                and reds[0].strides[0] == 1 and kept[-1].strides[0] == n_red
                and vout % (pw // n_red) == 0 and not ragged
                and all(d.strides[0] % pw == 0 for d in kept[:-1])
                else 0)
    # ... their indices stored as whole vectors where they are neighbours in the output (the
    # inner kept dim contiguous there, every other output stride whole vectors; the offset:
    # when bound), the result written by this pass (one split, no merge in the pass: below)
    vec_words = min(4, vout * idx_words)  # a vector store's words (2 or 4)
    vec_elems = vec_words // idx_words  # ... and the outputs it holds
    vstore = (vout > 1 and tuning.COL_VSTORE and sink == "index"
              and kept[-1].strides[1] == 1
              and all(d.strides[1] % vec_elems == 0 for d in kept[:-1]))
    # 8/16-bit contiguous rows read as whole words; with several reduced dims only where
    # the inner runs, the outer reduced strides (positive) and the kept strides are whole
    # words, and (checked when bound: ops.base) so is the input's offset
    aligned = (reds[-1].size % pw == 0
               and all(d.strides[0] > 0 and d.strides[0] % pw == 0 for d in reds[:-1])
               and all(d.strides[0] % pw == 0 for d in kept))
    packed = (strategy == "row" and red_contig and pw > 1 and not interleave
              and (len(reds) == 1 or aligned))
    if packed and tpr == wg and tuning.PACKED_ROW_CHUNK_WORDS:
        # a long packed row: at least this many words a workgroup per split
        max_split = ceil_div(n_red // pw, _packed_chunk(n_out * (n_red // pw)))
    # A split's merge can run in the split pass where the result is an index (not Hardmax's
    # one-hot): the last workgroup of each block of outputs to finish merges them
    # (tuning.TALLY_MERGE), where that takes it few loads a thread, keying each partial's
    # index again (not short runs as lanes, whose walk leaves the run's dim out)
    merge_ok = (tally and sink == "index" and tuning.TALLY_MERGE
                and strategy in tuning.TALLY_STRATEGIES)
    in_pass = merge_ok and not run_words
    # ... and, where that would take more loads a thread or the element bits are not
    # TALLY_BITS, 8/16-bit keys whose indices fit beside them in a word: an output's
    # partials folded into one word by atomicMax, a load an output to merge (TALLY_PACK;
    # short runs too, whose partial indices are the output's: nothing keyed again)
    # (indices past that: their top bits; the merge finds the index among the 2^shift
    # elements its code stands for: see the block below; not for short runs)
    pack_shift = max(0, (n_red - 1).bit_length() - (32 - dt.bits))
    # (8/16-bit keys whose every index's code fits under them in a word, never 0: the
    # workgroup atomic tree and the coded merge below)
    coded = dt.bits <= 16 and n_red < 1 << (32 - dt.bits)
    pack = (merge_ok and tuning.TALLY_PACK.get(dt.bits, False)
            and (pack_shift == 0 or not run_words))
    in_pass = in_pass and (dt.bits in tuning.TALLY_BITS
                           or (strategy == "row" and dt.bits in tuning.TALLY_ROW_BITS))
    if in_pass or pack:
        # a workgroup's outputs (a block), and threads per output in the merge (a power of
        # two; one, each thread looping over outputs, from a workgroup's worth of outputs)
        if strategy == "tilecol":
            block = wg // ry * (pw // wrun)
        elif strategy == "col":
            block = wg * vout
        else:  # row, lanes: R = wg / tpr row groups a workgroup
            block = inner if interleave else wg // tpr * (inner if strategy == "lanes" else 1)
        tpo = wg // min(wg, pow2_ceil(block))
        # a packed code of the indices' top bits: a thread an output keys their 2^shift
        # elements up to TALLY_PACK_SHIFT bits; past that the block's outputs share the last
        # workgroup (tpo threads each), at most TALLY_PACK_COOP_LOADS elements a thread
        thread_decode = pack_shift <= tuning.TALLY_PACK_SHIFT
        pack_tpo = 1 if thread_decode else tpo
        pack = pack and (thread_decode or (block <= wg and ceil_div(1 << pack_shift, tpo)
                                           <= tuning.TALLY_PACK_COOP_LOADS))

        def tally_per_thread(n_split: int) -> int:
            return ceil_div(n_split, tpo) if tpo > 1 else ceil_div(block, wg) * n_split
    split = 1
    # (ArgMax/ArgMin's columns and short runs under a kept dim: a warp reads a slice of a
    # row a load)
    cols = sink == "index" and (strategy == "col" or (short_run and not tilecol))
    target = tuning.COL_TARGET_THREADS if cols else tuning.TARGET_THREADS
    if threads < target:
        cap = tuning.MAX_SPLIT
        if in_pass and tuning.TALLY_CAP_SPLIT and tpo > 1:
            few = tpo * tuning.TALLY_MAX_PER_THREAD
            if threads * few >= tuning.TALLY_CAP_MIN_THREADS:  # (threads enough still)
                cap = min(cap, few)
        if strategy == "tilecol" and pack:  # (each split atomicMaxes an output's one word)
            cap = min(cap, tuning.ARG_TILECOL_PACK_MAX_SPLIT.get(dt.bits, cap))
        # (the columns' target to the nearest whole split: a split that adds less than half
        # again the threads costs the merge pass more than it gives; COL_SPLIT_ROUND)
        ways = (max(1, (2 * target + threads) // (2 * threads))
                if cols and tuning.COL_SPLIT_ROUND else ceil_div(target, threads))
        split = max(1, min(ways, max_split, cap))
    chunk = ceil_div(n_walk, split)
    # a thread's tile of rows: REDUCE_UNROLL, but tile columns that run few threads in all
    # keep more loads in flight a thread (TILECOL_DEEP, by element bits: (threads, rows))
    unroll = tuning.REDUCE_UNROLL
    deep_threads, deep_rows = tuning.TILECOL_DEEP.get(dt.bits, (0, unroll))
    if tilecol and threads * split < deep_threads:
        unroll = deep_rows
    # tile columns over several reduced dims whose innermost is whole tiles (`unroll` rows:
    # their tile) find a tile's place once (TILECOL_TILE_RUNS), a split's range rounded up
    # to whole tiles
    tile_runs = (tilecol and len(walked) > 1 and tuning.TILECOL_TILE_RUNS
                 and walked[-1].size % unroll == 0)
    # ... and so do a thread per output's columns over two reduced dims (COL_TILE_RUNS)
    col_runs = (strategy == "col" and vout == 1 and len(reds) == 2 and tuning.COL_TILE_RUNS
                and reds[-1].size % unroll == 0)
    if tile_runs or col_runs:
        chunk = ceil_div(chunk, unroll) * unroll
    split = ceil_div(n_walk, chunk)
    if interleave:
        groups = n_out // inner * split
    elif strategy == "row":
        groups = ceil_div(n_out, wg // tpr) * split
    elif strategy == "lanes":
        groups = ceil_div(n_out // inner, wg // tpr) * split
    else:  # (tilecol: threads are whole workgroups of words; its kernel takes no tpr)
        groups = ceil_div(threads, wg) * split
        tpr = 0 if tilecol else wg

    common = dict(dt=dt, op=op, descending=descending, multi_red=len(reds) > 1,
                  red2=len(reds) == 2, min_fold=False, wg_pack=0, **(extra or {}))
    dims = _dims(kept, reds)
    if len(reds[0].strides) > 1:  # a same-shape output (Hardmax)
        dims["rout"] = [d.strides[1] for d in reds]
    first_sink = sink if split == 1 else "partials"
    in_pass = in_pass and split > 1 and tally_per_thread(split) <= tuning.TALLY_MAX_PER_THREAD
    # (packed first: TALLY_PACK_FIRST, where a split takes at least _MIN_SPLIT ways)
    pack = pack and split > 1 and (not in_pass or (strategy in tuning.TALLY_PACK_FIRST
                                                   and split >= tuning.TALLY_PACK_FIRST_MIN_SPLIT))
    in_pass = in_pass or pack
    vstore = vstore and split == 1
    word_rows = word_rows if split == 1 else 0  # (a thread keys a whole row: one split)
    sub_rows = sub_rows if split == 1 else 0
    # ... and COL_REPS groups of them a thread, a workgroup's width apart, in columns of
    # up to COL_REPS_MAX_RED elements, where one split leaves COL_REPS_MIN_THREADS threads or
    # more (not ragged, not joined rows)
    reps = 1
    if (vout > 1 and split == 1 and not ragged and not col_join and sink == "index"
            and n_red <= tuning.COL_REPS_MAX_RED):
        most = tuning.COL_REPS.get(webgpu, {}).get(dt.bits, 1)
        reps = pow2_floor(max(1, min(most, threads // tuning.COL_REPS_MIN_THREADS)))
        groups = ceil_div(threads, wg * reps)
    merge = "col" if n_out >= tuning.MERGE_COL_MIN_OUT else "row"
    # partials split-major where a thread per output merges them (its warp's loads
    # neighbouring entries), output-major where a workgroup per output does (one pass
    # writes none: False, so as not to key a second pipeline of the same code)
    smajor = split > 1 and merge == "col" and tuning.PARTIALS_SPLIT_MAJOR
    common.update(smajor=smajor, merge_unroll=tuning.MERGE_UNROLL,
                  radix=tuning.REDUCE_TREE_RADIX, tally=False)
    # (ArgMin's tile columns whose splits merge unpacked in the pass, without tile runs or
    # joined rows, fold by max instead, to take the workgroup atomic tree below:
    # ARG_MIN_FOLD_TREE)
    tree_first = (strategy == "tilecol" and in_pass and not pack and not tile_runs
                  and not row_join and tuning.ARG_MIN_FOLD_TREE)
    first = dict(common, multi_red=len(walked) > 1, red2=len(walked) == 2, walk="carry",
                 min_fold=_min_fold(op, dt, strategy) and not tree_first)
    if tilecol:
        first.update(run=wrun, row_join=row_join, tile_run=tile_runs)
    if strategy in ("lanes", "tilecol"):  # (float16 keyed roughly first: ARG_ROUGH_KEYS;
        # word lanes split at most ARG_ROUGH_LANES_MAX_SPLIT ways)
        first.update(rough_keys=bool(dt.lanes_rough) and sink == "index"
                     and strategy in tuning.ARG_ROUGH_KEYS.get(webgpu, ())
                     and (strategy != "lanes" or split <= tuning.ARG_ROUGH_LANES_MAX_SPLIT))
    if strategy == "lanes":  # (a tile no longer than a block's words, as packed rows)
        unroll = min(unroll, pow2_floor(max(1, block_words // tpr)))
    if packed and tpr < wg:
        # short packed rows: a tile (TPR x unroll words) no longer than a row, else every
        # word takes the per-element tail loop (uint8 rows of 64: 8 words a thread)
        unroll = min(unroll, pow2_floor(max(1, n_red // pw // tpr)))
    vload = False
    if strategy == "row":
        # (rows of whole tiles, every split's range too, keep the kernel without the tail's
        # branch: a word-aligned view never takes it, one that is not takes the loop)
        tile = tpr * unroll * (pw if packed else 1)
        whole = n_red % tile == 0 and (split == 1 or chunk % tile == 0)
        # contiguous rows of whole vectors of words (16 bytes), each starting on one, read a
        # vector a load (ROW_VLOAD by element bits: 8/16-bit rows as words, 32-bit
        # elements; ArgMax/ArgMin; the offset: when bound, Step.in_align below)
        vload = ((packed or (red_contig and dt.storage == "x32"))
                 and not interleave and len(walked) == 1
                 and sink == "index" and tuning.ROW_VLOAD.get(dt.bits, False)
                 and unroll % VEC_WORDS == 0 and n_red % (VEC_WORDS * pw) == 0
                 and all(d.strides[0] % (VEC_WORDS * pw) == 0 for d in kept))
        first.update(tile_max=tuning.ROW_TILE_MAX, nan_by_tile=_nan_by_tile(dt),
                     masked_tail=(tuning.ROW_MASKED_TAIL
                                  if not packed or tuning.ROW_MASKED_TAIL_PACKED else 0)
                     if len(walked) == 1 and not whole else 0,
                     src_vec=VEC_WORDS if vload else 1)
    if strategy == "col" and vout == 1:
        # a thread an output: a tile's best key first, then its place (COL_TILE_MAX), and
        # the tile's place in its run found once (col_runs above)
        tile_max = tuning.COL_TILE_MAX
        if isinstance(tile_max, dict):  # (by implementation, then element bits)
            tile_max = tile_max.get(webgpu, {}).get(dt.bits, False)
        first.update(tile_max=tile_max, walk="tile" if col_runs else "carry")
    walk_mid = {}  # (the element loads' walk: a packed plan's variant for mid-word inputs)
    if strategy == "row" and not interleave and len(walked) > 1 and tuning.ROW_WALK:
        first.update(_walk(reds[-1].size // (pw if packed else 1), tpr, unroll,
                           len(walked) == 2))
        if packed:
            walk_mid = _walk(reds[-1].size, tpr, unroll, len(walked) == 2)
    fuse = {}
    tally_words = 0
    if in_pass:
        blocks = groups // split
        if pack:
            fuse = dict(tally=True, tally_pack=True, tally_tpo=1, pack_shift=pack_shift,
                        pack_tpo=pack_tpo, tally_codes=False)
            tally_words = n_out + blocks
        else:  # (coded keys: each partial's key stored with its index, so that the merge
            # need not key it again: TALLY_CODES)
            fuse = dict(tally=True, tally_pack=False, tally_tpo=tpo,
                        tally_spin=tuning.TALLY_SPIN, tally_n=_tally_batch(ceil_div(split, tpo)),
                        tally_codes=tuning.TALLY_CODES and coded)
            tally_words = n_out * split + blocks
    # a workgroup's tree as a workgroup atomicMax an output (ARG_WG_PACK, by strategy): 8/16-
    # bit keys whose best index fits in the word beside them, or the packed tally's code
    # (tile columns' tree over row groups by ARG_WG_PACK_TILECOL: by implementation and
    # dtype, where their split's partials are not packed (short runs as lanes: packed too,
    # ARG_WG_PACK_TILECOL_RUNS; every packed one on ARG_WG_PACK_TILECOL_PACKED's
    # implementations), the lanes fold by max (short runs: ArgMin's min fold too,
    # ARG_MIN_FOLD_WG_PACK_RUNS) and rows start on words: not joined at their own shift)
    wg_tilecol = (strategy == "tilecol" and ry > 1
                  and (not first["min_fold"] or (wrun > 1 and tuning.ARG_MIN_FOLD_WG_PACK_RUNS))
                  and (not pack or (wrun > 1 and tuning.ARG_WG_PACK_TILECOL_RUNS)
                       or webgpu in tuning.ARG_WG_PACK_TILECOL_PACKED)
                  and not row_join and dt.name in tuning.ARG_WG_PACK_TILECOL.get(webgpu, ()))
    if ((strategy in tuning.ARG_WG_PACK or wg_tilecol) and not interleave and dt.bits <= 16
            and first_sink in ("index", "partials") and (pack or coded)):
        first.update(wg_pack=(wg // ry * (pw // wrun) if strategy == "tilecol" else
                              wg // tpr * (inner if strategy == "lanes" else 1)))
    steps = [Step(template, dict(first, strategy=strategy, source="input", sink=first_sink,
                                 **fuse,
                                 packed_rows=packed, ry=ry,
                                 interleave=interleave, wg=wg, tpr=tpr, vout=vout,
                                 idx_words=idx_words, unroll=unroll,
                                 **(dict(cols=inner) if strategy == "lanes" else {}),
                                 **(dict(col_words=col_words, col_join=col_join,
                                         word_rows=word_rows, sub_rows=sub_rows,
                                         vstore=vstore, ragged=ragged, reps=reps,
                                         **(dict(dst_vec=vec_words) if vstore else {}))
                                    if vout > 1 else {})),
                  dict(dims, rsize=[d.size for d in walked], rin=[d.strides[0] for d in walked],
                       nr=len(walked), n_out=n_out, n_red=n_walk, chunk=chunk, n_split=split,
                       n_groups=groups, **(dict(aux0=block) if in_pass else {})),
                  groups, "input", "output" if split == 1 or in_pass else "partials",
                  mid_word=(dict(packed_rows=False, **walk_mid) if packed and len(reds) > 1 else
                            dict(col_words=False) if col_words else
                            dict(word_rows=0) if word_rows else
                            dict(sub_rows=0) if sub_rows else None),
                  tally=tally_words > 0,
                  out_align=(vec_elems, dict(vstore=False, dst_vec=1)) if vstore else None,
                  in_align=(VEC_WORDS * pw, dict(src_vec=1)) if vload else None)]
    partial_bytes = 0
    if split > 1 and not in_pass:
        partial_bytes = n_out * split * (dt.key_words + 1) * 4
        mgroups = n_out if merge == "row" else ceil_div(n_out, wg)
        steps.append(Step(template, dict(common, strategy=merge, source="partials", sink=sink,
                                         packed_rows=False, ry=1,
                                         interleave=False, wg=wg, tpr=wg, vout=1,
                                         idx_words=idx_words, unroll=tuning.REDUCE_UNROLL),
                          dict(dims, n_out=n_out, n_red=split, chunk=split, n_split=1,
                               n_groups=mgroups),
                          mgroups, "partials", "output"))
    notes = dict(strategy="interleave" if interleave else strategy, split=split, chunk=chunk,
                 tally_merge=in_pass, tally_pack=pack,
                 tally_codes=bool(fuse.get("tally_codes")),
                 threads_per_row=tpr if strategy in ("row", "lanes") else 0,
                 packed=packed or tilecol or strategy == "lanes" or col_words,
                 row_groups=ry, outputs_per_thread=vout, lanes_per_output=wrun,
                 col_reps=reps if vout > 1 else 1)
    return Plan(steps, partial_bytes, notes, tally_words * 4)


def _dims(kept, reds) -> dict:
    """The uniform's kept and reduced dims: sizes and (input, output) strides."""
    return dict(ksize=[d.size for d in kept], kin=[d.strides[0] for d in kept],
                kout=[d.strides[1] for d in kept], rsize=[d.size for d in reds],
                rin=[d.strides[0] for d in reds], nk=len(kept), nr=len(reds))


def _nan_by_tile(dt):
    """The row loops' NaN (and rough keys') handling: "rough", True or False (see
    tuning.ROW_NAN_BY_TILE, ROW_ROUGH_KEYS and the template's tile_best)."""
    if not tuning.ROW_NAN_BY_TILE:
        return False
    return "rough" if tuning.ROW_ROUGH_KEYS and dt.lanes_rough else True


def _min_fold(op: str, dt, strategy: str) -> bool:
    """Whether ArgMin's first pass of `strategy` folds its lanes by min (ARG_MIN_FOLD)."""
    return bool(op == "min" and dt.lanes_min and strategy in tuning.ARG_MIN_FOLD.get(dt.name, ()))


def _stage_row_words(red: Reduction, dt, sink: str) -> int:
    """Words a unit where ArgMax/ArgMin stages rows through workgroup memory (0: not): rows
    back to back (one contiguous reduced dim, one kept dim of stride the row's length) of
    whole words in tuning.ARG_STAGE_WORDS's range for the element bits, a power of two
    unless ARG_STAGE_ANY_WORDS, a row a unit; or, where tuning.ARG_STAGE_ODD, 8/16-bit rows
    that are not whole words, a unit of as many rows as a word has elements (n words for
    rows of n elements) in ARG_STAGE_ODD_WORDS's range."""
    if sink != "index" or len(red.red) != 1 or len(red.kept) != 1:
        return 0
    n = red.red[0].size
    if red.red[0].strides[0] != 1 or red.kept[0].strides[0] != n:
        return 0
    if n * dt.bits % 32:
        lo, hi = tuning.ARG_STAGE_ODD_WORDS.get(dt.bits, (0, 0))
        return n if tuning.ARG_STAGE_ODD and lo <= n <= hi else 0
    lo, hi = tuning.ARG_STAGE_WORDS.get(dt.bits, (0, 0))
    words = n * dt.bits // 32
    pow2 = words & (words - 1) == 0
    return words if lo <= words <= hi and (pow2 or tuning.ARG_STAGE_ANY_WORDS) else 0


def _stage_rows(red: Reduction, dt, op: str, descending: bool, idx_words: int, words: int,
                template: str, extra: dict) -> Plan:
    """The plan of `_stage_row_words` units (a row, or a word's worth of rows not whole
    words): one pass, a workgroup stages ARG_STAGE_BLOCK_WORDS places of whole units (at
    least ARG_STAGE_MIN_WG threads' worth; a unit takes the power of two of places at or
    above its words), each thread reduces the rows of its max(ARG_STAGE_THREAD_WORDS, unit
    places) places from there; rows of a power of two words, whole vectors, a vector a load
    and a place (ARG_STAGE_VEC)."""
    slots = pow2_ceil(words)
    thread_words = max(tuning.ARG_STAGE_THREAD_WORDS, slots)
    wg = max(tuning.ARG_STAGE_MIN_WG, tuning.ARG_STAGE_BLOCK_WORDS // thread_words)
    odd = red.n_red * dt.bits % 32 != 0
    per_unit = dt.per_word if odd else 1  # rows
    units = wg * thread_words // slots  # a workgroup's
    # rows of whole vectors, a power of two words each (so each thread's and each block's
    # share whole vectors), read and staged a vector at a time (the offset: when bound)
    vec = (tuning.ARG_STAGE_VEC and not odd and slots == words and words % VEC_WORDS == 0
           and wg & (wg - 1) == 0)
    groups = ceil_div(ceil_div(red.n_out, per_unit), units)
    variables = dict(dt=dt, op=op, descending=descending, strategy="stage", source="input",
                     sink="index", wg=wg, stage_words=thread_words, row_slots=slots,
                     unroll=words, odd_rows=odd, idx_words=idx_words, joined=False,
                     multi_red=False,
                     red2=False, smajor=False, tally=False, wg_pack=0,
                     nan_by_tile=_nan_by_tile(dt),
                     min_fold=_min_fold(op, dt, "stage"),
                     src_vec=VEC_WORDS if vec else 1,
                     **extra)
    params = dict(_dims(red.kept, red.red), n_out=red.n_out, n_red=red.n_red,
                  chunk=red.n_red, n_split=1, n_groups=groups)
    step = Step(template, variables, params, groups, "input", "output",
                mid_word=dict(joined=True) if dt.per_word > 1 else None,
                in_align=(VEC_WORDS * 32 // dt.bits, dict(src_vec=1)) if vec else None)
    notes = dict(strategy="stage", split=1, chunk=red.n_red, tally_merge=False, tally_pack=False,
                 tally_codes=False,
                 threads_per_row=1, packed=dt.per_word > 1, row_groups=1,
                 outputs_per_thread=thread_words // slots * per_unit, lanes_per_output=1,
                 stage_vec=vec)
    return Plan([step], 0, notes)


def _tally_batch(n: int) -> int:
    """Partials a thread of the tally merge loads at once (all n, or 0: one at a time)."""
    return n if n <= tuning.TALLY_BATCH else 0


def _walk(n_in: int, tpr: int, unroll: int, red2: bool) -> dict:
    """How a row plan over several reduced dims walks them without per-thread carries
    (template variables walk, ks): n_in items (words where packed) in the inner run."""
    if red2 and tpr % n_in == 0:  # a thread keeps its place in the run, da runs a step
        return dict(walk="stride")
    if n_in % tpr == 0:  # a tile's threads share each step's run
        k = n_in // tpr  # steps a run
        if red2 and (k % unroll == 0 or unroll % k == 0):  # where runs change: constants
            return dict(walk="steps", ks=min(k, unroll))
        return dict(walk="tile")
    return dict(walk="carry")


def windows(buffer, byte_lo: int, byte_hi: int, window_bytes: int, max_windows: int,
            what: str):
    """Bind bytes [byte_lo, byte_hi) of `buffer` as consecutive windows.

    Returns (base_byte, [(buffer, offset, size), ...]); element offsets in the uniform are
    relative to base_byte, which is aligned for storage bindings.
    """
    base = byte_lo // WINDOW_ALIGN * WINDOW_ALIGN
    span = max(4, byte_hi - base)
    n = ceil_div(span, window_bytes)
    if n > max_windows:
        raise DeviceLimitError(
            f"{what}: {byte_hi - byte_lo} bytes need {n} storage bindings of at most "
            f"{window_bytes} bytes (the device's max-storage-buffer-binding-size), more than "
            f"the {max_windows} a kernel may use (max-storage-buffers-per-shader-stage)")
    out = []
    for i in range(n):
        off = base + i * window_bytes
        size = min(window_bytes, buffer.size - off)
        out.append((buffer, off, size // 4 * 4))
    return base, out


def pack_uniform(params: dict, **runtime):
    from .codegen import pack_params

    return pack_params(**params, **runtime)
