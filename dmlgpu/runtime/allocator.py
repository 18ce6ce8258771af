"""The device's caching allocator: every buffer dmlgpu makes (tensors, scratch, uniform
blocks, readback staging) comes from here and returns here, as in torch's CUDA caching
allocator and CuPy's MemoryPool.

A request is rounded up to its size class and served, when one is free, by a cached buffer
of the same class and usage, without creating or clearing anything. The buffer comes back
when the last reference to its `Block` goes: the last view of a tensor, or the end of the
call that took it as scratch. Large sizes are cached like small ones: a loop whose outputs
are 1 GiB reuses one buffer per iteration instead of creating it.

Why a buffer may be handed out again while queued work still reads or writes it: every
later use of it is ordered after that work on the device's one queue. A later call writes
it either through `queue.write_buffer` (uploads), which the WebGPU spec places on the
queue timeline after every earlier `submit`, or from its own dispatches, which run in a
later submission or later in the same command buffer; WebGPU requires submissions, and
dispatches within one, to execute as if one after the other (the implementations insert
the barriers). So no new use can overwrite the buffer before the old one is done with it.
No kernel relies on a buffer's initial contents (each call writes its scratch before
reading it), so reuse needs no clearing. Two things break this ordering, and neither uses
a cached buffer: a command encoder that the user submits later (`op.record`, see
ops/base.py: its scratch and uniforms stay with the returned Recording), and uniforms
rewritten in place (never: a uniform block is written once, see dispatch.Bound).

Memory stays bounded: idle buffers are kept up to `cache_limit` bytes (the least recently
freed go first), and the total of live and idle buffers is kept within `memory_limit`,
when one is set. An allocation that would pass the limit, or that the device refuses as
out of memory, first releases every idle buffer and tries once more; then it raises
OutOfMemoryError naming the request and the device.

Thread-safe: a buffer freed from any thread (by the garbage collector too) goes onto a
lock-free queue that the next allocation or statistics call drains under the lock.
"""

from __future__ import annotations

import collections
import threading

from ..errors import DeviceLimitError, OutOfMemoryError

# Smallest size class: uniform slots are 256 bytes, and smaller buffers are not worth
# telling apart.
MIN_CLASS = 512
# Up to this size the classes are powers of two; above, four per power of two (1, 1.25,
# 1.5, 1.75 x 2^k): at most 25% over the request for the large buffers that dominate
# memory, while a shape that varies a little still finds its class again.
POW2_UP_TO = 1 << 20


