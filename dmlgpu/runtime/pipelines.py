"""Compute pipelines, built once per (template, template variables) and cached.

The key is the variables, not the rendered text: rendering is skipped on a hit.
DMLGPU_PRINT_WGSL=1 prints the numbered WGSL of a shader that fails to compile.
"""

from __future__ import annotations

import os
import sys

from .. import codegen
from ..errors import ShaderCompileError


class PipelineCache:
    def __init__(self, device):
        self._device = device
        self._cache: dict = {}
        self.compile_seconds = 0.0  # total time spent building pipelines (bench reports it)
        self.misses = 0

    def __len__(self):
        return len(self._cache)

    def get(self, template: str, **variables):
        key = (template, tuple(sorted(variables.items())))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        with self._device.lock:
            hit = self._cache.get(key)
            if hit is None:
                hit = self._build(template, variables, key)
                self._cache[key] = hit
        return hit

    def _build(self, template, variables, key):
        import time

        t0 = time.perf_counter()
        source = codegen.render(template, variables)
        if self._device.webgpu == "wgpu":
            # naga rejects `enable subgroups` (not yet implemented, gfx-rs/wgpu#5555) but
            # takes the subgroup builtins once the device has its "subgroup" feature
            source = source.replace("enable subgroups;\n", "")
        dev = self._device.device
        try:
            module = dev.create_shader_module(label=template, code=source)
            pipeline = dev.create_compute_pipeline(
                label=template, layout="auto", compute={"module": module, "entry_point": "main"})
        except Exception as e:
            if os.environ.get("DMLGPU_PRINT_WGSL"):
                print(f"--- {template} {dict(variables)}\n{codegen.numbered(source)}",
                      file=sys.stderr)
            raise ShaderCompileError(
                f"shader {template} with {dict(variables)} failed to compile on "
                f"{self._device.implementation} (set DMLGPU_PRINT_WGSL=1 to print it): {e}") from e
        self.compile_seconds += time.perf_counter() - t0
        self.misses += 1
        return pipeline, pipeline.get_bind_group_layout(0)
