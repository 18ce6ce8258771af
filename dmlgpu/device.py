"""The GPU device: WebGPU implementation and adapter choice, limits, buffers, transfers.

One of three modules (with `pipelines` and `dispatch`) that touch wgpu.
"""

from __future__ import annotations

import importlib
import itertools
import os
import threading
from collections import OrderedDict

import numpy as np

from .errors import DeviceLimitError, DmlgpuError
from .pool import BufferPool

IMPLEMENTATIONS = {"wgpu": ("wgpu", "wgpu-native"), "dawn": ("wgpudawn", "dawn")}

# Limits we ask for at the adapter's full value instead of WebGPU's defaults (128 MiB
# bindings, 256 MiB buffers, 16 KiB workgroup memory would cap tensor sizes for nothing).
_WANTED_LIMITS = (
    "max-storage-buffer-binding-size",
    "max-buffer-size",
    "max-compute-workgroup-storage-size",
    "max-storage-buffers-per-shader-stage",
    "max-compute-invocations-per-workgroup",
    "max-compute-workgroup-size-x",
    "max-compute-workgroups-per-dimension",
)
# Optional features used behind a capability check, each with a tested portable fallback.
# Subgroups: wgpu-native names the feature "subgroup", WebGPU (Dawn) "subgroups".
_OPTIONAL_FEATURES = ("timestamp-query", "shader-f16", "subgroup", "subgroups")
_SUBGROUP_FEATURES = ("subgroup", "subgroups")

# Reports the subgroup sizes one 256-thread workgroup runs with (see Device.subgroup_size).
_SUBGROUP_PROBE = """
@group(0) @binding(0) var<storage, read_write> out: array<atomic<u32>, 2>;
@compute @workgroup_size(256)
fn main(@builtin(subgroup_size) sgs: u32) {
  atomicMin(&out[0], sgs);
  atomicMax(&out[1], sgs);
}
"""
# Requested whenever the adapter has it (Dawn): Dawn objects are not thread-safe without
# it, and a wrapper releases the last reference to a buffer from whatever thread drops it
# (every call dmlgpu itself makes holds Device.lock; wgpu-native is thread-safe anyway).
_THREAD_FEATURES = ("implicit-device-synchronization",)
# Uniform blocks of one submission share a buffer at offsets of this many bytes (WebGPU's
# largest allowed min-uniform-buffer-offset-alignment, so valid on every device).
UNIFORM_ALIGN = 256

# Bindings start at multiples of this (it is >= every adapter's min storage offset alignment
# and a multiple of 8, so no 64-bit element straddles two windows).
WINDOW_ALIGN = 256


_serials = itertools.count(1)


