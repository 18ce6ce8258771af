"""Living inside the user's GPU program: their device and buffers, recording into their
encoder next to their own pass, waits, captured graphs replayed with new data, errors that
name the real cause."""

from __future__ import annotations

import numpy as np
import pytest
from reference import (
    arg_reference,
    assert_same,
    hardmax_reference,
    nonzero_reference,
    random_values,
    rng_for,
    topk_reference,
)

import dmlgpu as dg


@pytest.fixture(scope="module")
def user(dev):
    """A wgpu device the user created (same implementation as the suite), wrapped."""
    w = dev.wgpu
    adapter = w.gpu.request_adapter_sync(power_preference="high-performance")
    gpu = adapter.request_device_sync(required_limits={
        "max-storage-buffer-binding-size": adapter.limits["max-storage-buffer-binding-size"],
        "max-buffer-size": adapter.limits["max-buffer-size"]})
    return gpu, dg.Device.from_wgpu(gpu)


def _buffer(gpu, w, data: np.ndarray, usage=None):
    u = w.BufferUsage
    usage = (u.STORAGE | u.COPY_SRC | u.COPY_DST) if usage is None else usage
    buf = gpu.create_buffer(size=max(16, -(-data.nbytes // 4) * 4), usage=usage)
    if data.nbytes:
        raw = np.ascontiguousarray(data).view(np.uint8).ravel()
        gpu.queue.write_buffer(buf, 0, np.concatenate([raw, np.zeros(-raw.size % 4, np.uint8)]))
    return buf


def _read(gpu, buf, nbytes):
    return np.frombuffer(gpu.queue.read_buffer(buf, 0, nbytes), np.uint8)


def test_from_wgpu_uses_the_devices_own_limits(dev, user):
    gpu, d = user
    assert d.device is gpu and not d.owned
    assert d.limits["max-buffer-size"] == gpu.limits["max-buffer-size"]
    assert d.features == frozenset(gpu.features)
    assert d.implementation == dev.implementation
    with pytest.raises(TypeError, match=r"device: .* is not a GPUDevice"):
        dg.Device.from_wgpu(object())


def test_user_buffers_through_every_operator(dev, user):
    gpu, d = user
    w = d.wgpu
    rng = rng_for("user buffers")
    a = random_values(rng, (5, 37), "float32")
    h = random_values(rng, (6, 40), "float16")
    xa = dg.Tensor.from_buffer(_buffer(gpu, w, a), "float32", a.shape)
    xh = dg.Tensor.from_buffer(_buffer(gpu, w, h), "float16", h.shape)
    assert xa.device is d and xa.offset == 0 and xa.buffer.size >= a.nbytes
    out = dg.Tensor.from_buffer(_buffer(gpu, w, np.zeros(5, np.uint32)), "uint32", (5, 1))
    assert dg.argmax(xa, 1, out=out) is out
    assert_same(out, arg_reference(a, (1,), "max", False))
    assert_same(dg.argmin(xa, 0, index_dtype="int64"), arg_reference(a, (0,), "min", False,
                                                                      "int64"))
    assert_same(dg.hardmax(xh, 1), hardmax_reference(h, (1,)))
    v, i = dg.top_k(xa, 4)
    assert_same(v, topk_reference(a, 4)[0])
    assert_same(i, topk_reference(a, 4)[1])
    count, coords = dg.nonzero_coordinates(xa)
    n = int(count.numpy()[0])
    np.testing.assert_array_equal(coords[:n].numpy(), nonzero_reference(a))
    # a view at a byte offset into a larger buffer
    big = np.concatenate([np.full(8, 99, np.float32), a.ravel()])
    xo = dg.Tensor.from_buffer(_buffer(gpu, w, big), "float32", a.shape, offset=32)
    assert xo.offset == 32
    assert_same(dg.argmax(xo, 1), arg_reference(a, (1,), "max", False))


def test_bad_buffers_are_clear_errors(dev, user):
    gpu, d = user
    w = d.wgpu
    u = w.BufferUsage
    data = np.arange(16, dtype=np.float32)
    small = _buffer(gpu, w, data)
    with pytest.raises(ValueError, match=r"from_buffer: the view reaches byte 23999, past the "
                                         r"end of its 64-byte buffer"):
        dg.Tensor.from_buffer(small, "float32", (6000,))
    with pytest.raises(ValueError, match=r"reaches element -15, before the start"):
        dg.Tensor.from_buffer(small, "float32", (16,), (-1,))
    with pytest.raises(ValueError, match=r"buffer: the buffer lacks STORAGE usage"):
        dg.Tensor.from_buffer(_buffer(gpu, w, data, u.COPY_DST | u.COPY_SRC), "float32", (16,))
    with pytest.raises(ValueError, match=r"offset: 2 bytes is not a non-negative multiple of "
                                         r"the 4-byte float32"):
        dg.Tensor.from_buffer(small, "float32", (4,), offset=2)
    with pytest.raises(ValueError, match=r"buffer: the buffer belongs to another GPU device"):
        dg.Tensor.from_buffer(small, "float32", (16,), device=dev)
    with pytest.raises(ValueError, match=r"the view reaches byte 23999"):  # the case
        dg.Tensor(dg.default_device(), dg.asarray(data).buffer, "float32", (6000,), (1,))
    # a buffer without COPY_SRC computes, but cannot be read back: said before any copy
    t = dg.Tensor.from_buffer(_buffer(gpu, w, data, u.STORAGE | u.COPY_DST), "float32", (16,))
    assert_same(dg.argmax(t), np.array([15], np.uint32))
    with pytest.raises(ValueError, match=r"lacks COPY_SRC usage"):
        t.numpy()
    # tensors of two devices in one call: named, before anything runs
    with pytest.raises(ValueError, match=r"another device"):
        dg.argmax(dg.Tensor.from_buffer(small, "float32", (16,)),
                  out=dg.empty((1,), "uint32", device=dev))


def test_empty_usage_flags(dev):
    u = dev.wgpu.BufferUsage
    t = dg.empty((64,), "float32", usage=u.VERTEX)
    assert t.buffer.usage & u.VERTEX and t.buffer.usage & u.STORAGE
    assert t.buffer.usage & u.COPY_SRC and t.buffer.usage & u.COPY_DST
    x = dg.asarray(np.arange(64, dtype=np.float32))
    y = dg.hardmax(x, out=t.reshape(64))
    assert_same(y, hardmax_reference(np.arange(64, dtype=np.float32), (0,)))
    with pytest.raises(TypeError, match=r"usage"):
        dg.empty((4,), "float32", usage="VERTEX")


DOUBLE = """
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < arrayLength(&dst)) { dst[g.x] = src[g.x] * 2u + 1u; }
}
"""


def test_record_into_the_users_encoder_with_their_own_pass(dev, user):
    """argmax recorded into the user's encoder, whose own compute pass then reads the
    indices (no readback in between); one submission."""
    gpu, d = user
    w = d.wgpu
    a = random_values(rng_for("record"), (64, 50), "float32")
    x = dg.Tensor.from_buffer(_buffer(gpu, w, a), "float32", a.shape)
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc("float32", a.shape),
                                 dg.TensorDesc("uint32", (64, 1)), axes=(1,)))
    idx = dg.empty((64, 1), "uint32", device=d)
    dst = gpu.create_buffer(size=256, usage=w.BufferUsage.STORAGE | w.BufferUsage.COPY_SRC)
    pipeline = gpu.create_compute_pipeline(layout="auto", compute={
        "module": gpu.create_shader_module(code=DOUBLE), "entry_point": "main"})
    group = gpu.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
        {"binding": 0, "resource": {"buffer": idx.buffer, "offset": 0, "size": 256}},
        {"binding": 1, "resource": {"buffer": dst, "offset": 0, "size": 256}}])
    encoder = gpu.create_command_encoder()
    rec = op.record(encoder, inputs=[x], outputs=[idx])  # its own compute pass
    assert rec.outputs == [idx] and rec.n_dispatches >= 1
    cpass = encoder.begin_compute_pass()
    cpass.set_pipeline(pipeline)
    cpass.set_bind_group(0, group)
    cpass.dispatch_workgroups(1)
    cpass.end()
    gpu.queue.submit([encoder.finish()])
    got = _read(gpu, dst, 256).view(np.uint32)
    expected = arg_reference(a, (1,), "max", False).ravel()
    np.testing.assert_array_equal(got, expected * 2 + 1)
    # into the user's open pass: the same dispatches
    encoder = gpu.create_command_encoder()
    cpass = encoder.begin_compute_pass()
    rec2 = op.record(cpass, inputs=[x])
    cpass.end()
    gpu.queue.submit([encoder.finish()])
    assert_same(rec2.outputs[0], expected.reshape(64, 1))
    with pytest.raises(TypeError, match=r"encoder: .* is neither"):
        op.record(object(), inputs=[x])


