"""Bad arguments to the functional API (dg.argmax/dg.argmin): each raises ValueError or
TypeError naming the argument and the value, before anything reaches the GPU (the
`no_gpu` fixture is in conftest.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from reference import UNSUPPORTED_INPUT_MESSAGE, UNSUPPORTED_INPUTS

import dmlgpu as dg


@pytest.fixture
def x3(dev):
    return dg.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))


FNS = [dg.argmax, dg.argmin]


@pytest.mark.parametrize("fn", FNS, ids=["argmax", "argmin"])
@pytest.mark.parametrize("kwargs, exc, match", [
    # axes
    (dict(axes=3), ValueError,
     r"axes: 3 is out of range for a rank-3 tensor \(allowed -3\.\.2\)"),
    (dict(axes=-4), ValueError, r"axes: -4 is out of range for a rank-3 tensor"),
    (dict(axes=(0, 5)), ValueError, r"axes: 5 is out of range"),
    (dict(axes=(0, 0)), ValueError, r"axes: \(0, 0\) repeats an axis"),
    (dict(axes=(2, -1)), ValueError, r"axes: \(2, -1\) repeats an axis"),
    (dict(axes=()), ValueError, r"axes: .*empty"),
    (dict(axes=[]), ValueError, r"axes: .*empty"),
    (dict(axes="0"), TypeError, r"axes: '0' is not an integer"),
    (dict(axes=[1.0]), TypeError, r"axes: 1\.0 is not an integer"),
    (dict(axes=1.5), TypeError, r"axes: 1\.5"),
    # axis_direction
    (dict(axis_direction="up"), ValueError,
     r"axis_direction: 'up' is not a direction \(allowed: 'increasing', 'decreasing'\)"),
    (dict(axis_direction=""), ValueError, r"axis_direction: ''"),
    (dict(axis_direction="increase"), ValueError, r"axis_direction: 'increase'"),
    (dict(axis_direction=None), ValueError, r"axis_direction: None"),
    (dict(axis_direction=0), ValueError, r"axis_direction: 0"),
    # index_dtype
    (dict(index_dtype="float32"), TypeError,
     r"index_dtype: 'float32' is not a supported type \(allowed: .*uint32.*int64"),
    (dict(index_dtype="int16"), TypeError, r"index_dtype: 'int16'"),
    (dict(index_dtype="uint8"), TypeError, r"index_dtype: 'uint8'"),
    (dict(index_dtype=np.float64), TypeError, r"index_dtype: .*float64"),
    (dict(index_dtype="bogus"), TypeError, r"index_dtype: 'bogus'"),
    (dict(index_dtype=None), TypeError, r"index_dtype: None"),
], ids=lambda v: str(v) if isinstance(v, dict) else None)
def test_bad_arguments(dev, x3, no_gpu, fn, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(x3, **kwargs)


@pytest.mark.parametrize("fn", FNS, ids=["argmax", "argmin"])
@pytest.mark.parametrize("value, match", UNSUPPORTED_INPUTS + [
    pytest.param(np.zeros(3, np.longdouble), r"float128|longdouble|float64", id="longdouble"),
])
def test_unsupported_input_dtypes(dev, no_gpu, fn, value, match):
    with pytest.raises(TypeError, match=UNSUPPORTED_INPUT_MESSAGE.format(match)):
        fn(value)


@pytest.mark.parametrize("shape", [(), (1,) * 9, (2,) * 9], ids=["rank0", "rank9", "rank9b"])
def test_unsupported_ranks(dev, shape):
    # a tensor of any rank can exist; the operator refuses it
    x = dg.asarray(np.zeros(shape, np.float32))
    misses = dev.pipelines.misses
    with pytest.raises(ValueError, match=rf"x: rank {len(shape)} .*allowed 1\.\.8"):
        dg.argmax(x)
    with pytest.raises(ValueError, match=rf"x: rank {len(shape)}"):
        dg.argmin(x, axis_direction="decreasing")
    assert dev.pipelines.misses == misses


def test_scalar_input(dev):
    with pytest.raises(ValueError, match=r"x: rank 0"):
        dg.argmax(np.float32(3.0))


@pytest.mark.parametrize("shape, axes", [((0,), None), ((3, 0), 1), ((3, 0), None),
                                         ((0, 4, 2), (0, 2)), ((2, 0, 2), (-2,))])
def test_empty_reduced_axis(dev, shape, axes):
    x = dg.asarray(np.zeros(shape, np.int32))
    with pytest.raises(ValueError, match=r"empty reduced axis"):
        dg.argmax(x, axes)
    with pytest.raises(ValueError, match=re.escape(str(shape))):
        dg.argmin(x, axes)


@pytest.fixture(scope="module")
def big(dev):
    """2^31 + 1 elements of one byte of data (stride 0)."""
    return dg.broadcast_to(dg.asarray(np.array([1], np.uint8)), (2**31 + 1,))


def test_index_type_too_small_functional(dev, big, no_gpu):
    with pytest.raises(ValueError, match=r"int32 cannot hold the largest index 2147483648"):
        dg.argmax(big, index_dtype="int32")
    with pytest.raises(ValueError, match=r"int32 cannot hold the largest index 2147483648"):
        dg.argmin(big[None], (0, 1), index_dtype=np.int32)


def test_numpy_inputs_are_validated_before_upload(dev, no_gpu):
    """A numpy input with a bad argument is refused before it is uploaded."""
    x = np.zeros((2, 3), np.float32)
    for kwargs, exc in [(dict(axes=2), ValueError), (dict(axes=(0, 0)), ValueError),
                        (dict(axis_direction="up"), ValueError),
                        (dict(index_dtype="float32"), TypeError)]:
        with pytest.raises(exc):
            dg.argmax(x, **kwargs)
    with pytest.raises(ValueError, match="rank 9"):
        dg.argmax(np.zeros((1,) * 9, np.float32))
    with pytest.raises(ValueError, match="rank 0"):
        dg.argmax(np.float32(3.0))
    with pytest.raises(ValueError, match="empty reduced axis"):
        dg.argmax(np.zeros((2, 0), np.float32))


def test_keyword_only_options(dev, x3):
    with pytest.raises(TypeError):
        dg.argmax(x3, 0, "decreasing")
    with pytest.raises(TypeError):
        dg.argmin(x3, None, "increasing", "uint32")


def test_valid_spellings_accepted(dev, x3):
    """Directions in any case and DirectML's enum names; numpy integer axes."""
    assert dg.argmax(x3, np.int64(2), axis_direction="DECREASING").numpy().ravel().tolist() \
        == [3] * 6
    assert dg.argmax(x3, (np.int32(0), -1),
                     axis_direction="DML_AXIS_DIRECTION_INCREASING").numpy().ravel().tolist() \
        == [7, 7, 7]
    # a numpy array of axes is a sequence of axes, as a list is
    assert dg.argmin(x3, np.array([0, 2])).numpy().ravel().tolist() == [0, 0, 0]
    assert dg.argmax(x3, np.array(1)).numpy().ravel().tolist() == [2] * 8


@pytest.mark.parametrize("kwargs, match", [
    (dict(webgpu="vulkan"),
     r"webgpu: 'vulkan' is not a WebGPU implementation \(allowed: wgpu, dawn\)"),
    (dict(adapter="no such adapter 42"), r"adapter: no adapter matches 'no such adapter 42'"),
])
def test_device_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        dg.Device(**kwargs)
