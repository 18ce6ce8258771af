"""NonZeroCoordinates: the compiled operator, its plan and the public function.

Stream compaction by reduce-then-scan over tiles, three kinds of dispatch in one pass:
1. count (nonzero_count): per tile of the input, a bit mask of its non-zero elements and
   their number; the only pass that reads the input (once, coalesced).
2. scan (nonzero_scan): exclusive prefix sums of the tile counts, one dispatch per level
   of a hierarchy; the top level writes the total to the count output. Where one level
   holds every tile (tuning.NONZERO_FUSED_SCAN), no scan dispatch: each scatter workgroup
   sums the counts of the tiles before its own, and the first writes the total.
3. scatter (nonzero_scatter): per mask block, the coordinates of its non-zeros from its
   offset on (the tile's, plus its earlier blocks' popcounts), in row-major order; a tile
   of few non-zeros is written by one workgroup. Reads the masks (1 bit per element), not
   the input.
No workgroup waits for another, so nothing relies on forward progress between
workgroups; the count stays on the GPU.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from .. import canon, dtypes, tuning, validate
from .. import plan as planmod
from ..desc import NonZeroCoordinatesDesc, TensorDesc
from ..errors import DeviceLimitError
from ..runtime import dispatch
from ..runtime.device import default_device, register_operator
from ..runtime.tensor import Tensor
from ..sizes import ceil_div
from . import base

# Scratch arrays: scan levels whose arrays fit the uniform's nz_at table (mask, tile
# offsets, then one value array per level).
MAX_LEVELS = 6
_U32 = 2**32


def coordinate_ranks(sizes) -> tuple[int, int]:
    """Allowed N (coordinate columns): the effective rank (the rank without leading size-1
    dimensions, at least 1) up to the rank."""
    lead = 0
    while lead < len(sizes) and sizes[lead] == 1:
        lead += 1
    return max(1, len(sizes) - lead), len(sizes)


def plan(sizes, strides, dt: dtypes.DType, n_coords: int, out_strides,
         fuse_scan: bool = True, subgroup_size: int = 0) -> planmod.Plan:
    """Steps, scratch layout and grid of NonZeroCoordinates over a (sizes, strides) input.

    `out_strides`: element strides of the coordinates' row and column dimensions.
    `fuse_scan`: the scatter may take the scan's place (it binds the count too).
    `subgroup_size`: the device's (0: none), for the workgroup sums by subgroup.
    Tuning numbers are read here (not at import), so that tests may shrink them.
    """
    m = 1
    for n in sizes:
        m *= n
    wg = tuning.NONZERO_WG
    block = 32 * wg
    dims = canon.merge([canon.Dim(n, (s,)) for n, s in zip(sizes, strides, strict=True)])
    strided = not (len(dims) == 0 or (len(dims) == 1 and dims[0].strides[0] == 1))
    # input words one thread loads per mask block (a unit is one word, or two for 64-bit)
    words = 32 // dt.per_word * (2 if dt.bits == 64 else 1)
    tile_blocks = max(1, tuning.NONZERO_TILE_LOADS // words)
    tile = tile_blocks * block
    # the scatter pass sums a block's ranks (<= block) and its tile's earlier blocks'
    # non-zeros in one 32-bit scan
    if (tile_blocks - 1) * block >= 2 ** (32 - block.bit_length()):
        raise ValueError(f"tuning.NONZERO_TILE_LOADS: {tuning.NONZERO_TILE_LOADS} makes "
                         f"tiles of {tile_blocks} blocks of {block} elements, too many for "
                         "the scatter pass's 32-bit scan")
    n_tiles = ceil_div(m, tile)
    span = tuning.NONZERO_SCAN_SPAN
    if span < 2:
        raise ValueError(f"tuning.NONZERO_SCAN_SPAN: {span} is too small (allowed 2 and up)")
    levels = [n_tiles]  # values at each scan level
    while levels[-1] > span:
        levels.append(ceil_div(levels[-1], span))
    if len(levels) > MAX_LEVELS:
        raise DeviceLimitError(f"input: {n_tiles} tiles need {len(levels)} scan levels of "
                               f"{span} (at most {MAX_LEVELS})")
    # scratch: [mask][tile offsets][tile counts = level 0][level 1]...
    at = [0, n_tiles * tile_blocks * wg]
    pos = at[1] + n_tiles
    for n in levels:
        at.append(pos)
        pos += n
    scratch_words = max(1, pos)
    if m + tile >= _U32 or m * n_coords >= _U32 or scratch_words >= _U32:
        raise DeviceLimitError(
            f"input: {m} elements with {n_coords} coordinates each exceed the 32-bit element "
            f"and word indices of the kernels (at most {_U32 - 1 - tile} elements and "
            f"{_U32 - 1} coordinate words)")
    coord_sizes = list(sizes[len(sizes) - n_coords:])
    params = dict(ksize=[d.size for d in dims], kin=[d.strides[0] for d in dims],
                  nk=len(dims), rsize=coord_sizes, nr=n_coords, kout=list(out_strides),
                  elems=m, tile_blocks=tile_blocks, scan_span=span,
                  nz_at=at + [0] * (8 - len(at)))
    # the count's and the scatter's workgroup sums by subgroup, where the device has them
    sg = bool(subgroup_size and tuning.NONZERO_SUBGROUP_SUMS)
    steps = []
    if n_tiles:
        steps.append(planmod.Step("nonzero_count.wgsl.j2",
                                  dict(dt=dt, strided=strided, tile_blocks=tile_blocks, wg=wg,
                                       sg=sg),
                                  dict(params, n_groups=n_tiles), n_tiles, "input", "scratch"))
    # one scan level of at least one tile: the scatter sums its earlier tiles' counts itself
    fused = fuse_scan and tuning.NONZERO_FUSED_SCAN and 1 <= n_tiles <= span
    for level, n in enumerate([] if fused else levels):
        groups = max(1, ceil_div(n, span))
        steps.append(planmod.Step("nonzero_scan.wgsl.j2", dict(wg=wg, items=ceil_div(span, wg)),
                                  dict(params, scan_level=level, n_groups=groups), groups,
                                  "", "scratch"))
    # a row's coordinates as vectors where the rows are contiguous and a multiple of one
    vec = 1
    if tuning.NONZERO_VEC_STORES and tuple(out_strides) == (n_coords, 1):
        vec = next((v for v in (4, 2) if n_coords % v == 0), 1)
    # ... and its block ranks by subgroup (few coordinate columns)
    sg_scan = (tuning.NONZERO_SUBGROUP_SCAN
               if sg and n_coords <= tuning.NONZERO_SUBGROUP_SCAN_MAX_COORDS else 0)
    if n_tiles:
        blocks = n_tiles * tile_blocks
        steps.append(planmod.Step("nonzero_scatter.wgsl.j2",
                                  dict(P=dt.per_word, tile_blocks=tile_blocks, nr=n_coords,
                                       stage=tuning.NONZERO_STAGE,
                                       unroll=tuning.NONZERO_ROUNDS_UNROLL, wg=wg, vec=vec,
                                       sg=sg, sg_scan=sg_scan,
                                       fused_items=ceil_div(span, wg) if fused else 0,
                                       pool=n_coords <= tuning.NONZERO_SCATTER_POOL_MAX_COORDS),
                                  dict(params, n_groups=blocks), blocks, "scratch",
                                  "coordinates"))
    return planmod.Plan(steps, scratch_words * 4, dict(
        strided=strided, tiles=n_tiles, tile_elements=tile,
        scan_levels=0 if fused else len(levels), fused_scan=fused))


class CompiledNonZeroCoordinates(base.CompiledOp):
    """A compiled NonZeroCoordinates: constraints checked and pipelines built up front."""

    label = "NonZeroCoordinates"

    def __init__(self, device, desc: NonZeroCoordinatesDesc):
        self.device, self.desc = device, desc
        name = type(desc).__name__
        src, cnt, crd = desc.input, desc.output_count, desc.output_coordinates
        validate.rank(src.sizes, f"{name}.input")
        self.dt = dtypes.lookup(src.dtype, f"{name}.input.dtype")
        for field, t in (("output_count", cnt), ("output_coordinates", crd)):
            if t.dtype != "uint32":
                raise TypeError(f"{name}.{field}.dtype: {t.dtype} is not supported "
                                "(allowed: uint32)")
        validate.rank(cnt.sizes, f"{name}.output_count")
        if any(n != 1 for n in cnt.sizes):
            raise ValueError(f"{name}.output_count.sizes: {cnt.sizes} should all be 1 "
                             "(one element)")
        m = 1
        for n in src.sizes:
            m *= n
        lo, hi = coordinate_ranks(src.sizes)
        sizes = crd.sizes
        if not (2 <= len(sizes) <= validate.MAX_RANK and all(n == 1 for n in sizes[:-2])
                and sizes[-2] == m and lo <= sizes[-1] <= hi):
            raise ValueError(
                f"{name}.output_coordinates.sizes: {sizes} should be {{1,...,1,M,N}} with "
                f"M = {m} (the input's element count) and N in {lo}..{hi} (the input's "
                f"effective rank up to its rank), rank 2..{validate.MAX_RANK}")
        for field, t, isz in (("input", src, self.dt.itemsize), ("output_coordinates", crd, 4)):
            if base.span_bytes(t.sizes, t.element_strides, isz) >= 4 * _U32:
                raise DeviceLimitError(f"{name}.{field}: spans 2^32 or more 32-bit words, "
                                       "past the kernels' word indices")
        self.plan = plan(src.sizes, src.element_strides, self.dt, sizes[-1],
                         crd.element_strides[-2:], subgroup_size=device.subgroup_size)
        # the bindings that tensors at offset 0 need
        wins = {"": 0, "scratch": base.n_windows(self.plan.partial_bytes, device),
                "input": base.n_windows(base.span_bytes(src.sizes, src.element_strides,
                                                        self.dt.itemsize), device),
                "coordinates": base.n_windows(base.span_bytes(sizes, crd.element_strides, 4),
                                              device)}
        # a scatter that binds the count too must leave it a binding, and the coordinates
        # one window more than at offset 0: else the scan keeps its own dispatch (the same
        # scratch layout)
        if (self.plan.notes["fused_scan"] and wins["coordinates"] + 1 + wins["scratch"] + 1
                > device.max_storage_bindings):
            self.plan = plan(src.sizes, src.element_strides, self.dt, sizes[-1],
                             crd.element_strides[-2:], fuse_scan=False,
                             subgroup_size=device.subgroup_size)
        self._ready([src], [cnt, crd], ["output_count", "output_coordinates"],
                    [("scratch", self.plan.partial_bytes, "NonZeroCoordinates scratch")])
        # build the pipelines now, for those bindings
        if max(wins["input"], wins["coordinates"] + self.plan.notes["fused_scan"]) + \
                wins["scratch"] <= device.max_storage_bindings:
            for step in self.plan.steps:
                device.pipelines.get(step.template, **step.variables,
                                     n_in_win=wins[step.source], n_out_win=wins[step.sink])

    def launches(self, xs, ys, scratch_bufs) -> list[dispatch.Launch]:
        dev, p = self.device, self.plan
        (x,), (count, coords) = xs, ys
        scratch = scratch_bufs["scratch"]
        budget = dev.max_storage_bindings
        _, s_wins = planmod.windows(scratch, 0, p.partial_bytes, dev.window_bytes,
                                    budget - 1, "NonZeroCoordinates scratch")
        k_off, k_wins = base.bind(dev, count, 1, "outputs[0] (count)")
        c_off, c_wins = 0, []
        x_off, x_wins = 0, []
        if p.notes["tiles"]:
            c_off, c_wins = base.bind(dev, coords, budget - len(s_wins) - p.notes["fused_scan"],
                                      "outputs[1] (coordinates)")
            x_off, x_wins = base.bind(dev, x, budget - len(s_wins), "inputs[0]")
        bound = {"input": (x_wins, x_off), "scratch": (s_wins, 0), "": ([], 0),
                 "coordinates": (c_wins, c_off)}
        win_words = dev.window_bytes // 4
        result = []
        for step in p.steps:
            src, in_off = bound[step.source]
            dst, out_off = bound[step.sink]
            extra, runtime = [], {}
            if step.template == "nonzero_scan.wgsl.j2":  # the top level writes the count
                extra, out_off = k_wins, k_off
            elif step.variables.get("fused_items"):  # so does the scatter's first workgroup
                extra, runtime = k_wins, dict(aux0=k_off)
            variables = step.variables
            if variables.get("vec", 1) > 1 and out_off % variables["vec"]:
                variables = dict(variables, vec=1)  # (coordinates mid-vector: word stores)
            pipeline, layout = dev.pipelines.get(step.template, **variables,
                                                 n_in_win=len(src), n_out_win=len(dst))
            params = planmod.pack_uniform(step.params, in_offset=in_off, out_offset=out_off,
                                          win_words=win_words, **runtime)
            result.append(dispatch.Launch(pipeline, layout, src + dst + extra, params,
                                          step.n_groups))
        return result


register_operator(NonZeroCoordinatesDesc, CompiledNonZeroCoordinates)


def nonzero_coordinates(x: Tensor | ArrayLike, coordinate_rank: int | None = None, *,
                        out: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
    """Coordinates of the non-zero elements of `x`, in row-major order.

    Returns (count, coordinates): count is a uint32 tensor of shape (1,); coordinates a
    uint32 tensor of shape (x.size, N), row i the coordinate of the i-th non-zero element
    over the last N dimensions (N = coordinate_rank, default x.ndim; at least the rank
    without leading size-1 dimensions). Rows from count on are undefined. -0.0 counts as
    zero; NaN and denormals count as non-zero. `out`: (count, coordinates) to write.
    """
    outs = base.out_tensors(out, 2)
    key = None
    if type(x) is Tensor:  # the hot path: a call like an earlier one
        key = (NonZeroCoordinatesDesc, x._dt, x._shape, x._strides, type(coordinate_rank),
               coordinate_rank, base.out_signature(outs))
        op = base.hot_lookup(x.device, key)
        if op is not None:
            ys = base.hot_call(op, x, outs)
            return ys[0], ys[1]
    xd = base.tensor_desc(x)  # every check below runs before a numpy input is uploaded
    validate.rank(xd.sizes, "x")
    lo, hi = coordinate_ranks(xd.sizes)
    if coordinate_rank is None:
        n = len(xd.sizes)
    else:
        n = validate.integer(coordinate_rank, "coordinate_rank")
        if not lo <= n <= hi:
            raise ValueError(f"coordinate_rank: {n} is out of range for x of shape "
                             f"{xd.sizes} (allowed {lo}..{hi})")
    m = 1
    for size in xd.sizes:
        m *= size
    cd, kd = base.out_descs(outs, [TensorDesc("uint32", (1,)), TensorDesc("uint32", (m, n))])
    desc = NonZeroCoordinatesDesc(xd, cd, kd)
    device = x.device if isinstance(x, Tensor) else default_device()
    op = device.compile(desc)
    count, coords = op(inputs=[base.input_tensor(x, device)], outputs=outs)
    if key is not None:  # after a call that passed every check
        base.hot_store(device, key, op)
    return count, coords