def record_in_one_encoder(dev, op, inputs) -> list:
    """op recorded once per input into one encoder, submitted: the recordings."""
    encoder = dev.device.create_command_encoder()
    recordings = [op.record(encoder, inputs=[x]) for x in inputs]
    dev.device.queue.submit([encoder.finish()])
    return recordings


def test_two_recordings_in_one_encoder_have_their_own_scratch(dev):
    rng = rng_for("two recordings")
    a, b = (random_values(rng, (3, 20000), "float32") for _ in range(2))
    op = dev.compile(dg.TopK1Desc(dg.TensorDesc("float32", a.shape),
                                  dg.TensorDesc("float32", (3, 9)),
                                  dg.TensorDesc("uint32", (3, 9)), 1, 9))
    assert op.scratch  # this plan uses scratch
    ra, rb = record_in_one_encoder(dev, op, [dg.asarray(a), dg.asarray(b)])
    assert {id(h) for h in ra._holds}.isdisjoint(id(h) for h in rb._holds[:len(op.scratch)])
    assert_same(ra.outputs[1], topk_reference(a, 9)[1])
    assert_same(rb.outputs[1], topk_reference(b, 9)[1])


@pytest.mark.parametrize("name", ["argmax", "argmin", "hardmax", "top_k", "nonzero_coordinates"])
def test_capture_and_replay_with_new_data(dev, name):
    rng = rng_for("capture", name)
    dtype = "float16" if name == "hardmax" else "float32"
    a = random_values(rng, (6, 300), dtype)
    x = dg.asarray(a)
    calls = {
        "argmax": lambda: [dg.argmax(x, 1)],
        "argmin": lambda: [dg.argmin(x, (0, 1), index_dtype="int64")],
        "hardmax": lambda: [dg.hardmax(x, 0)],
        "top_k": lambda: list(dg.top_k(x, 5)),
        "nonzero_coordinates": lambda: list(dg.nonzero_coordinates(x)),
    }

    def expected(h):
        if name == "argmax":
            return [arg_reference(h, (1,), "max", False)]
        if name == "argmin":
            return [arg_reference(h, (0, 1), "min", False, "int64")]
        if name == "hardmax":
            return [hardmax_reference(h, (0,))]
        if name == "top_k":
            return list(topk_reference(h, 5))
        nz = nonzero_reference(h)
        return [np.array([len(nz)], np.uint32), nz]

    def check(outs, h):
        for i, (g, e) in enumerate(zip(outs, expected(h), strict=True)):
            if name == "nonzero_coordinates" and i == 1:
                np.testing.assert_array_equal(g[:len(e)].numpy(), e)
            else:
                assert_same(g, e)

    with dev.capture() as graph:
        outs = calls[name]()
    assert graph.calls == 1 and graph.dispatches >= 1
    check(outs, a)  # submitted once at the block's end
    for _ in range(2):
        a = random_values(rng, (6, 300), dtype)
        if name == "nonzero_coordinates":
            a[rng.random(a.shape) < 0.5] = 0
        x.copy_(a)
        graph.replay()
        check(outs, a)


