"""Coordinates to int64 index arrays, on the GPU: the layout conversion behind numpy's
`nonzero` and `argwhere` (dmlgpu/numpy.py). NonZeroCoordinates writes uint32 rows of N
coordinates; numpy wants int64, either one array per dimension or (nnz, N) rows."""

from __future__ import annotations

from dataclasses import dataclass

from .. import codegen, validate
from ..desc import TensorDesc
from ..errors import DeviceLimitError
from ..runtime import dispatch
from ..runtime.device import register_operator
from ..sizes import ceil_div
from . import base

WG = 256  # threads per workgroup: one element each (a memory-bound copy)


@dataclass(frozen=True)
class CoordsToIndicesDesc:
    """The first `count` rows of `input` (uint32, (M, N) packed) as int64 `output`: shape
    (N, count) when `per_dim` (numpy's nonzero), else (count, N) (argwhere)."""

    input: TensorDesc
    output: TensorDesc
    count: int
    per_dim: bool

    def __post_init__(self):
        object.__setattr__(self, "count", validate.integer(self.count, "count"))


class CompiledCoordsToIndices(base.CompiledOp):
    label = "coordinates to int64 indices"

    def __init__(self, device, desc: CoordsToIndicesDesc):
        self.device, self.desc = device, desc
        m, n = desc.input.sizes[-2:]
        if desc.input.dtype != "uint32" or not 0 <= desc.count <= m:
            raise ValueError(f"CoordsToIndicesDesc: count {desc.count} for uint32 coordinates "
                             f"{desc.input.sizes}")
        expected = (n, desc.count) if desc.per_dim else (desc.count, n)
        if desc.output.dtype != "int64" or desc.output.sizes != expected:
            raise ValueError(f"CoordsToIndicesDesc.output: int64{list(expected)} expected")
        total = desc.count * n
        for what, nbytes in (("input", m * n * 4), ("output", total * 8)):
            if nbytes > device.window_bytes:
                raise DeviceLimitError(f"{what}: {nbytes} bytes exceed one storage binding "
                                       f"({device.window_bytes} bytes)")
        self.total = total
        self.empty = total == 0
        self.pipeline = device.pipelines.get("coords_int64.wgsl.j2", wg=WG)
        self._ready([desc.input], [desc.output], ["output"])

    def launches(self, xs, ys, scratch):
        (x,), (y,) = xs, ys
        n = self.desc.input.sizes[-1]
        count = self.desc.count
        vstep, istep = (count, 1) if self.desc.per_dim else (1, n)
        groups = ceil_div(self.total, WG)
        params = codegen.pack_params(n_out=self.total, aux1=n, vstep=vstep, istep=istep,
                                     in_offset=x.element_offset, out_offset=y.element_offset,
                                     n_groups=groups)
        pipeline, layout = self.pipeline
        for what, t in (("coordinates", x), ("output", y)):
            if t._buf.size > self.device.window_bytes:  # bound whole, as one binding
                raise DeviceLimitError(f"{what}: its {t._buf.size}-byte buffer exceeds one "
                                       f"storage binding ({self.device.window_bytes} bytes)")
        return [dispatch.Launch(pipeline, layout,
                                [(x._buf, 0, x._buf.size // 4 * 4),
                                 (y._buf, 0, y._buf.size // 4 * 4)], params, groups)]


register_operator(CoordsToIndicesDesc, CompiledCoordsToIndices)


def coords_to_indices(coords, count: int, per_dim: bool):
    """int64 (N, count) (per_dim) or (count, N) indices from `coords` (uint32 (M, N))."""
    m, n = coords.shape[-2:]
    out_shape = (n, count) if per_dim else (count, n)
    desc = CoordsToIndicesDesc(TensorDesc("uint32", coords.shape, coords.strides),
                               TensorDesc("int64", out_shape), count, per_dim)
    (y,) = coords.device.compile(desc)(inputs=[coords])
    return y

