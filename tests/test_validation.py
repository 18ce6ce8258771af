"""No silent wrong answer: every tensor, view, shape, descriptor and device argument is
checked at the boundary, whatever the caches hold (the bad inputs of the validation issue)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import arg_reference

import dmlgpu as dg


@pytest.mark.parametrize("shape, exc, match", [
    ((2**32, 2**32), dg.DeviceLimitError, r"empty: shape .* exceeds the device's max-buffer"),
    ((-1, 4), ValueError, r"shape: \(-1, 4\) has a negative size"),
    ((2.5,), TypeError, r"shape: 2\.5 is not an integer"),
    ((True, 2), TypeError, r"shape: True is not an integer \(a bool\)"),
    ("12", TypeError, r"shape: '12' is not a sequence of integers"),
])
def test_empty_validates_its_shape(dev, no_gpu, shape, exc, match):
    with pytest.raises(exc, match=match):
        dg.empty(shape, "float32")


def test_views_larger_than_their_buffer(dev):
    b = dev.create_buffer(64)  # exactly 16 floats (an allocator's buffer may be larger)
    dev.upload(b, np.arange(16, dtype=np.float32))
    for shape, strides, offset in [((6000,), (1,), 0), ((16,), (1,), 1), ((4, 4), (5, 1), 0),
                                   ((2,), (-1,), 0), ((4,), (0,), 16)]:
        with pytest.raises(ValueError, match=r"Tensor: the view reaches"):
            dg.Tensor(dev, b, "float32", shape, strides, offset)
    ok = dg.Tensor(dev, b, "float32", (4, 4), (4, 1), 0)
    assert ok.numpy()[3, 3] == 15
    assert dg.Tensor(dev, b, "float32", (4,), (-1,), 3).numpy().tolist() == [3, 2, 1, 0]


def test_validation_does_not_depend_on_cache_state():
    d = dg.Device()
    src = dg.TensorDesc("float32", (3, 4))

    def desc(k):
        return dg.TopK1Desc(src, dg.TensorDesc("float32", (3, 2)),
                            dg.TensorDesc("uint32", (3, 2)), 1, k)
    with pytest.raises(TypeError, match=r"TopK1Desc.k: 2\.0 is not an integer"):
        d.compile(desc(2.0))
    d.compile(desc(2))
    with pytest.raises(TypeError, match=r"TopK1Desc.k: 2\.0 is not an integer"):
        d.compile(desc(2.0))
    x = dg.asarray(np.ones((3, 4), np.float32), device=d)
    dg.argmax(x, 1)
    dg.top_k(x, 1, axis=1)
    with pytest.raises(TypeError, match=r"axes: True"):
        dg.argmax(x, axes=True)
    with pytest.raises(TypeError, match=r"axis: True"):
        dg.top_k(x, 1, axis=True)
    with pytest.raises(TypeError, match=r"ArgMaxDesc.axes: True"):
        dg.ArgMaxDesc(src, dg.TensorDesc("uint32", (3, 1)), axes=True)


@pytest.mark.parametrize("make, match", [
    (lambda: dg.ArgMaxDesc(dg.TensorDesc("float32", (3, 4)),
                           dg.TensorDesc("uint32", (3, 1), (0, 1)), (1,)), r"ArgMaxDesc.output"),
    (lambda: dg.Hardmax1Desc(dg.TensorDesc("float32", (3, 4)),
                             dg.TensorDesc("float32", (3, 4), (1, 1))), r"Hardmax1Desc.output"),
    (lambda: dg.TopK1Desc(dg.TensorDesc("float32", (3, 4)), dg.TensorDesc("float32", (3, 2)),
                          dg.TensorDesc("uint32", (3, 2), (0, 1)), 1, 2),
     r"TopK1Desc.output_index"),
])
def test_overlapping_output_descs_are_rejected(dev, make, match):
    with pytest.raises(ValueError, match=match + r": strides .* overlap"):
        dev.compile(make())


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(max_binding_size=0), ValueError, r"max_binding_size: 0 is too small"),
    (dict(max_binding_size=-8), ValueError, r"max_binding_size: -8 is too small"),
    (dict(max_binding_size=True), TypeError, r"max_binding_size: True"),
    (dict(webgpu=""), ValueError, r"webgpu: '' is not a WebGPU implementation"),
    (dict(webgpu=3), ValueError, r"webgpu: 3 is not"),
    (dict(features=("bogus",)), ValueError, r"features: 'bogus' is not a feature"),
    (dict(features="subgroups"), TypeError, r"features: 'subgroups' is a string"),
    (dict(memory_limit=0), ValueError, r"memory_limit: 0 is too small"),
    (dict(adapter=5), TypeError, r"adapter: 5 is not a string"),
])
def test_device_arguments_rejected_at_creation(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        dg.Device(**kwargs)


def test_implementation_names_are_case_insensitive():
    name = os.environ.get("DMLGPU_WEBGPU", "wgpu")
    d = dg.Device(webgpu=name.upper())
    assert d.webgpu == name.lower()


# -- random views: rejected, or numpy's answer -------------------------------------------------

@st.composite
def views(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(0, 5)) for _ in range(ndim))
    strides = tuple(draw(st.integers(-7, 7)) for _ in range(ndim))
    offset = draw(st.integers(-3, 40))
    nbytes = draw(st.integers(4, 64)) * 4
    return shape, strides, offset, nbytes


@settings(max_examples=int(os.environ.get("DMLGPU_HYPOTHESIS_EXAMPLES", 60)), deadline=None,
          derandomize="DMLGPU_HYPOTHESIS_SEED" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(views())
def test_random_views_are_rejected_or_right(view):
    shape, strides, offset, nbytes = view
    dev = dg.default_device()
    host = np.random.default_rng(nbytes).standard_normal(nbytes // 4).astype(np.float32)
    base = dg.asarray(host)
    buf = dev.create_buffer(nbytes)
    dev.upload(buf, host)
    try:
        t = dg.Tensor(dev, buf, "float32", shape, strides, offset)
    except ValueError as e:
        assert "the view reaches" in str(e)
        idx = [offset + sum(i * s for i, s in zip(c, strides, strict=True))
               for c in np.ndindex(*shape)]
        assert idx and (min(idx) < 0 or max(idx) >= nbytes // 4)  # rejected for a reason
        return
    expected = np.array([host[offset + sum(i * s for i, s in zip(c, strides, strict=True))]
                         for c in np.ndindex(*shape)], np.float32).reshape(shape)
    np.testing.assert_array_equal(t.numpy(), expected)
    if t.size:
        got = dg.argmax(t)
        np.testing.assert_array_equal(got.numpy(), arg_reference(expected, range(len(shape)),
                                                                 "max", False))
    del base