def test_gathered_rows_recorded_and_replayed(dev):
    """TopK over a strided axis whose rows are first gathered into scratch: two recordings
    in one encoder keep their own gathered rows, and a captured call replays on new data."""
    rng = rng_for("gathered capture")
    a, b = (random_values(rng, (300, 40), "float16") for _ in range(2))
    xa, xb = dg.asarray(a), dg.asarray(b)
    op = dev.compile(dg.TopK1Desc(dg.TensorDesc("float16", a.shape),
                                  dg.TensorDesc("float16", (50, 40)),
                                  dg.TensorDesc("uint32", (50, 40)), 0, 50))
    assert op.plan.notes["gathered"], op.plan.notes
    for rec, h in zip(record_in_one_encoder(dev, op, [xa, xb]), (a, b), strict=True):
        ev, ei = topk_reference(h, 50, 0)
        assert_same(rec.outputs[0], ev)
        assert_same(rec.outputs[1], ei)
    with dev.capture() as graph:
        values, indices = dg.top_k(xa, 50, 0)
    for _ in range(2):
        h = random_values(rng, (300, 40), "float16")
        xa.copy_(h)
        graph.replay()
        ev, ei = topk_reference(h, 50, 0)
        assert_same(values, ev)
        assert_same(indices, ei)


