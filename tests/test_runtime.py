"""The runtime: the caching allocator (reuse, bounds, release under memory pressure), `out=`
on every operator, the hot path of repeated calls, readback of views, threads."""

from __future__ import annotations

import gc
import threading

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
from dmlgpu.ops import base
from dmlgpu.runtime import allocator, dispatch


def _calls(x16, x32):
    """(name, call(out=None), expected numpy results) for every operator."""
    h16, h32 = x16.numpy(), x32.numpy()
    ev, ei = topk_reference(h32, 3)
    nz = nonzero_reference(h32)
    return {
        "argmax": (lambda out=None: dg.argmax(x32, 1, out=out),
                   [arg_reference(h32, (1,), "max", False)]),
        "argmin": (lambda out=None: dg.argmin(x32, 0, index_dtype="int64", out=out),
                   [arg_reference(h32, (0,), "min", False, "int64")]),
        "hardmax": (lambda out=None: dg.hardmax(x16, 1, out=out), [hardmax_reference(h16, (1,))]),
        "top_k": (lambda out=None: dg.top_k(x32, 3, out=out), [ev, ei]),
        "nonzero_coordinates": (lambda out=None: dg.nonzero_coordinates(x32, out=out),
                                [np.array([len(nz)], np.uint32), nz]),
    }


@pytest.fixture(scope="module")
def data(dev):
    rng = rng_for("runtime")
    return (dg.asarray(random_values(rng, (6, 40), "float16")),
            dg.asarray(random_values(rng, (5, 37), "float32")))


def _check(name, got, expected):
    got = list(got) if isinstance(got, tuple) else [got]
    if name == "nonzero_coordinates":
        n = int(got[0].numpy()[0])
        assert_same(got[0], expected[0])
        np.testing.assert_array_equal(got[1][:n].numpy(), expected[1])
        return
    for g, e in zip(got, expected, strict=True):
        assert_same(g, e)


# -- the allocator ---------------------------------------------------------------------------

class FakeBuffer:
    def __init__(self, size, usage):
        self.size, self.usage, self.destroyed = size, usage, False

    def destroy(self):
        self.destroyed = True


def fake(**kw):
    made = []

    def create(size, usage):
        b = FakeBuffer(size, usage)
        made.append(b)
        return b
    kw.setdefault("cache_limit", 1 << 30)
    return allocator.CachingAllocator(create, device_name="fake", max_buffer_size=1 << 32,
                                      **kw), made


@pytest.mark.parametrize("n", [1, 7, 65535, 65536, 65537, 131070, 131071, 200000,
                               65535 * 65535])
def test_grid_covers_groups_with_less_than_a_row_spare(n):
    """A dispatch past the per-dimension limit takes rows of as few groups as cover it:
    every group index below n exists, under y spare groups (each spare one still costs a
    launch), within the limit in both dimensions."""
    x, y = dispatch.grid(n, 65535)
    assert x <= 65535 and y <= 65535 and n <= x * y < n + y
    with pytest.raises(ValueError, match="exceed the device's grid"):
        dispatch.grid(65535 * 65535 + 1, 65535)


def test_size_classes():
    sc = allocator.size_class
    assert sc(1) == allocator.MIN_CLASS and sc(513) == 1024 and sc(1 << 20) == 1 << 20
    # above 1 MiB four classes per power of two: at most 25% over the request
    assert sc((1 << 20) + 1) == 1310720 and sc(1 << 30) == 1 << 30
    for n in [3 << 20, 5 << 20, (1 << 30) + 1, 3_000_000_001]:
        assert n <= sc(n) <= 1.25 * n


