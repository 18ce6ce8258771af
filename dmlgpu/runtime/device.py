"""The GPU device: WebGPU implementation and adapter choice (or the user's own device),
limits, the caching allocator, transfers, waits and the mapping of WebGPU's errors.

One of the runtime modules that touch wgpu (with `pipelines`, `dispatch` and `graph`).
Nothing here imports an operator: operators register their compiled classes with
`register_operator`, and `Device.compile` looks them up.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import operator
import os
import sys
import tempfile
import threading
import weakref
from collections import OrderedDict

import numpy as np

from ..errors import (
    DeviceLimitError,
    DeviceLostError,
    DmlgpuError,
    OutOfMemoryError,
    WebGPUValidationError,
)
from ..plan import WINDOW_ALIGN
from .allocator import Block, CachingAllocator, size_class

# name (case-insensitive) -> (Python package, implementation name)
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
OPTIONAL_FEATURES = ("timestamp-query", "shader-f16", "subgroup", "subgroups")
_SUBGROUP_FEATURES = ("subgroup", "subgroups")
# Requested whenever the adapter has it (Dawn): Dawn objects are not thread-safe without
# it, and a wrapper releases the last reference to a buffer from whatever thread drops it
# (every call dmlgpu itself makes holds Device.lock; wgpu-native is thread-safe anyway).
_THREAD_FEATURES = ("implicit-device-synchronization",)

# Reports the subgroup sizes one 256-thread workgroup runs with (see Device.subgroup_size).
_SUBGROUP_PROBE = """
@group(0) @binding(0) var<storage, read_write> out: array<atomic<u32>, 2>;
@compute @workgroup_size(256)
fn main(@builtin(subgroup_size) sgs: u32) {
  atomicMin(&out[0], sgs);
  atomicMax(&out[1], sgs);
}
"""
# Compiled operators kept per device for the functional API (dg.argmax etc.), which
# compiles on every call: the plan and pipeline lookups are then one dict hit.
CACHE_SIZE = 256
# Idle bytes the allocator keeps by default: two of the largest buffers the device allows
# (a loop alternating two maximal outputs still reuses both), at least 1 GiB.
DEFAULT_CACHE_FACTOR = 2

# Maps a staging buffer that a copy has just written. wgpu-py's "READ" first submits an empty
# command buffer (a wgpu-native workaround for buffers never written, gfx-rs/wgpu-native#305);
# its "READ_NOSYNC" skips that, as its own queue.read_buffer does for the same pattern (both
# implementations take it). H100, wgpu-native: a 16-byte t.numpy() 351 us before the
# staging buffers, 268 us after (README's breakdown).
_MAP_READ = "READ_NOSYNC"

_serials = itertools.count(1)
_COMPILERS: dict[type, type] = {}
# dg.Device wrappers by id of their GPUDevice, so that a user's buffer finds its Device
_WRAPPERS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def register_operator(desc_cls: type, compiled_cls: type) -> None:
    """Operators make their description type compilable (called at their import)."""
    _COMPILERS[desc_cls] = compiled_cls


def implementation(webgpu, arg: str = "webgpu") -> str:
    """The key of IMPLEMENTATIONS that `webgpu` names, case-insensitively."""
    if not isinstance(webgpu, str) or webgpu.lower() not in IMPLEMENTATIONS:
        raise ValueError(f"{arg}: {webgpu!r} is not a WebGPU implementation (allowed: "
                         f"{', '.join(IMPLEMENTATIONS)})")
    return webgpu.lower()


def _positive_int(value, arg: str, minimum: int = 1) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{arg}: {value!r} is not an integer")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{arg}: {value!r} is not an integer") from None
    if v < minimum:
        raise ValueError(f"{arg}: {v} is too small (allowed: {minimum} and up)")
    return v


class _Captures(threading.local):
    """Per thread: the Graph it records on a device (runtime/graph.py), None when none (a
    class default, so that the hot path's read raises nothing)."""

    graph = None


class Device:
    """A WebGPU device on one adapter.

    webgpu: "wgpu" (wgpu-native) or "dawn" (wgpudawn), any case; default from DMLGPU_WEBGPU,
    else "wgpu". adapter: substring of the adapter name (case-insensitive); default from
    DMLGPU_ADAPTER. features: the optional features to use (OPTIONAL_FEATURES; default all
    the adapter has). max_binding_size: cap the bytes of one storage binding below the
    device's limit (tests use it to exercise tensors that span several bindings).
    memory_limit: bytes dmlgpu may hold on the device, live and cached (default: no limit
    but the device's own). cache_limit: idle bytes the allocator keeps for reuse.

    Thread-safe: every call into WebGPU holds `lock`; the compile, pipeline and allocator
    caches are guarded. `Device.from_wgpu` wraps a device the caller already has.
    """

    def __init__(self, webgpu: str | None = None, adapter: str | None = None, *,
                 max_binding_size: int | None = None, features: tuple[str, ...] | None = None,
                 memory_limit: int | None = None, cache_limit: int | None = None):
        if webgpu is None:
            name = implementation(os.environ.get("DMLGPU_WEBGPU") or "wgpu", "DMLGPU_WEBGPU")
        else:
            name = implementation(webgpu)
        if adapter is not None and not isinstance(adapter, str):
            raise TypeError(f"adapter: {adapter!r} is not a string")
        if features is not None:
            if isinstance(features, str):
                raise TypeError(f"features: {features!r} is a string; give a sequence of "
                                "feature names")
            features = tuple(features)
            for f in features:
                if f not in OPTIONAL_FEATURES:
                    raise ValueError(f"features: {f!r} is not a feature dmlgpu uses "
                                     f"(allowed: {', '.join(OPTIONAL_FEATURES)})")
        self._check_sizes(max_binding_size, memory_limit, cache_limit)
        module = _import_implementation(name)
        if name == "dawn":
            _dawn_exact_timestamps(module)
        adapter_name = adapter if adapter is not None else os.environ.get("DMLGPU_ADAPTER")
        with _quiet_dawn(name):
            picked = _pick_adapter(module, adapter_name,
                                   "adapter" if adapter is not None else "DMLGPU_ADAPTER")
            alimits = picked.limits
            required = {k: alimits[k] for k in _WANTED_LIMITS if k in alimits}
            wanted = (OPTIONAL_FEATURES if features is None else features) + _THREAD_FEATURES
            granted = sorted(f for f in wanted if f in picked.features)
            if features is not None:
                missing = [f for f in features if f not in picked.features]
                if missing:
                    raise ValueError(f"features: {missing} not offered by the adapter "
                                     f"{picked.info.get('device', '')!r}")
            gpu = picked.request_device_sync(required_features=granted,
                                             required_limits=required)
        self._setup(module, name, gpu, picked.info, frozenset(granted), owned=True,
                    max_binding_size=max_binding_size, memory_limit=memory_limit,
                    cache_limit=cache_limit)

    @classmethod
    def from_wgpu(cls, device, *, max_binding_size: int | None = None,
                  memory_limit: int | None = None, cache_limit: int | None = None) -> Device:
        """Wrap a wgpu-py GPUDevice the caller created (wgpu-native's or Dawn's). dmlgpu
        uses only the features and limits it was created with, and never changes or
        destroys it; its buffers work with this Device's tensors and operators."""
        mod = type(device).__module__.split(".")[0]
        names = {pkg: key for key, (pkg, _) in IMPLEMENTATIONS.items()}
        if mod not in names or not hasattr(device, "create_compute_pipeline"):
            raise TypeError(f"device: {type(device).__module__}.{type(device).__name__} is not "
                            "a GPUDevice of wgpu (wgpu-native) or wgpudawn (Dawn)")
        cls._check_sizes(max_binding_size, memory_limit, cache_limit)
        self = cls.__new__(cls)
        module = importlib.import_module(mod)
        self._setup(module, names[mod], device, dict(device.adapter_info),
                    frozenset(str(f) for f in device.features), owned=False,
                    max_binding_size=max_binding_size, memory_limit=memory_limit,
                    cache_limit=cache_limit)
        return self

    @staticmethod
    def _check_sizes(max_binding_size, memory_limit, cache_limit) -> None:
        if max_binding_size is not None:
            _positive_int(max_binding_size, "max_binding_size", WINDOW_ALIGN)
        if memory_limit is not None:
            _positive_int(memory_limit, "memory_limit")
        if cache_limit is not None:
            _positive_int(cache_limit, "cache_limit", 0)

    def _setup(self, module, name, gpu, adapter_info, features, *, owned, max_binding_size,
               memory_limit, cache_limit) -> None:
        self.wgpu = module
        self.webgpu = name
        self.implementation = IMPLEMENTATIONS[name][1]
        self.device = gpu
        self.owned = owned  # False: the user's device (from_wgpu)
        self.adapter_info = adapter_info
        self.features = features
        self.limits = dict(gpu.limits)
        binding = self.limits["max-storage-buffer-binding-size"]
        if max_binding_size is not None:
            binding = min(binding, int(max_binding_size))
        # one window of a large tensor: the largest aligned size a binding may have
        self.window_bytes = binding // WINDOW_ALIGN * WINDOW_ALIGN
        self.max_buffer_size = self.limits["max-buffer-size"]
        self.max_workgroups = self.limits["max-compute-workgroups-per-dimension"]
        self.max_storage_bindings = self.limits["max-storage-buffers-per-shader-stage"]
        self.lock = threading.RLock()
        self.serial = next(_serials)  # tells devices on one adapter apart in messages
        u = module.BufferUsage
        self.usage = u
        self.tensor_usage = int(u.STORAGE | u.COPY_SRC | u.COPY_DST)
        self._staging_usage = int(u.MAP_READ | u.COPY_DST)
        self._uniform_usage = int(u.UNIFORM | u.COPY_DST)
        from .pipelines import PipelineCache  # noqa: PLC0415 - it imports codegen lazily

        self.pipelines = PipelineCache(self)
        self._compiled: OrderedDict = OrderedDict()
        self._hot: dict = {}  # the functional API's (call signature) -> compiled operator
        if cache_limit is None:
            cache_limit = max(1 << 30, DEFAULT_CACHE_FACTOR * self.max_buffer_size)
        self.allocator = CachingAllocator(
            self._create_raw, device_name=f"device #{self.serial} ({self.implementation})",
            max_buffer_size=self.max_buffer_size, cache_limit=int(cache_limit),
            memory_limit=memory_limit, is_oom=self._is_oom)
        self._subgroup_size: int | None = None
        self._tally = None  # tally_block's buffer
        self._captures = _Captures()
        self._pending = None  # the open batch of eager calls (runtime/dispatch.py)
        self._large_streak = 0  # large calls since the last wait (runtime/dispatch.py)
        from .dispatch import command_encoder  # noqa: PLC0415 - dispatch builds on this module

        self.encode_commands = command_encoder(gpu)
        self.allocator.before_destroy = self.flush
        _WRAPPERS.setdefault(id(gpu), self)

    # -- operators -----------------------------------------------------------------------
    def compile(self, desc):
        """Check a DirectML-style description and build its pipelines once."""
        cls = _COMPILERS.get(type(desc))
        if cls is None:
            raise TypeError(f"desc: {type(desc).__name__} is not an operator description "
                            f"(allowed: {', '.join(c.__name__ for c in _COMPILERS)})")
        cache = self._compiled
        with self.lock:
            op = cache.get(desc)
            if op is not None:
                cache.move_to_end(desc)
                return op
        op = cls(self, desc)
        with self.lock:
            cache[desc] = op
            while len(cache) > CACHE_SIZE:
                cache.popitem(last=False)
        return op

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
        try:
            return self._run_probe(src)
        except Exception as e:
            raise self.error(e, "probing the subgroup size") from e

    def _run_probe(self, src: str) -> int:
        with self.lock:
            gpu = self.device
            pipeline = gpu.create_compute_pipeline(
                layout="auto", compute={"module": gpu.create_shader_module(code=src),
                                        "entry_point": "main"})
            buf = gpu.create_buffer(size=8, usage=self.tensor_usage)
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
        lo, hi = self.download(buf, 0, 8).view(np.uint32)
        buf.destroy()
        return int(lo) if lo == hi and 0 < lo <= 256 and lo & (lo - 1) == 0 else 0

    @property
    def info(self) -> dict:
        """Adapter, backend, implementation, features and limits in use."""
        ai = self.adapter_info
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
        ai = self.adapter_info
        return (f"<dmlgpu.Device #{self.serial} {ai.get('device', '')!r} "
                f"{ai.get('backend_type', '')} via {self.implementation}>")

    # -- memory --------------------------------------------------------------------------
    def alloc(self, nbytes: int, *, usage: int = 0, what: str = "tensor"):
        """A Block (allocator.py) of a storage buffer of at least `nbytes`, with the tensor
        usage (STORAGE | COPY_SRC | COPY_DST) plus `usage`."""
        return self.allocator.alloc(nbytes, self.tensor_usage | int(usage), what)

    def tally_block(self, nbytes: int):
        """A Block of the device's tally buffer, at least `nbytes`: counters and partial
        indices that the workgroups of one dispatch pass each other (ArgMax/ArgMin's merge
        in the split pass, kernels/argreduce.wgsl.j2). Its words are 0 whenever no dispatch
        runs: a new buffer is zero-filled (WebGPU clears every buffer it creates) and each
        dispatch sets the words it used back to 0, so dispatches that share it need no
        clearing between them, in any order (one queue runs them one after another). The
        allocator never hands it out; a larger request replaces it (bind groups keep the
        old one while they live)."""
        block = self._tally
        if block is None or block.size < nbytes:
            size = max(size_class(nbytes), 2 * block.size if block is not None else 0)
            buffer = self.create_buffer(size, what="tally")
            block = self._tally = Block(buffer, size, self.tensor_usage, None)
        return block

    def uniform_block(self, data: np.ndarray):
        """A Block of a uniform buffer holding `data`, written once through the queue."""
        block = self.allocator.alloc(data.nbytes, self._uniform_usage, "uniforms")
        self.upload(block.buffer, data)
        return block

    def flush(self) -> None:
        """Submit the calls dmlgpu has batched (small calls, and the large calls after the
        first since a wait). Needed before submitting work of your own that reads dmlgpu's
        outputs through buffers you took earlier (`tensor.buffer` flushes by itself, as do
        readbacks, uploads, waits and recordings), and useful before long host work of your
        own, so that the GPU runs the batch meanwhile."""
        if self._pending is not None:
            from .dispatch import flush  # noqa: PLC0415 - dispatch builds on this module

            flush(self)

    def memory_stats(self) -> dict:
        """The allocator's figures: allocated_bytes (in live tensors and running calls),
        cached_bytes (idle, kept for reuse), peak_bytes, hits (requests served from the
        cache), misses (buffers created), frees (buffers returned), releases (buffers
        destroyed), cached_buffers, and the cache_limit and memory_limit in force."""
        return self.allocator.stats()

    def empty_cache(self) -> int:
        """Destroy every idle buffer (and the bind groups that hold them); returns the
        bytes released. Buffers of live tensors are untouched."""
        self.flush()  # the open batch holds its calls' bind groups until submitted
        return self.allocator.empty_cache()

    def create_buffer(self, nbytes: int, *, what: str = "buffer", usage: int | None = None):
        """A new GPUBuffer owned by the caller, outside the allocator (the benchmark's
        fixed buffers); tensors and scratch use `alloc`."""
        size = max(4, -(-int(nbytes) // 4) * 4)
        if size > self.max_buffer_size:
            raise DeviceLimitError(
                f"{what}: {nbytes} bytes exceeds the device's max-buffer-size limit "
                f"({self.max_buffer_size} bytes)")
        try:
            return self._create_raw(size, self.tensor_usage if usage is None else usage)
        except Exception as e:
            raise self.error(e, f"{what}: creating a {size}-byte buffer") from e

    def _create_raw(self, size: int, usage: int):
        with self.lock:
            return self.device.create_buffer(size=size, usage=usage)

    def _is_oom(self, e: Exception) -> bool:
        return isinstance(e, self.wgpu.GPUOutOfMemoryError) or (
            not isinstance(e, self.wgpu.GPUValidationError) and "out of memory" in str(e).lower())

    def error(self, e: Exception, what: str) -> Exception:
        """The dmlgpu exception for an exception the WebGPU implementation raised."""
        if isinstance(e, DmlgpuError):
            return e
        text = str(e).strip()
        if self._is_oom(e):
            return OutOfMemoryError(f"{what} failed on device #{self.serial} "
                                    f"({self.implementation}): out of device memory: {text}")
        if isinstance(e, self.wgpu.GPUValidationError):
            return WebGPUValidationError(f"{what}: {self.implementation} rejected it: {text}")
        if "lost" in text.lower() or "destroyed" in text.lower():
            return DeviceLostError(f"{what} failed: device #{self.serial} "
                                   f"({self.implementation}) was lost: {text}")
        return DmlgpuError(f"{what} failed on {self.implementation}: "
                           f"{type(e).__name__}: {text}")

    # -- transfers and waits -------------------------------------------------------------
    def upload(self, buffer, data: np.ndarray, offset: int = 0) -> None:
        """Write `data`'s bytes at byte `offset` through the queue (ordered after all work
        submitted so far and before all work submitted later)."""
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        pad = (-raw.size) % 4
        if pad:
            raw = np.concatenate([raw, np.zeros(pad, np.uint8)])
        if raw.size:
            self.flush()  # the write is ordered after the batched calls, as they were made
            try:
                with self.lock:
                    self.device.queue.write_buffer(buffer, offset, raw)
            except Exception as e:
                raise self.error(e, f"writing {raw.size} bytes to the GPU") from e

    def _stage(self, buffer, offset: int, nbytes: int):
        """Queue a copy of bytes [offset, offset + nbytes) into a cached staging buffer."""
        block = self.allocator.alloc(nbytes, self._staging_usage, "readback")
        self.flush()
        self._large_streak = 0  # a wait follows: the next large call finds the GPU idle
        try:
            with self.lock:
                encoder = self.device.create_command_encoder()
                encoder.copy_buffer_to_buffer(buffer, offset, block.buffer, 0, nbytes)
                self.device.queue.submit([encoder.finish()])
        except Exception as e:
            raise self.error(e, f"reading {nbytes} bytes back from the GPU") from e
        return block

    def download(self, buffer, offset: int, nbytes: int) -> np.ndarray:
        """Bytes [offset, offset+nbytes) of a buffer, once all work queued before is done;
        offset and nbytes multiples of 4. One copy into a cached staging buffer, one map."""
        if nbytes == 0:
            return np.zeros(0, np.uint8)
        block = self._stage(buffer, offset, nbytes)
        try:
            with self.lock:
                block.buffer.map_async(_MAP_READ, 0, nbytes).sync_wait()
                return self._read_mapped(block.buffer, nbytes)
        except Exception as e:
            raise self.error(e, f"reading {nbytes} bytes back from the GPU") from e

    def _read_mapped(self, staging, nbytes: int) -> np.ndarray:
        """The mapped bytes of a staging buffer, copied out; unmaps it (holding the lock)."""
        try:
            return np.frombuffer(staging.read_mapped(0, nbytes, copy=True), np.uint8)
        finally:
            staging.unmap()

    async def download_async(self, buffer, offset: int, nbytes: int) -> np.ndarray:
        """As `download`, awaiting the GPU instead of blocking (asyncio)."""
        if nbytes == 0:
            return np.zeros(0, np.uint8)
        block = self._stage(buffer, offset, nbytes)
        try:
            await block.buffer.map_async(_MAP_READ, 0, nbytes)
            with self.lock:
                return self._read_mapped(block.buffer, nbytes)
        except Exception as e:
            raise self.error(e, f"reading {nbytes} bytes back from the GPU") from e

    def synchronize(self) -> None:
        """Wait until all work queued on this device so far has finished."""
        sync = getattr(self, "_sync_buffer", None)
        if sync is None:
            sync = self._sync_buffer = self.create_buffer(4, what="synchronize")
        self.download(sync, 0, 4)  # a map waits for every earlier submission

    def capture(self):
        """`with dev.capture() as graph:` records the operator calls made in the block
        (same tensors, one encoder), submits them once at its end, and `graph.replay()`
        runs them again (batched with small calls, like them). See runtime/graph.py."""
        from .graph import Graph  # noqa: PLC0415 - graph builds on this module

        return Graph(self)


def _import_implementation(name: str):
    module_name = IMPLEMENTATIONS[name][0]
    try:
        return importlib.import_module(module_name)
    except ImportError as e:
        extra = " (pip install 'dmlgpu[dawn]')" if name == "dawn" else ""
        raise DmlgpuError(f"webgpu={name!r} needs the package {module_name}{extra}: {e}") from e


def _pick_adapter(module, name: str | None, arg: str):
    gpu = module.gpu
    if not name:
        return gpu.request_adapter_sync(power_preference="high-performance")
    adapters = gpu.enumerate_adapters_sync()
    names = [a.info.get("device", "") for a in adapters]
    for a, n in zip(adapters, names, strict=True):
        if name.lower() in n.lower():
            return a
    raise ValueError(f"{arg}: no adapter matches {name!r} (available: {names})")


@contextlib.contextmanager
def _quiet_dawn(name: str):
    """Dawn prints two "artificially reduced" warnings on stderr at each device creation
    on adapters that report unbounded dynamic-offset limits (lavapipe does): its
    dynamic-offset limits are lowered to 16, which dmlgpu does not use (no dynamic
    offsets). Those two lines are dropped; anything else it prints passes through."""
    if name != "dawn":
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (an embedding host): nothing to filter
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            lines = tmp.read().decode(errors="replace").splitlines(keepends=True)
            rest = "".join(ln for ln in lines if "artificially reduced" not in ln)
            if rest:
                sys.stderr.write(rest)


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
    if _default is not None:
        return _default
    with _default_lock:
        if _default is None:
            _default = Device()
        return _default