def _count_submits(monkeypatch, dev):
    submits = []
    queue = dev.device.queue
    real = queue.submit
    monkeypatch.setattr(queue, "submit", lambda bufs: (submits.append(len(bufs)), real(bufs)),
                        raising=False)
    return submits


@pytest.mark.parametrize("raw", [True, False], ids=["raw-encode", "wgpu-py-methods"])
def test_replays_of_small_calls_share_the_batch(monkeypatch, tuned, raw):
    monkeypatch.setenv("DMLGPU_RAW_ENCODE", "1" if raw else "0")
    dev = tuned()  # a fresh device reads DMLGPU_RAW_ENCODE
    from dmlgpu.runtime import dispatch

    assert isinstance(dev.encode_commands, dispatch.RawEncoder) is raw
    rng = rng_for("capture many")
    a = random_values(rng, (8, 1500), "float32")
    b = random_values(rng, (1, 1000), "float32")
    c = random_values(rng, (64, 100), "float32")
    xa, xb, xc = (dg.asarray(v, device=dev) for v in (a, b, c))
    with dev.capture() as graph:
        i = dg.argmax(xa, 1)
        v, j = dg.top_k(xb, 5)
        h = dg.hardmax(xc)
        i2 = dg.argmin(xa, 1)  # a pipeline again after others: set again in the pass
    assert graph.calls == 4
    submits = _count_submits(monkeypatch, dev)
    for _ in range(3):
        graph.replay()
    assert submits == []  # batched like small eager calls: nothing submitted yet
    dev.flush()  # (as every readback, upload and wait does)
    assert submits == [1]
    assert_same(i, arg_reference(a, (1,), "max", False))
    assert_same(j, topk_reference(b, 5)[1])
    assert_same(h, hardmax_reference(c, (1,)))
    assert_same(i2, arg_reference(a, (1,), "min", False))
    # new data between replays, and eager calls batched between them, keep their order
    a2 = random_values(rng, (8, 1500), "float32")
    xa.copy_(a2)
    graph.replay()
    k = dg.argmax(xa, 1)
    xa.copy_(a)
    graph.replay()
    assert_same(k, arg_reference(a2, (1,), "max", False))
    assert_same(i, arg_reference(a, (1,), "max", False))
    assert_same(i2, arg_reference(a, (1,), "min", False))


def test_replays_of_a_large_call_submit_as_eager_large_calls(monkeypatch, tuned):
    """The first replay after a wait is submitted at once; the next ones (the GPU busy with
    it) share a submission, tuning.BATCH_LARGE_CALLS to one, until a flush point."""
    dev = tuned(BATCH_LARGE_BYTES=4096, BATCH_LARGE_CALLS=3)  # 8x1500 float32 is large
    rng = rng_for("capture large")
    a = random_values(rng, (8, 1500), "float32")
    xa = dg.asarray(a, device=dev)
    with dev.capture() as graph:
        i = dg.argmax(xa, 1)
    dev.synchronize()
    submits = _count_submits(monkeypatch, dev)
    graph.replay()
    assert submits == [1] and dev._pending is None
    graph.replay()
    graph.replay()
    assert submits == [1] and dev._pending is not None
    graph.replay()  # the third in the batch
    assert submits == [1, 1] and dev._pending is None
    assert_same(i, arg_reference(a, (1,), "max", False))