def test_reuse_by_class_and_usage():
    a, made = fake()
    b1 = a.alloc(1000, 1)
    buf = b1.buffer
    del b1
    b2 = a.alloc(900, 1)  # same class, same usage: the same buffer, nothing created
    assert b2.buffer is buf and len(made) == 1
    b3 = a.alloc(900, 2)  # another usage: a buffer of its own
    assert b3.buffer is not buf and len(made) == 2
    s = a.stats()
    assert (s["hits"], s["misses"], s["frees"]) == (1, 2, 1)
    assert s["allocated_bytes"] == 2048 and s["cached_bytes"] == 0
    del b2, b3
    s = a.stats()
    assert s["allocated_bytes"] == 0 and s["cached_bytes"] == 2048 and s["peak_bytes"] == 2048
    # the last freed block taken straight back (a loop's calls), or, asked for another
    # class, through the cache: the same buffers and counts either way
    c1, c2 = a.alloc(1000, 1), a.alloc(100, 1)
    bufs = c1.buffer, c2.buffer
    del c1, c2  # (c2 freed last)
    d2 = a.alloc(100, 1)
    d1 = a.alloc(1000, 1)
    assert (d1.buffer, d2.buffer) == bufs and len(made) == 3
    s = a.stats()
    assert (s["hits"], s["misses"], s["frees"]) == (4, 3, 5)
    assert s["allocated_bytes"] == 1024 + 512 and s["cached_bytes"] == 1024


def test_large_sizes_are_cached_too():
    a, made = fake()
    big = a.alloc(1 << 30, 1)
    del big
    again = a.alloc((1 << 30) - 12345, 1)
    assert len(made) == 1 and again.size == 1 << 30


def test_cache_limit_releases_least_recently_freed():
    a, made = fake(cache_limit=4096)
    b0, b1, b2 = (a.alloc(2048, 1) for _ in range(3))
    del b0
    del b1
    del b2
    s = a.stats()
    assert s["cached_bytes"] == 4096 and s["releases"] == 1
    assert made[0].destroyed and not made[1].destroyed and not made[2].destroyed


def test_memory_limit_releases_cache_then_raises():
    a, made = fake(memory_limit=8192)
    x = a.alloc(4096, 1)
    y = a.alloc(2048, 1)
    del y  # 2048 idle
    z = a.alloc(4096, 2)  # 4096 + 2048 + 4096 > 8192: the idle buffer goes first
    assert made[1].destroyed and a.stats()["cached_bytes"] == 0
    with pytest.raises(dg.OutOfMemoryError, match=r"big: allocating 4096 bytes on fake would "
                                                  r"pass its memory limit of 8192 bytes"):
        a.alloc(4096, 3, "big")
    assert isinstance(dg.OutOfMemoryError("x"), dg.DmlgpuError)
    del x, z


def test_device_out_of_memory_retries_once_after_releasing_the_cache():
    state = {"fail": 1}

    class OOM(Exception):
        pass

    made = []

    def create(size, usage):
        if state["fail"]:
            state["fail"] -= 1
            raise OOM("out of memory")
        made.append(FakeBuffer(size, usage))
        return made[-1]
    a = allocator.CachingAllocator(create, device_name="fake", max_buffer_size=1 << 32,
                                   cache_limit=1 << 30, is_oom=lambda e: isinstance(e, OOM))
    state["fail"] = 0
    idle = a.alloc(4096, 1)
    del idle
    state["fail"] = 1  # the next creation fails once: the cache is released, then it works
    b = a.alloc(8192, 1)
    assert made[0].destroyed and b.size == 8192
    state["fail"] = 2  # fails twice: an error naming the request and the device
    with pytest.raises(dg.OutOfMemoryError, match=r"out: allocating 16384 bytes on fake "
                                                  r"failed: out of device memory"):
        a.alloc(16384, 1, "out")


def test_device_memory_stats_and_empty_cache(dev):
    d = dg.Device()
    gc.collect()
    start = d.memory_stats()
    assert set(start) >= {"allocated_bytes", "cached_bytes", "peak_bytes", "hits", "misses"}
    x = dg.asarray(np.arange(4000, dtype=np.float32).reshape(4, 1000), device=d)
    for _ in range(5):
        dg.argmax(x, 1)
        dg.top_k(x, 40)
    mid = d.memory_stats()
    assert mid["hits"] > start["hits"] and mid["cached_bytes"] > 0
    del x
    gc.collect()
    released = d.empty_cache()
    end = d.memory_stats()
    assert released > 0
    assert end["allocated_bytes"] == start["allocated_bytes"] == 0
    assert end["cached_bytes"] == 0


