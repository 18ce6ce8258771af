"""A bound on the device's submissions in flight.

Both implementations' submit costs host time that grows with the submissions still queued
(each submit triages them): a loop of calls that keep the GPU busy for longer than they
take to issue piles them up, and every further call pays more. Beyond `limit`
submissions in flight, a submit waits (blocked in the implementation, not spinning in
Python) for the oldest to finish. The GPU stays busy meanwhile: `limit` more are queued
behind it. limit 0 submits without tracking.
"""

from __future__ import annotations

import collections
import sys
import time


class InFlight:
    """Submits command buffers to a device's queue, `limit` submissions in flight at most.
    `waits`, `wait_s`, `wait_cpu_s`: how often and how long submits waited (wall seconds,
    and the waiting thread's CPU seconds: an implementation may spin)."""

    def __init__(self, gpu, limit: int):
        self.gpu, self.limit = gpu, max(0, int(limit))
        self.ring: collections.deque = collections.deque()
        self.waits, self.wait_s, self.wait_cpu_s = 0, 0.0, 0.0
        api = sys.modules.get(type(gpu).__module__)
        lib, ffi = getattr(api, "lib", None), getattr(api, "ffi", None)
        if not self.limit:
            self.mode = "off"
        elif (lib is not None and ffi is not None and hasattr(lib, "wgpuQueueSubmitForIndex")
              and hasattr(lib, "wgpuDevicePoll")):
            # wgpu-native: submission indices, and a poll that blocks until one is done
            self.mode, self._lib, self._ffi = "index", lib, ffi
        elif hasattr(gpu.queue, "on_submitted_work_done_async"):
            self.mode = "promise"  # Dawn: a future per submission, waited on in Dawn
        else:
            self.mode = "off"

    def submit(self, command_buffers: list) -> None:
        """queue.submit(command_buffers), waiting first for the oldest submissions beyond
        the limit. Call with the device's lock held (the ring is shared)."""
        queue = self.gpu.queue
        mode = self.mode
        if mode == "off":
            queue.submit(command_buffers)
            return
        if mode == "index":
            ffi = self._ffi
            handles = ffi.new("WGPUCommandBuffer[]", [cb._internal for cb in command_buffers])
            self.ring.append(self._lib.wgpuQueueSubmitForIndex(queue._internal,
                                                               len(command_buffers), handles))
        else:
            queue.submit(command_buffers)
            self.ring.append(queue.on_submitted_work_done_async())
        if len(self.ring) > self.limit:
            t0, c0 = time.perf_counter(), time.thread_time()
            while len(self.ring) > self.limit:
                self._wait(self.ring.popleft())
            self.waits += 1
            self.wait_s += time.perf_counter() - t0
            self.wait_cpu_s += time.thread_time() - c0

    def _wait(self, marker) -> None:
        if self.mode == "index":
            index = self._ffi.new("WGPUSubmissionIndex *", marker)
            self._lib.wgpuDevicePoll(self.gpu._internal, True, index)
        else:
            marker.sync_wait()

    def drain(self) -> None:
        """Forget the markers (the caller waited for all work by other means)."""
        self.ring.clear()
