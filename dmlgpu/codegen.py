"""WGSL generation from the Jinja2 templates in kernels/ (StrictUndefined: a missing
template variable is an error, not an empty string).

Template variables carry only what changes the code; sizes, strides and offsets travel in
the uniform block described by PARAMS.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import jinja2
import numpy as np

# The uniform block shared by all kernels: (name, u32 count). Arrays of 8 hold one value
# per canonical dim (rank <= 8); WGSL stores them as array<vec4<u32>, 2>.
PARAMS = (
    ("ksize", 8), ("kin", 8), ("kout", 8), ("rsize", 8), ("rin", 8),
    ("in_offset", 1), ("out_offset", 1), ("n_out", 1), ("n_red", 1),
    ("chunk", 1), ("n_split", 1), ("groups_x", 1), ("n_groups", 1),
    ("win_words", 1), ("nk", 1), ("nr", 1), ("aux0", 1),
    # NonZeroCoordinates: element count, mask blocks per tile, values per scan workgroup,
    # the level a scan dispatch scans, and word offsets of its arrays in the scratch buffer.
    # (Keep the block a multiple of 4 words with arrays 16-byte aligned: WGSL pads otherwise.)
    ("elems", 1), ("tile_blocks", 1), ("scan_span", 1), ("scan_level", 1), ("nz_at", 8),
    # TopK1: the index output's kept strides and offset, K, the outputs' strides along the
    # axis, the key flip of INCREASING, and three per-kernel values (see dmlgpu/topk.py).
    ("kidx", 8), ("idx_offset", 1), ("k", 1), ("vstep", 1), ("istep", 1),
    ("key_flip", 1), ("aux1", 1), ("aux2", 1), ("aux3", 1),
)
PARAMS += (("rout", 8),)  # Hardmax: output strides of the reduced dims
_OFFSETS = {}
_pos = 0
for _name, _count in PARAMS:
    _OFFSETS[_name] = (_pos, _count)
    _pos += _count
    # WGSL aligns array<vec4<u32>, N> to 16 bytes: an array must start at a multiple of 4 words
    assert _count == 1 or _OFFSETS[_name][0] % 4 == 0, f"PARAMS: {_name} is not 16-byte aligned"
PARAMS_WORDS = -(-_pos // 4) * 4  # the struct's size rounds up to its 16-byte alignment


def pack_params(**values) -> np.ndarray:
    """The uniform block as u32 words; ints wrap (negative strides become two's complement)."""
    out = np.zeros(PARAMS_WORDS, np.uint32)
    for name, v in values.items():
        pos, count = _OFFSETS[name]
        if count == 1:
            out[pos] = int(v) & 0xFFFFFFFF
        else:
            vals = [int(x) & 0xFFFFFFFF for x in v]
            out[pos:pos + len(vals)] = vals
    return out


def _kernel_dir() -> Path:
    try:  # installed: setuptools maps kernels/ to the dmlgpu.kernels package
        p = resources.files("dmlgpu.kernels")
        if p.joinpath("common.wgsl.j2").is_file():
            return Path(str(p))
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parent.parent / "kernels"  # source checkout


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_kernel_dir())),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, autoescape=False)


def render(template: str, variables: dict) -> str:
    return environment().get_template(template).render(params=PARAMS, **variables)


def numbered(source: str) -> str:
    return "\n".join(f"{i:4d} | {line}" for i, line in enumerate(source.splitlines(), 1))
