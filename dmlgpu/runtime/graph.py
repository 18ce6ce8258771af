"""Captured graphs: operator calls recorded once and submitted again and again.

`with dev.capture() as graph:` makes the calls of this thread on `dev` record their bound
dispatches (runtime/dispatch.py) instead of submitting them; the block's end submits the
whole sequence once, in one command buffer, and `graph.replay()` runs it again, encoded
into the device's batch like eager calls: when it holds a large call, submitted as an
eager large call is (at once if it is the first since a wait, else sharing a submission
with the next ones); else like small calls, submitted when full or at the next flush point (a
readback, wait, upload, `tensor.buffer`, `dev.flush()`): a replay then costs the encoding
of its dispatches alone, not an encoder and a submission of its own. The
graph keeps every tensor and scratch buffer of the calls alive and to itself, so replays
reuse the same bind groups, uniforms and scratch, and no other call can touch them; new
input data goes in with `tensor.copy_(...)` between replays (queue writes are ordered
before the next replay). As with torch's CUDA graphs, a replay redoes exactly what was
recorded: calls that would depend on host data at run time are rejected while capturing
(a numpy input, which would be uploaded once; a readback; an in-place copy).
"""

from __future__ import annotations

from ..errors import DmlgpuError
from .dispatch import encode_and_submit, enqueue


class _Sequence:
    """The graph's dispatches as one command list (a pipeline set once per run of equal
    ones), encoded like a Bound."""

    __slots__ = ("commands", "label", "n_dispatches")

    def __init__(self, bounds):
        self.commands = [c for b in bounds for c in b.commands]
        self.label = ", ".join(sorted({b.label for b in bounds}))
        self.n_dispatches = len(self.commands)

    def encode(self, cpass, encode) -> None:
        encode(cpass, self.commands)


class Graph:
    """A recorded sequence of operator calls on one device (see the module docstring)."""

    def __init__(self, device):
        self.device = device
        self._items: list = []
        self._sequence = None  # the recorded dispatches, flattened at the capture's end
        self._state = "new"  # "recording", "ready", "failed"
        self._large = False  # a call was large: replays are submitted at once

    def __enter__(self) -> Graph:
        caps = self.device._captures
        if caps.graph is not None:
            raise DmlgpuError("capture: this thread is already capturing on the device")
        if self._state != "new":
            raise DmlgpuError("capture: a graph is captured once; make a new one")
        caps.graph = self
        self._state = "recording"
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.device._captures.graph = None
        for _, holds in self._items:
            for h in holds:
                if getattr(h, "_graph", None) is self:
                    h._graph = None
        if exc_type is not None:
            self._state = "failed"
            self._items.clear()
            return
        self._state = "ready"
        self._sequence = _Sequence([b for b, _ in self._items])
        if self._items:
            encode_and_submit(self.device, [self._sequence])

    def _add(self, bound, holds, large: bool = False) -> None:
        self._large |= large
        for h in holds:
            if hasattr(h, "_graph"):
                h._graph = self
        self._items.append((bound, holds))

    def _check_readable(self, tensor) -> None:
        if self._state == "recording":
            raise DmlgpuError("capture: a tensor written by the graph cannot be read inside "
                              "the capture block: the graph is submitted at its end (read it "
                              "after the block, or after graph.replay())")

    @property
    def calls(self) -> int:
        """Operator calls recorded."""
        return len(self._items)

    @property
    def dispatches(self) -> int:
        return sum(b.n_dispatches for b, _ in self._items)

    def replay(self) -> None:
        """Run the recorded calls again, in order, after all work queued before (see the
        module docstring for when it is submitted)."""
        if self._state != "ready":
            raise DmlgpuError(f"replay: the graph is {self._state}; replay it after its "
                              "capture block has ended without error")
        if self._sequence.n_dispatches:
            enqueue(self.device, self._sequence, self._large)

    def __repr__(self):
        return (f"<dmlgpu.Graph {self._state}: {self.calls} calls, {self.dispatches} "
                f"dispatches on device #{self.device.serial}>")


def capturing(device):
    """The graph this thread is recording on `device`, or None."""
    return device._captures.graph