def test_topk_sweep_holds_no_scratch(dev):
    """A sweep of 50 distinct K (each a compiled, cached TopK with scratch) leaves no buffer
    alive beyond the allocator's cache, and empty_cache returns memory to where it began."""
    d = dg.Device()
    x = dg.asarray(random_values(rng_for("sweep"), (8, 3000), "float32"), device=d)
    gc.collect()
    start = d.memory_stats()
    for k in range(1, 51):
        v, i = dg.top_k(x, k * 7)
        del v, i
    gc.collect()
    s = d.memory_stats()
    # what is allocated now is the compiled operators' uniform blocks (a few hundred bytes
    # each), not scratch: the scratch of every call went back to the cache
    assert s["allocated_bytes"] - start["allocated_bytes"] <= 50 * 2048
    d.empty_cache()
    gc.collect()
    assert d.memory_stats()["allocated_bytes"] == start["allocated_bytes"]
    assert d.memory_stats()["cached_bytes"] == 0
    # and the operators still work afterwards
    assert_same(dg.top_k(x, 5)[1], topk_reference(x.numpy(), 5)[1])


def test_memory_limit_on_a_device(dev):
    d = dg.Device(memory_limit=1 << 20)
    x = dg.empty((200_000,), "float32", device=d)  # 800 KB, class 1 MiB... fits
    with pytest.raises(dg.OutOfMemoryError, match=r"empty: allocating \d+ bytes on device "
                                                  r"#\d+ .* memory limit of 1048576 bytes"):
        dg.empty((100_000,), "float32", device=d)
    del x
    y = dg.empty((100_000,), "float32", device=d)  # the first one's memory came back
    assert y.size == 100_000


# -- out= ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["argmax", "argmin", "hardmax", "top_k", "nonzero_coordinates"])
def test_out_writes_given_tensors(dev, data, name):
    call, expected = _calls(*data)[name]
    first = call()
    outs = list(first) if isinstance(first, tuple) else [first]
    fresh = [dg.empty(t.shape, t.dtype, device=dev) for t in outs]
    arg = fresh[0] if len(fresh) == 1 else tuple(fresh)
    call(out=arg)  # compiles for the out tensors' strides, binds their buffers
    gc.collect()
    before = dev.memory_stats()
    for _ in range(3):
        got = call(out=arg)
    after = dev.memory_stats()
    got = list(got) if isinstance(got, tuple) else [got]
    assert all(g is f for g, f in zip(got, fresh, strict=True))  # the given tensors
    _check(name, tuple(got) if len(got) > 1 else got[0], expected)
    # zero allocations in a loop with out= (scratch and uniforms come from the cache)
    assert after["misses"] == before["misses"]


def test_out_strided_views(dev, data):
    x16, x32 = data
    h32 = x32.numpy()
    big = dg.empty((5, 4), "uint32", device=dev)
    big.copy_(np.full((5, 4), 77, np.uint32))
    col = big[:, 2:3]  # a strided (5, 1) view
    dg.argmax(x32, 1, out=col)
    res = big.numpy()
    np.testing.assert_array_equal(res[:, 2:3], arg_reference(h32, (1,), "max", False))
    assert (np.delete(res, 2, axis=1) == 77).all()  # nothing outside the view written
    vals = dg.empty((3, 5), "float32", device=dev)
    idx = dg.empty((3, 5), "uint32", device=dev)
    v, i = dg.top_k(x32, 3, out=(vals.T, idx.T))
    ev, ei = topk_reference(h32, 3)
    assert_same(v, ev)
    assert_same(i, ei)


