"""A size-class pool of the per-call buffers of a device: scratch (partials, NonZero's masks
and scan arrays) and the uniform blocks of each submission.

Why a buffer may go back to the pool as soon as the submission that uses it is *queued*
(not completed): every later use of it is ordered after that submission on the device's
one queue. A later call writes it either through `queue.write_buffer` (uniforms), which
the WebGPU spec places on the queue timeline after every earlier `submit`, or from its own
dispatches, which run in a later submission; WebGPU requires submissions to execute as if
one after the other (the implementations insert the barriers), so neither can overwrite
the buffer while an earlier submission still reads it. What may not happen is two uses in
one submission: a buffer is taken from the pool before a call encodes its work and given
back only after the submit returns, so one submission never holds it twice. No kernel
relies on a scratch buffer's initial contents (each submission writes its scratch before
reading it), so reuse needs no clearing.

The pool never destroys a buffer: one it does not keep is dropped, and the wrapper releases
it when the last reference goes (a recorded launch that the benchmark resubmits may still
hold it). Thread-safe: its own lock guards the free lists and the counts.
"""

from __future__ import annotations

import threading

# Smallest size class: a uniform slot is 512 bytes, and tiny scratch buffers are not worth
# distinguishing.
MIN_CLASS = 256
# Requests above this are allocated at their exact size and dropped after use: pooling
# them could hold large memory for nothing (a buffer of the next power of two costs up to
# twice the request) and they are rare enough that allocation cost does not matter.
MAX_CLASS = 16 << 20
# Free buffers kept per (kind, size class), and their total bytes per pool. Eight threads
# calling at once each hold at most one scratch and one uniform buffer, so 8 per class
# serves them without allocating; the byte cap bounds the pool whatever the sizes.
MAX_IDLE_PER_CLASS = 8
MAX_IDLE_BYTES = 64 << 20


def size_class(nbytes: int) -> int:
    """The pooled size serving a request: the next power of two (at least MIN_CLASS)."""
    return max(MIN_CLASS, 1 << max(0, int(nbytes) - 1).bit_length())


class BufferPool:
    """Free lists of buffers by (kind, size class). `create(kind, nbytes, what)` makes a
    buffer (kind: "storage" or "uniform"); `acquire` hands out a buffer of at least the
    requested size, `release` takes it back."""

    def __init__(self, create):
        self._create = create
        self._lock = threading.Lock()
        self._free: dict[tuple[str, int], list] = {}
        self._out: dict[int, tuple] = {}  # id(buffer) -> (kind, class or 0, buffer)
        self.created = 0  # buffers allocated by the pool, ever
        self.reused = 0  # requests served from a free list
        self.dropped = 0  # buffers given back that the pool did not keep
        self.idle_bytes = 0

    def acquire(self, kind: str, nbytes: int, what: str = "scratch"):
        size = size_class(nbytes)
        pooled = size <= MAX_CLASS
        buf = None
        if pooled:
            with self._lock:
                free = self._free.get((kind, size))
                if free:
                    buf = free.pop()
                    self.idle_bytes -= size
                    self.reused += 1
        if buf is None:  # allocate outside the lock: another thread may use the pool meanwhile
            buf = self._create(kind, size if pooled else int(nbytes), what)
            with self._lock:
                self.created += 1
        with self._lock:
            self._out[id(buf)] = (kind, size if pooled else 0, buf)
        return buf

    def release(self, buffers) -> None:
        """Give buffers back (None entries are skipped). Only after the submission using
        them has been queued: see the module docstring."""
        with self._lock:
            for buf in buffers:
                if buf is None:
                    continue
                entry = self._out.pop(id(buf), None)
                if entry is None:
                    raise ValueError("release: the buffer was not acquired from this pool "
                                     "(or was released twice)")
                kind, size, _ = entry
                free = self._free.setdefault((kind, size), [])
                if (size and len(free) < MAX_IDLE_PER_CLASS
                        and self.idle_bytes + size <= MAX_IDLE_BYTES):
                    free.append(buf)
                    self.idle_bytes += size
                else:
                    self.dropped += 1

    def clear(self) -> None:
        """Drop every free buffer (outstanding ones come back as usual)."""
        with self._lock:
            self._free.clear()
            self.idle_bytes = 0

    def stats(self) -> dict:
        """Counts for tests and diagnostics: buffers handed out and not yet back
        (`outstanding`), free ones (`idle`, `idle_bytes`), and the totals."""
        with self._lock:
            return dict(outstanding=len(self._out), idle=sum(len(f) for f in self._free.values()),
                        idle_bytes=self.idle_bytes, created=self.created, reused=self.reused,
                        dropped=self.dropped)