class Device:
    """A WebGPU device on one adapter.

    webgpu: "wgpu" (wgpu-native) or "dawn" (wgpudawn); default from DMLGPU_WEBGPU, else "wgpu".
    adapter: substring of the adapter name (case-insensitive); default from DMLGPU_ADAPTER.
    max_binding_size: cap the bytes of one storage binding below the device's limit (tests
    use it to exercise tensors that span several bindings on small data).

    Thread-safe: every call into WebGPU holds `lock`; the compile, pipeline and buffer-pool
    caches are guarded. Per-call scratch and uniform buffers come from `pool` (pool.py).
    """

    def __init__(self, webgpu: str | None = None, adapter: str | None = None, *,
                 max_binding_size: int | None = None, features: tuple[str, ...] | None = None):
        webgpu = webgpu or os.environ.get("DMLGPU_WEBGPU") or "wgpu"
        if webgpu not in IMPLEMENTATIONS:
            raise ValueError(f"webgpu: {webgpu!r} is not a WebGPU implementation "
                             f"(allowed: {', '.join(IMPLEMENTATIONS)})")
        module_name, self.implementation = IMPLEMENTATIONS[webgpu]
        try:
            self.wgpu = importlib.import_module(module_name)
        except ImportError as e:
            extra = " (pip install 'dmlgpu[dawn]')" if webgpu == "dawn" else ""
            raise DmlgpuError(
                f"webgpu={webgpu!r} needs the package {module_name}{extra}: {e}") from e
        self.webgpu = webgpu
        if webgpu == "dawn":
            _dawn_exact_timestamps(self.wgpu)
        self.adapter = self._pick_adapter(adapter if adapter is not None
                                          else os.environ.get("DMLGPU_ADAPTER"))
        alimits = self.adapter.limits
        required = {k: alimits[k] for k in _WANTED_LIMITS if k in alimits}
        wanted = _OPTIONAL_FEATURES if features is None else features
        wanted = tuple(wanted) + _THREAD_FEATURES
        self.features = frozenset(f for f in wanted if f in self.adapter.features)
        self.device = self.adapter.request_device_sync(
            required_features=sorted(self.features), required_limits=required)
        self.limits = dict(self.device.limits)
        binding = self.limits["max-storage-buffer-binding-size"]
        if max_binding_size is not None:
            binding = min(binding, int(max_binding_size))
        # one window of a large tensor: the largest aligned size a binding may have
        self.window_bytes = binding // WINDOW_ALIGN * WINDOW_ALIGN
        self.max_buffer_size = self.limits["max-buffer-size"]
        self.max_workgroups = self.limits["max-compute-workgroups-per-dimension"]
        # bindings left for windows of one tensor after the uniform and other tensors
        self.max_storage_bindings = self.limits["max-storage-buffers-per-shader-stage"]
        self.lock = threading.RLock()
        self.serial = next(_serials)  # tells devices on one adapter apart in messages
        from .pipelines import PipelineCache  # noqa: PLC0415 - avoids an import cycle

        self.pipelines = PipelineCache(self)
        self._compiled = OrderedDict()
        self.pool = BufferPool(self._pool_create)
        self._subgroup_size: int | None = None

    def compile(self, desc):
        """Check a DirectML-style description and build its pipelines once."""
        from .operators import compile_desc  # noqa: PLC0415 - operators import this module

        return compile_desc(self, desc, self._compiled)

    @property
    def subgroups(self) -> bool:
        """Whether shaders may use subgroup operations (the feature was granted)."""
        return any(f in self.features for f in _SUBGROUP_FEATURES)

    @property
    def subgroup_size(self) -> int:
        """Lanes per subgroup of this device's compute shaders, 0 without subgroups or if
        it varies. Measured once by a probe kernel: the adapter's reported range is not
        usable (wgpu-py's info gives WebGPU's defaults, 4 to 128, whatever the device)."""
        if self._subgroup_size is None:
            self._subgroup_size = self._probe_subgroup_size() if self.subgroups else 0
        return self._subgroup_size

    def _probe_subgroup_size(self) -> int:
        src = _SUBGROUP_PROBE
        if self.webgpu == "dawn":  # (naga takes subgroup builtins without it, and rejects it)
            src = "enable subgroups;\n" + src
        u = self.wgpu.BufferUsage
        with self.lock:
            gpu = self.device
            pipeline = gpu.create_compute_pipeline(
                layout="auto", compute={"module": gpu.create_shader_module(code=src),
                                        "entry_point": "main"})
            buf = gpu.create_buffer(size=8, usage=u.STORAGE | u.COPY_SRC | u.COPY_DST)
            gpu.queue.write_buffer(buf, 0, np.array([0xFFFFFFFF, 0], np.uint32))
            group = gpu.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
                {"binding": 0, "resource": {"buffer": buf, "offset": 0, "size": 8}}])
            encoder = gpu.create_command_encoder()
            cpass = encoder.begin_compute_pass()
            cpass.set_pipeline(pipeline)
            cpass.set_bind_group(0, group)
            cpass.dispatch_workgroups(1, 1, 1)
            cpass.end()
            gpu.queue.submit([encoder.finish()])
            lo, hi = np.frombuffer(gpu.queue.read_buffer(buf), np.uint32)
        return int(lo) if lo == hi and 0 < lo <= 256 and lo & (lo - 1) == 0 else 0

    def _pick_adapter(self, name: str | None):
        gpu = self.wgpu.gpu
        if not name:
            return gpu.request_adapter_sync(power_preference="high-performance")
        adapters = gpu.enumerate_adapters_sync()
        names = [a.info.get("device", "") for a in adapters]
        for a, n in zip(adapters, names, strict=True):
            if name.lower() in n.lower():
                return a
        raise ValueError(f"adapter: no adapter matches {name!r} (available: {names})")

    @property
    def info(self) -> dict:
        """Adapter, backend, implementation, features and limits in use."""
        ai = self.adapter.info
        return {
            "adapter": ai.get("device", ""),
            "description": ai.get("description", ""),
            "vendor": ai.get("vendor", ""),
            "adapter_type": ai.get("adapter_type", ""),
            "backend": ai.get("backend_type", ""),
            "implementation": self.implementation,
            "features": sorted(self.features),
            "subgroup_size": self.subgroup_size,
            "limits": {k: self.limits[k] for k in _WANTED_LIMITS if k in self.limits},
            "window_bytes": self.window_bytes,
        }

    def __repr__(self):
        i = self.info
        return (f"<dmlgpu.Device #{self.serial} {i['adapter']!r} {i['backend']} via "
                f"{i['implementation']}>")

    # -- buffers -------------------------------------------------------------------------

    def create_buffer(self, nbytes: int, *, what: str = "tensor"):
        """A storage buffer of at least `nbytes` (rounded up to whole words)."""
        size = max(4, -(-int(nbytes) // 4) * 4)
        if size > self.max_buffer_size:
            raise DeviceLimitError(
                f"{what}: {nbytes} bytes exceeds the device's max-buffer-size limit "
                f"({self.max_buffer_size} bytes)")
        u = self.wgpu.BufferUsage
        try:
            with self.lock:
                return self.device.create_buffer(size=size,
                                                 usage=u.STORAGE | u.COPY_SRC | u.COPY_DST)
        except Exception as e:  # out of memory surfaces as a validation/OOM error
            raise DmlgpuError(f"{what}: allocating {size} bytes failed on "
                              f"{self.implementation} (out of device memory, or the device "
                              f"was lost): {e}") from e

    def scratch(self, nbytes: int, what: str = "scratch"):
        """A storage buffer of at least `nbytes` from the pool, for work inside one call;
        give it back with `recycle` once the submission using it is queued."""
        return self.pool.acquire("storage", nbytes, what)

    def recycle(self, buffers) -> None:
        """Return pool buffers (None entries are skipped) after their submission is queued."""
        self.pool.release(buffers)

    def _pool_create(self, kind: str, nbytes: int, what: str):
        if kind == "storage":
            return self.create_buffer(nbytes, what=what)
        u = self.wgpu.BufferUsage
        try:
            with self.lock:
                return self.device.create_buffer(size=nbytes, usage=u.UNIFORM | u.COPY_DST)
        except Exception as e:
            raise DmlgpuError(f"{what}: allocating a {nbytes}-byte uniform buffer failed on "
                              f"{self.implementation}: {e}") from e

    def uniforms(self, blocks: list) -> tuple:
        """The uniform blocks of one submission in one pool buffer, written through the
        queue (so after every earlier submission, see pool.py): (buffer, slot bytes).
        Block i is at offset i * slot. Give the buffer back with `recycle` after submit."""
        size = max(b.nbytes for b in blocks)
        slot = -(-size // UNIFORM_ALIGN) * UNIFORM_ALIGN
        data = np.zeros(slot * len(blocks), np.uint8)
        for i, b in enumerate(blocks):
            data[i * slot:i * slot + b.nbytes] = np.ascontiguousarray(b).view(np.uint8).ravel()
        buf = self.pool.acquire("uniform", data.nbytes, "uniforms")
        try:
            self.upload(buf, data)
        except BaseException:
            self.pool.release([buf])
            raise
        return buf, slot

    def upload(self, buffer, data: np.ndarray, offset: int = 0) -> None:
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        pad = (-raw.size) % 4
        if pad:
            raw = np.concatenate([raw, np.zeros(pad, np.uint8)])
        if raw.size:
            try:
                with self.lock:
                    self.device.queue.write_buffer(buffer, offset, raw)
            except Exception as e:
                raise DmlgpuError(f"writing {raw.size} bytes to the GPU failed on "
                                  f"{self.implementation} (the device may be lost): {e}") from e

    def download(self, buffer, offset: int, nbytes: int) -> np.ndarray:
        """Bytes [offset, offset+nbytes) of a buffer; offset and nbytes multiples of 4."""
        if nbytes == 0:
            return np.zeros(0, np.uint8)
        try:
            with self.lock:
                data = self.device.queue.read_buffer(buffer, offset, nbytes)
        except Exception as e:
            raise DmlgpuError(f"reading {nbytes} bytes back from the GPU failed on "
                              f"{self.implementation} (the device may be lost): {e}") from e
        return np.frombuffer(data, np.uint8)


def _dawn_exact_timestamps(module) -> None:
    """Dawn rounds timestamps to 65.5 us unless told otherwise (a toggle of its instance,
    which must be set before the instance exists; later calls are no-ops)."""
    try:
        extras = importlib.import_module(module.__name__ + ".backends.dawn.extras")
        extras.set_instance_extras(disable_toggles=["timestamp_quantization"])
    except Exception:  # an instance already exists, or an older wgpudawn: keep Dawn's rounding
        pass


_default: Device | None = None
_default_lock = threading.Lock()


def default_device() -> Device:
    """The process-wide device, created on first use from DMLGPU_WEBGPU / DMLGPU_ADAPTER."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Device()
        return _default