@pytest.mark.parametrize("name", ["argmax", "argmin", "hardmax", "top_k", "nonzero_coordinates"])
def test_out_errors_write_nothing(dev, windowed_dev, data, name):
    call, _ = _calls(*data)[name]
    good = call()
    good = list(good) if isinstance(good, tuple) else [good]

    def sentinel(shape, dtype, device=dev):
        t = dg.empty(shape, dtype, device=device)
        t.copy_(np.full(shape, 7, dtype))
        return t

    def arg(ts):
        return ts[0] if len(ts) == 1 else tuple(ts)

    wrong_shape = [sentinel(tuple(n + 1 for n in t.shape), t.dtype) for t in good]
    wrong_dtype = [sentinel(t.shape, np.float64 if False else
                            ("int16" if t.dtype != np.int16 else "uint8")) for t in good]
    other_dev = [sentinel(t.shape, t.dtype, windowed_dev) for t in good]
    for outs, exc, match in [(wrong_shape, ValueError, r"out(\[0\])?: shape"),
                             (wrong_dtype, TypeError, r"out(\[0\])?: dtype"),
                             (other_dev, ValueError, r"another device")]:
        with pytest.raises(exc, match=match):
            call(out=arg(outs))
        for t in outs:
            assert (t.numpy() == 7).all()  # nothing written
    with pytest.raises(TypeError, match=r"out"):
        call(out=np.zeros(3))


def test_out_overlapping_or_aliasing_is_rejected(dev, data):
    _, x32 = data
    y = dg.empty((5, 1), "uint32", device=dev)
    with pytest.raises(ValueError, match=r"out: strides \(0, 1\) .* overlap"):
        dg.argmax(x32, 1, out=dg.broadcast_to(y[:1], (5, 1)))
    both = dg.empty((2 * 15,), "float32", device=dev)
    same = dg.Tensor(dev, both.buffer, "uint32", (5, 3), (3, 1), 0)
    with pytest.raises(ValueError, match=r"outputs\[1\]: its bytes overlap outputs\[0\]"):
        dg.top_k(x32, 3, out=(both[:15].reshape(5, 3), same))
    with pytest.raises(ValueError, match=r"shares its GPU buffer with inputs\[0\]"):
        dg.hardmax(x32, out=x32)


# -- the hot path ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["argmax", "argmin", "hardmax", "top_k", "nonzero_coordinates"])
def test_hot_path_sees_new_contents(dev, name):
    rng = rng_for("hot", name)
    a16, a32 = random_values(rng, (6, 40), "float16"), random_values(rng, (5, 37), "float32")
    x16, x32 = dg.asarray(a16), dg.asarray(a32)
    call, expected = _calls(x16, x32)[name]
    _check(name, call(), expected)
    _check(name, call(), expected)  # a hot call
    x16.copy_(random_values(rng, (6, 40), "float16"))
    x32.copy_(random_values(rng, (5, 37), "float32"))
    _, new_expected = _calls(x16, x32)[name]
    _check(name, call(), new_expected)


def test_hot_path_skips_validation_and_planning(dev, monkeypatch):
    x = dg.asarray(random_values(rng_for("hot skip"), (4, 100), "float32"))
    for _ in range(2):  # the calls of the loop below, as they will come
        assert_same(dg.argmax(x, 1), arg_reference(x.numpy(), (1,), "max", False))
        assert_same(dg.top_k(x, 4)[1], topk_reference(x.numpy(), 4)[1])
    from dmlgpu import validate
    from dmlgpu.runtime import dispatch

    def forbid(*a, **k):
        raise AssertionError("the hot path validated or bound again")
    monkeypatch.setattr(validate, "axes", forbid)
    monkeypatch.setattr(dispatch, "bind", forbid)
    monkeypatch.setattr(type(dev), "compile", forbid)
    # (fresh packed outputs: the bind groups found by the hot path's own lookup)
    monkeypatch.setattr(base.CompiledOp, "_bind", forbid)
    for _ in range(3):
        assert_same(dg.argmax(x, 1), arg_reference(x.numpy(), (1,), "max", False))
        assert_same(dg.top_k(x, 4)[1], topk_reference(x.numpy(), 4)[1])