def test_capture_rejects_what_a_replay_would_get_wrong(dev):
    x = dg.asarray(np.ones((3, 4), np.float32))
    with dev.capture() as graph:
        y = dg.argmax(x, 1)
        with pytest.raises(ValueError, match=r"x: a ndarray \(host data\) given while "
                                             r"capturing"):
            dg.argmax(np.ones((3, 4), np.float32), 1)
        with pytest.raises(dg.DmlgpuError, match=r"cannot be read inside the capture block"):
            y.numpy()
        with pytest.raises(dg.DmlgpuError, match=r"already capturing"):
            with dev.capture():
                pass
    assert y.numpy().ravel().tolist() == [0, 0, 0]
    with pytest.raises(dg.DmlgpuError, match=r"captured once"):
        with graph:
            pass
    failed = dev.capture()
    with pytest.raises(KeyError):
        with failed:
            dg.argmax(x, 1)
            raise KeyError("the user's code fails inside the block")
    with pytest.raises(dg.DmlgpuError, match=r"replay: the graph is failed"):
        failed.replay()


def test_copy_(dev):
    x = dg.asarray(np.zeros((4, 6), np.float16))
    x.copy_(np.arange(24, dtype=np.float16).reshape(4, 6))
    np.testing.assert_array_equal(x.numpy(), np.arange(24, dtype=np.float16).reshape(4, 6))
    x[1:3, 1:5:2].copy_(np.full((2, 2), -1, np.float16))  # a strided 16-bit view
    e = np.arange(24, dtype=np.float16).reshape(4, 6)
    e[1:3, 1:5:2] = -1
    np.testing.assert_array_equal(x.numpy(), e)
    y = dg.empty((4, 6), "float16")
    y.copy_(x)
    np.testing.assert_array_equal(y.numpy(), e)
    with pytest.raises(TypeError, match=r"src: dtype float32 differs"):
        x.copy_(np.zeros((4, 6), np.float32))
    with pytest.raises(ValueError, match=r"src: shape \(3,\) does not match"):
        x.copy_(np.zeros(3, np.float16))


def test_wrong_device_errors_tell_the_truth(dev, user):
    """A buffer of another device: a clear error naming it before any GPU work, and a
    WebGPU validation error (not a "lost device") where one gets through to wgpu."""
    gpu, d = user
    foreign = dg.asarray(np.ones(4, np.float32))  # the default device's buffer
    with pytest.raises(ValueError, match=r"belongs to another GPU device"):
        dg.Tensor(d, foreign.buffer, "float32", (4,), (1,))
    err = d.error(d.wgpu.GPUValidationError("simulated validation"), "binding ArgMaxDesc")
    assert isinstance(err, dg.WebGPUValidationError)
    assert "lost" not in str(err)
    oom = d.error(d.wgpu.GPUOutOfMemoryError("simulated"), "x")
    assert isinstance(oom, dg.OutOfMemoryError)
    lost = d.error(RuntimeError("Device is lost"), "submitting")
    assert isinstance(lost, dg.DeviceLostError)


def test_every_operator_under_default_limits(default_limits_dev):
    """On a device the user requested with WebGPU's default compute limits every
    operator's plans fit them and stay exact."""
    d = default_limits_dev
    rng = rng_for("default limits")
    for dtype in ("float32", "float16", "uint8", "int64"):
        for shape in ((3, 70000), (5000, 3), (64, 64, 64)):
            x = random_values(rng, shape, dtype)
            t = dg.asarray(x, device=d)
            for axes in [(i,) for i in range(len(shape))] + [tuple(range(len(shape)))]:
                assert_same(dg.argmin(t, axes), arg_reference(x, axes, "min", False))
                if dtype in ("float32", "float16"):
                    assert_same(dg.hardmax(t, axes), hardmax_reference(x, axes))
            for axis in range(len(shape)):
                for k in {1, 8, 20, 100, 1000} & set(range(1, shape[axis] + 1)):
                    v, i = dg.top_k(t, k, axis)
                    ev, ei = topk_reference(x, k, axis)
                    assert_same(i, ei)
                    assert_same(v, ev)
            count, coords = dg.nonzero_coordinates(t)
            n = int(count.numpy()[0])
            np.testing.assert_array_equal(coords[:n].numpy(), nonzero_reference(x))