def size_class(nbytes: int) -> int:
    """The buffer size that serves a request of `nbytes`."""
    n = max(int(nbytes), MIN_CLASS)
    p = 1 << (n - 1).bit_length()
    if p <= POW2_UP_TO:
        return p
    step = p // 8  # p/2 .. p in four steps
    return -(-n // step) * step


class Block:
    """One buffer handed out by the allocator. When the last reference goes, the buffer
    returns to the allocator's cache."""

    __slots__ = ("buffer", "size", "usage", "_alloc", "__weakref__")

    def __init__(self, buffer, size: int, usage: int, alloc):
        self.buffer, self.size, self.usage, self._alloc = buffer, size, usage, alloc

    def __del__(self):
        alloc = self._alloc
        if alloc is not None:
            try:
                alloc._freed.append((self.usage, self.size, self.buffer))
            except Exception:  # interpreter shutdown: nothing to return to
                pass


class CachingAllocator:
    """Buffers by (usage, size class). `create(size, usage)` makes a buffer or raises;
    `is_oom(exc)` tells an out-of-memory failure of create from other errors."""

    def __init__(self, create, *, device_name: str, max_buffer_size: int,
                 cache_limit: int, memory_limit: int | None = None, is_oom=None):
        self._create = create
        self._is_oom = is_oom or (lambda e: False)
        self.device_name = device_name
        self.max_buffer_size = max_buffer_size
        self.cache_limit = cache_limit
        self.memory_limit = memory_limit
        self._lock = threading.Lock()
        self._free: dict[tuple[int, int], list] = {}
        self._lru: collections.OrderedDict = collections.OrderedDict()  # id -> (key, buffer)
        self._freed: collections.deque = collections.deque()  # from Block.__del__
        # every buffer made and not yet destroyed, held strongly: a Block that dies inside a
        # garbage cycle (an exception's frames) must not take its buffer's own finalizer,
        # which releases the handle, along with it
        self._owned: dict[int, object] = {}
        self.on_release: list = []  # called with no argument before idle buffers go
        # called before any buffer is destroyed: the device submits its batched calls, which
        # may bind idle buffers (a destroyed buffer in an unsubmitted pass fails its submit)
        self.before_destroy = lambda: None
        self._doomed: list = []  # released under the lock, destroyed after it
        self.allocated = self.cached = self.peak = 0
        self.hits = self.misses = self.frees = self.releases = 0

    # -- the hot path --------------------------------------------------------------------
    def alloc(self, nbytes: int, usage: int, what: str = "tensor") -> Block:
        """A buffer of at least `nbytes` (and at least 4) with exactly `usage`."""
        return self.alloc_sized(self.buffer_size(nbytes, what), usage, what)

    def buffer_size(self, nbytes: int, what: str = "tensor") -> int:
        """The size of the buffer `alloc(nbytes)` hands out (its size class, or the bytes
        rounded to words where the class passes the device's limit), or raises."""
        size = size_class(nbytes)
        if size > self.max_buffer_size:  # the largest classes round past the limit
            size = max(4, -(-int(nbytes) // 4) * 4)
            if size > self.max_buffer_size:
                raise DeviceLimitError(
                    f"{what}: {int(nbytes)} bytes exceeds the device's max-buffer-size "
                    f"limit ({self.max_buffer_size} bytes)")
        return size

    def alloc_sized(self, size: int, usage: int, what: str = "tensor") -> Block:
        """alloc for a size that buffer_size gave (a repeated call's known outputs)."""
        buf = None
        with self._lock:
            freed = self._freed
            if freed:
                # a loop's call: the buffer its last result freed, reused as the cache would
                # hand it out (the last freed first) without passing through it (popped, not
                # peeked: Block.__del__ appends from any thread without the lock)
                last = freed.pop()
                if last[1] == size and last[0] == usage:
                    self.frees += 1
                    buf = last[2]
                else:
                    freed.append(last)
                if freed:
                    self._drain()
            if buf is None and (free := self._free.get((usage, size))):
                buf = free.pop()
                del self._lru[id(buf)]
                self.cached -= size
                self.allocated += size
                self.peak = max(self.peak, self.allocated)
            if buf is not None:  # a cached buffer handed out, either way
                self.hits += 1
        if self._doomed:
            self._destroy_doomed()
        if buf is not None:
            return Block(buf, size, usage, self)
        buf = self._new(size, usage, what)
        with self._lock:
            self._owned[id(buf)] = buf
            self.allocated += size
            self.peak = max(self.peak, self.allocated)
            self.misses += 1
        return Block(buf, size, usage, self)

    def _drain(self) -> None:
        """Moves buffers freed since the last call into the cache (holding the lock)."""
        freed = self._freed
        while freed:
            usage, size, buf = freed.popleft()
            self.allocated -= size
            self.frees += 1
            self._free.setdefault((usage, size), []).append(buf)
            self._lru[id(buf)] = ((usage, size), buf)
            self.cached += size
        while self.cached > self.cache_limit and self._lru:
            self._release_one()

    def _release_one(self) -> None:
        _, (key, buf) = self._lru.popitem(last=False)
        self._free[key].remove(buf)
        self.cached -= key[1]
        self.releases += 1
        del self._owned[id(buf)]
        self._doomed.append(buf)

    def _destroy_doomed(self) -> None:
        """Destroys the buffers released under the lock (called without holding it). They
        are off the free lists, so no new work can bind them; work that bound them earlier
        is submitted first."""
        if not self._doomed:
            return
        with self._lock:
            doomed, self._doomed = self._doomed, []
        if doomed:
            self.before_destroy()
            for buf in doomed:
                buf.destroy()

    # -- growth, limits, out of memory ---------------------------------------------------
    def _new(self, size: int, usage: int, what: str):
        for attempt in (0, 1):
            if self.memory_limit is not None:
                with self._lock:
                    self._drain()
                    over = self.allocated + self.cached + size - self.memory_limit
                    while over > 0 and self._lru:
                        over -= self._lru[next(iter(self._lru))][0][1]
                        self._release_one()
                    fits = self.allocated + size <= self.memory_limit
                self._destroy_doomed()
                if not fits:
                    raise OutOfMemoryError(
                        f"{what}: allocating {size} bytes on {self.device_name} would pass "
                        f"its memory limit of {self.memory_limit} bytes ({self.allocated} "
                        "bytes are in use; the cache was already released)")
            try:
                return self._create(size, usage)
            except Exception as e:
                if not self._is_oom(e):
                    raise
                if attempt == 0 and self.empty_cache():
                    continue  # idle buffers released: once more
                raise OutOfMemoryError(
                    f"{what}: allocating {size} bytes on {self.device_name} failed: out of "
                    f"device memory ({self.allocated} bytes in use by dmlgpu, the cache "
                    f"already released): {e}") from e
        raise AssertionError("unreachable")

    def empty_cache(self) -> int:
        """Destroys every idle buffer; returns how many bytes that released."""
        for hook in list(self.on_release):  # bind groups holding idle buffers go first
            hook()
        with self._lock:
            self._drain()
            before = self.cached
            while self._lru:
                self._release_one()
        self._destroy_doomed()
        return before

    def stats(self) -> dict:
        with self._lock:
            self._drain()
            stats = {
                "allocated_bytes": self.allocated, "cached_bytes": self.cached,
                "peak_bytes": self.peak, "hits": self.hits, "misses": self.misses,
                "frees": self.frees, "releases": self.releases,
                "cached_buffers": len(self._lru),
                "cache_limit": self.cache_limit, "memory_limit": self.memory_limit,
            }
        self._destroy_doomed()
        return stats