def test_hot_path_keys_distinguish_bools_and_floats(dev):
    """A call that the slow path rejects is rejected however the cache is filled."""
    x = dg.asarray(np.ones((3, 4), np.float32))
    dg.argmax(x, 1)
    dg.top_k(x, 2, axis=1)
    with pytest.raises(TypeError, match=r"axes: True"):
        dg.argmax(x, True)
    with pytest.raises(TypeError, match=r"axis: True"):
        dg.top_k(x, 2, axis=True)
    with pytest.raises(TypeError, match=r"k: 2\.0"):
        dg.top_k(x, 2.0)
    with pytest.raises(TypeError, match=r"TopK1Desc.k: 2\.0"):
        dg.TopK1Desc(dg.TensorDesc("float32", (3, 4)), dg.TensorDesc("float32", (3, 2)),
                     dg.TensorDesc("uint32", (3, 2)), 1, 2.0)


def test_threads_share_the_hot_path(dev):
    """8 threads call every operator repeatedly on one device through the hot path (and
    out=), each on its own data; every result is right."""
    n_threads, rounds = 8, 5
    errors = []
    start = threading.Barrier(n_threads)

    def work(t):
        try:
            rng = rng_for("hot threads", t)
            a16 = random_values(rng, (6, 40), "float16")
            a32 = random_values(rng, (5, 37), "float32")
            x16, x32 = dg.asarray(a16), dg.asarray(a32)
            calls = _calls(x16, x32)
            out = dg.empty((5, 1), "uint32")
            start.wait()
            for _ in range(rounds):
                for name, (call, expected) in calls.items():
                    _check(name, call(), expected)
                dg.argmax(x32, 1, out=out)
                assert_same(out, arg_reference(a32, (1,), "max", False))
        except BaseException as e:  # reported by the main thread
            errors.append(f"thread {t}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)


# -- readback ---------------------------------------------------------------------------------

def test_readback_reads_only_the_view(dev, monkeypatch):
    x = dg.asarray(np.arange(100_000, dtype=np.float32))
    read = []
    download = type(dev).download

    def spy(self, buffer, offset, nbytes):
        read.append((offset, nbytes))
        return download(self, buffer, offset, nbytes)
    monkeypatch.setattr(type(dev), "download", spy)
    np.testing.assert_array_equal(x[10:20].numpy(), np.arange(10, 20, dtype=np.float32))
    assert read == [(40, 40)]
    h = dg.asarray(np.arange(9, dtype=np.float16))
    read.clear()
    np.testing.assert_array_equal(h[3:6].numpy(), np.arange(3, 6, dtype=np.float16))
    assert read == [(4, 8)]  # the words holding elements 3..5


def test_numpy_async(dev):
    import asyncio

    x = dg.asarray(random_values(rng_for("async"), (4, 50), "float32"))

    async def main():
        a = dg.argmax(x, 1)
        v, i = dg.top_k(x, 3)
        return await asyncio.gather(a.numpy_async(), i.numpy_async(), v[:, :1].numpy_async())

    a, i, v0 = asyncio.run(main())
    h = x.numpy()
    np.testing.assert_array_equal(a, arg_reference(h, (1,), "max", False))
    ev, ei = topk_reference(h, 3)
    np.testing.assert_array_equal(i, ei)
    np.testing.assert_array_equal(v0, ev[:, :1])


def test_synchronize(dev):
    x = dg.asarray(random_values(rng_for("sync"), (4, 50), "float32"))
    y = dg.argmax(x, 1)
    dev.synchronize()
    assert_same(y, arg_reference(x.numpy(), (1,), "max", False))


# -- batched submission ------------------------------------------------------------------------

def test_small_calls_share_submissions(dev, monkeypatch):
    x = dg.asarray(random_values(rng_for("batch"), (8, 300), "float32"))
    host = x.numpy()
    dev.flush()
    submits = []
    queue = dev.device.queue
    real = queue.submit
    monkeypatch.setattr(queue, "submit", lambda bufs: (submits.append(1), real(bufs)),
                        raising=False)
    results = [dg.argmax(x, 1) for _ in range(20)]
    assert not submits  # batched: nothing submitted yet
    assert_same(results[-1], arg_reference(host, (1,), "max", False))  # the readback flushes
    monkeypatch.undo()
    assert len(submits) <= 3  # the batch, the readback's copy (wgpu-py may add one)
    for r in results:
        assert_same(r, arg_reference(host, (1,), "max", False))


def test_batched_calls_keep_their_order_with_writes(dev):
    """A write after batched calls lands after them, and calls after it see it: each
    result matches the data at its call, though nothing was read in between."""
    rng = rng_for("batch order")
    datas = [random_values(rng, (5, 37), "float32") for _ in range(4)]
    x = dg.asarray(datas[0])
    results = []
    for d in datas:
        x.copy_(d)
        results.append((dg.argmax(x, 1), dg.top_k(x, 3)))
    for d, (a, (v, i)) in zip(datas, results, strict=True):
        assert_same(a, arg_reference(d, (1,), "max", False))
        ev, ei = topk_reference(d, 3)
        assert_same(v, ev)
        assert_same(i, ei)


def test_large_calls_share_submissions_after_the_first(monkeypatch, tuned):
    """A large call is submitted at once when it is the first since a wait; the next ones
    join the batch, submitted tuning.BATCH_LARGE_CALLS to one or at a flush point, and a
    wait starts the count again; every result right, outputs reused or not."""
    dev = tuned(BATCH_LARGE_BYTES=4096, BATCH_LARGE_CALLS=3)  # 8x1500 float32 is large
    rng = rng_for("large streak")
    datas = [random_values(rng, (8, 1500), "float32") for _ in range(7)]
    xs = [dg.asarray(d, device=dev) for d in datas]
    dev.synchronize()
    submits = []
    real = dev.device.queue.submit
    monkeypatch.setattr(dev.device.queue, "submit",
                        lambda bufs: (submits.append(len(bufs)), real(bufs)), raising=False)
    outs = [dg.argmax(xs[0], 1)]
    assert len(submits) == 1 and dev._pending is None  # the first: at once
    outs += [dg.argmax(x, 1) for x in xs[1:3]]
    assert len(submits) == 1 and dev._pending is not None  # two waiting
    dg.argmax(xs[3], 1)  # dropped: its output goes back to the cache, reused below
    assert len(submits) == 2 and dev._pending is None  # three to one submission
    outs += [dg.argmax(x, 1) for x in xs[4:6]]
    assert len(submits) == 2 and dev._pending is not None
    assert_same(outs[0], arg_reference(datas[0], (1,), "max", False))  # a wait: flushes
    assert len(submits) == 4 and dev._pending is None  # the batch, then the readback copy
    outs.append(dg.argmax(xs[6], 1))
    assert len(submits) == 5 and dev._pending is None  # first after the wait: at once
    kept = [0, 1, 2, 4, 5, 6]
    for k, y in zip(kept, outs, strict=True):
        assert_same(y, arg_reference(datas[k], (1,), "max", False))


def test_buffer_access_and_empty_cache_flush_batched_work(dev):
    d = dg.Device()
    x = dg.asarray(random_values(rng_for("batch flush"), (3, 20000), "float32"), device=d)
    v, i = dg.top_k(x, 7)  # batched; its scratch went back to the cache
    assert d._pending is not None
    d.empty_cache()  # destroys idle scratch: the batch that binds it is submitted first
    assert d._pending is None
    assert_same(i, topk_reference(x.numpy(), 7)[1])
    y = dg.argmax(x, 1)
    assert d._pending is not None
    buf = y.buffer  # the user takes the buffer: the work that writes it is submitted
    assert d._pending is None
    got = np.frombuffer(d.device.queue.read_buffer(buf, 0, 12), np.uint32)
    np.testing.assert_array_equal(got, arg_reference(x.numpy(), (1,), "max", False).ravel())
