"""Robustness: bad inputs for every operator (the gaps test_errors.py and test_desc.py leave),
device limits, shader compile failures, failed submissions and readbacks (a lost device),
the caching allocator, memory over many calls, and calls from several threads at once.

Bad inputs raise a ValueError/TypeError naming the argument before anything reaches the
GPU (the `no_gpu` fixture of conftest.py forbids buffers, uploads, pipelines and
dispatches).
"""

from __future__ import annotations

import gc
import os
import threading
from collections import OrderedDict

import numpy as np
import pytest
from reference import (
    UNSUPPORTED_INPUT_MESSAGE,
    UNSUPPORTED_INPUTS,
    arg_reference,
    assert_same,
    hardmax_reference,
    nonzero_reference,
    random_values,
    rng_for,
    topk_reference,
)

import dmlgpu as dg
from dmlgpu import codegen
from dmlgpu.runtime import dispatch, pipelines

# -- bad inputs: the functional API ---------------------------------------------------------


def _top_k(x, **kw):
    return dg.top_k(x, 1, **kw)


FUNCTIONS = {"argmax": dg.argmax, "argmin": dg.argmin, "hardmax": dg.hardmax,
             "top_k": _top_k, "nonzero_coordinates": dg.nonzero_coordinates}


@pytest.mark.parametrize("name", ["hardmax", "top_k", "nonzero_coordinates"])
@pytest.mark.parametrize("value, match", UNSUPPORTED_INPUTS)
def test_non_numeric_inputs(dev, no_gpu, name, value, match):
    """(argmax/argmin: test_errors.py.)"""
    with pytest.raises(TypeError, match=UNSUPPORTED_INPUT_MESSAGE.format(match)):
        FUNCTIONS[name](value)


@pytest.fixture(scope="module")
def rank0(dev):
    return dg.asarray(np.float32(3.0))


@pytest.fixture(scope="module")
def rank9(dev):
    return dg.asarray(np.ones((1, 2, 1, 1, 1, 1, 1, 1, 2), np.float32))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_rank_0_and_9(dev, rank0, rank9, no_gpu, name):
    for t in (rank0, rank9):
        with pytest.raises(ValueError, match=rf"x: rank {t.ndim} .*allowed 1\.\.8"):
            FUNCTIONS[name](t)


@pytest.mark.parametrize("name", ["argmax", "hardmax"])
def test_numpy_rank_0_and_9_not_uploaded(dev, no_gpu, name):
    for a in (np.float32(3.0), np.ones((1,) * 9, np.float32)):
        with pytest.raises(ValueError, match=r"x: rank"):
            FUNCTIONS[name](a)


@pytest.fixture(scope="module")
def x34(dev):
    return dg.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(axes=2), ValueError, r"axes: 2 is out of range for a rank-2 tensor \(allowed -2\.\.1\)"),
    (dict(axes=(-3,)), ValueError, r"axes: -3 is out of range"),
    (dict(axes=(1, -1)), ValueError, r"axes: \(1, -1\) repeats an axis"),
    (dict(axes=()), ValueError, r"axes: \(\) is empty"),
    (dict(axes="1"), TypeError, r"axes: '1' is not an integer"),
    (dict(axes=1.0), TypeError, r"axes: 1\.0"),
    (dict(axes=[0.5]), TypeError, r"axes: 0\.5 is not an integer"),
], ids=lambda v: str(v) if isinstance(v, dict) else None)
def test_hardmax_bad_arguments(dev, x34, no_gpu, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        dg.hardmax(x34, **kwargs)


@pytest.mark.parametrize("call, exc, match", [
    (lambda x: dg.top_k(x, 5), ValueError, r"k: 5 is out of range"),
    (lambda x: dg.top_k(x, 1, 2), ValueError, r"axis: 2 is out of range"),
    (lambda x: dg.top_k(x, 1, index_dtype="int8"), TypeError, r"index_dtype: 'int8'"),
    (lambda x: dg.top_k(x, 1, axis_direction="up"), ValueError, r"axis_direction: 'up'"),
    (lambda x: dg.top_k(x[:, :0], 1), ValueError, r"k: 1 is out of range: axis 1 is empty"),
    (lambda x: dg.nonzero_coordinates(x, 3), ValueError, r"coordinate_rank: 3 is out of range"),
    (lambda x: dg.nonzero_coordinates(x[None, None, None, None, None, None, None]),
     ValueError, r"x: rank 9"),
], ids=["k", "axis", "index_dtype", "direction", "empty-axis", "coordinate_rank", "rank9"])
def test_top_k_nonzero_numpy_inputs_validated_before_upload(dev, no_gpu, call, exc, match):
    with pytest.raises(exc, match=match):
        call(np.zeros((3, 4), np.float32))


def test_hardmax_numpy_input_validated_before_upload(dev, no_gpu):
    with pytest.raises(ValueError, match=r"axes: 2 is out of range"):
        dg.hardmax(np.zeros((3, 4), np.float32), 2)
    with pytest.raises(TypeError, match=r"x.dtype: .*int32"):
        dg.hardmax(np.zeros((3, 4), np.int32))


@pytest.mark.parametrize("args, kwargs, exc, match", [
    ((5,), {}, ValueError, r"k: 5 is out of range for axis 1 of size 4 \(allowed 1\.\.4\)"),
    ((4, 0), {}, ValueError, r"k: 4 is out of range for axis 0 of size 3"),
    ((0,), {}, ValueError, r"k: 0 is out of range"),
    ((-1,), {}, ValueError, r"k: -1 is out of range"),
    ((True,), {}, TypeError, r"k: True is not an integer"),
    ((None,), {}, TypeError, r"k: None is not an integer"),
    (("2",), {}, TypeError, r"k: '2' is not an integer"),
    ((2.0,), {}, TypeError, r"k: 2\.0 is not an integer"),
    ((1, 2), {}, ValueError, r"axis: 2 is out of range for a rank-2 tensor"),
    ((1, -3), {}, ValueError, r"axis: -3 is out of range"),
    ((1, "0"), {}, TypeError, r"axis: '0' is not an integer"),
    ((1, (0,)), {}, TypeError, r"axis: \(0,\) is not an integer"),
    ((1,), dict(axis_direction="down"), ValueError, r"axis_direction: 'down' is not a direction"),
    ((1,), dict(axis_direction=None), ValueError, r"axis_direction: None"),
    ((1,), dict(index_dtype="float32"), TypeError, r"index_dtype: 'float32' is not a supported"),
    ((1,), dict(index_dtype="uint16"), TypeError, r"index_dtype: 'uint16'"),
    ((1,), dict(index_dtype="int8"), TypeError, r"index_dtype: 'int8'"),
    ((1,), dict(index_dtype=None), TypeError, r"index_dtype: None"),
], ids=lambda v: repr(v) if isinstance(v, tuple) else None)
def test_top_k_bad_arguments(dev, x34, no_gpu, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        dg.top_k(x34, *args, **kwargs)


@pytest.mark.parametrize("value, exc, match", [
    (0, ValueError, r"coordinate_rank: 0 is out of range for x of shape \(3, 4\) \(allowed "
                    r"2\.\.2\)"),
    (3, ValueError, r"coordinate_rank: 3 is out of range"),
    (-1, ValueError, r"coordinate_rank: -1 is out of range"),
    (True, TypeError, r"coordinate_rank: True is not an integer"),
    (2.0, TypeError, r"coordinate_rank: 2\.0 is not an integer"),
    ("2", TypeError, r"coordinate_rank: '2' is not an integer"),
])
def test_nonzero_bad_arguments(dev, x34, no_gpu, value, exc, match):
    with pytest.raises(exc, match=match):
        dg.nonzero_coordinates(x34, value)


@pytest.fixture(scope="module")
def big(dev):
    """2^31 + 1 elements of one byte of memory (stride 0)."""
    return dg.broadcast_to(dg.asarray(np.array([1], np.uint8)), (2**31 + 1,))


def test_top_k_index_type_too_small(dev, big, no_gpu):
    with pytest.raises(ValueError, match=r"index_dtype: int32 cannot hold the largest index "
                                         r"2147483648"):
        dg.top_k(big, 1, index_dtype="int32")


# -- zero-sized dimensions ------------------------------------------------------------------

@pytest.fixture
def no_dispatch(monkeypatch):
    def forbid(*args, **kwargs):
        raise AssertionError("dispatched work for an empty result")
    monkeypatch.setattr(dispatch, "submit", forbid)


@pytest.mark.parametrize("shape, axes", [((0, 3), -1), ((3, 0), 0), ((2, 0, 2), (0, 2))])
def test_zero_sized_hardmax_is_empty(dev, no_dispatch, shape, axes):
    """Hardmax of an empty tensor is an empty tensor (every subset is empty or has none)."""
    y = dg.hardmax(np.zeros(shape, np.float16), axes)
    assert y.shape == shape and y.dtype == np.float16


@pytest.mark.parametrize("shape, axis", [((0, 3), 1), ((3, 0, 2), 2), ((0,) * 8, 0)])
def test_zero_sized_top_k(dev, no_dispatch, shape, axis):
    """Empty rows give empty results; an empty axis has no K (see test_topk.py)."""
    if shape[axis] == 0:
        with pytest.raises(ValueError, match=rf"k: 1 is out of range: axis {axis} is empty"):
            dg.top_k(np.zeros(shape, np.int16), 1, axis)
    else:
        v, i = dg.top_k(np.zeros(shape, np.int16), 1, axis)
        out = tuple(1 if d == axis else n for d, n in enumerate(shape))
        assert v.shape == out and i.shape == out


def test_zero_sized_argmax_kept_axis(dev, no_dispatch):
    """A non-reduced empty axis: an empty result (an empty reduced axis is an error:
    test_errors.py)."""
    assert dg.argmin(np.zeros((0, 5), np.uint8), 1).shape == (0, 1)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 0, 4)])
def test_zero_sized_nonzero_counts_zero(dev, shape):
    count, coords = dg.nonzero_coordinates(np.zeros(shape, np.float32))
    assert count.numpy().tolist() == [0] and coords.shape == (0, len(shape))


def test_zero_sized_desc_errors(dev, no_gpu):
    with pytest.raises(ValueError, match=r"TopK1Desc.k: 1 is out of range: axis 1 is empty"):
        dev.compile(dg.TopK1Desc(dg.TensorDesc("float32", (2, 0)),
                                 dg.TensorDesc("float32", (2, 1)),
                                 dg.TensorDesc("uint32", (2, 1)), 1, 1))
    with pytest.raises(ValueError, match=r"ArgMinDesc.input.sizes: \(2, 0\) has an empty "
                                         r"reduced axis"):
        dev.compile(dg.ArgMinDesc(dg.TensorDesc("float32", (2, 0)),
                                  dg.TensorDesc("uint32", (2, 1)), (1,)))


# -- bad inputs: the DirectML-style layer ----------------------------------------------------

def _hardmax_desc(sizes=(2, 3), out=None, dtype="float32", out_dtype=None, axes=(1,)):
    return dg.Hardmax1Desc(dg.TensorDesc(dtype, sizes),
                           dg.TensorDesc(out_dtype or dtype, sizes if out is None else out),
                           axes)


def _topk_desc(sizes=(3, 4), vals=(3, 2), idx=(3, 2), dtype="float32", vdtype=None,
               idtype="uint32", axis=1, k=2, direction="decreasing"):
    return dg.TopK1Desc(dg.TensorDesc(dtype, sizes), dg.TensorDesc(vdtype or dtype, vals),
                        dg.TensorDesc(idtype, idx), axis, k, direction)


def _nonzero_desc(sizes=(2, 3), count=(1,), coords=(6, 2), dtype="float32",
                  count_dtype="uint32"):
    return dg.NonZeroCoordinatesDesc(dg.TensorDesc(dtype, sizes),
                                     dg.TensorDesc(count_dtype, count),
                                     dg.TensorDesc("uint32", coords))


@pytest.mark.parametrize("make, exc, match", [
    (lambda: _hardmax_desc(out=(2, 4)), ValueError, r"Hardmax1Desc.output: float32\[2, 4\] "
                                                     r"should have the input's type and sizes"),
    (lambda: _hardmax_desc(out=(6,)), ValueError, r"Hardmax1Desc.output"),
    (lambda: _hardmax_desc(dtype="int32"), TypeError, r"Hardmax1Desc.input.dtype: .*int32.*"
                                                      r"allowed: float32, float16"),
    (lambda: _hardmax_desc(axes=(2,)), ValueError, r"Hardmax1Desc.axes: 2 is out of range"),
    (lambda: _hardmax_desc(axes=(0, -2)), ValueError, r"Hardmax1Desc.axes: .*repeats"),
    (lambda: _hardmax_desc(axes=()), ValueError, r"Hardmax1Desc.axes: \(\) is empty"),
    (lambda: _hardmax_desc(axes="a"), TypeError, r"Hardmax1Desc.axes: 'a' is not an integer"),
    (lambda: _hardmax_desc(sizes=()), ValueError, r"Hardmax1Desc.input: rank 0"),
    (lambda: _hardmax_desc(sizes=(1,) * 9), ValueError, r"Hardmax1Desc.input: rank 9"),
    (lambda: _hardmax_desc(dtype="bool"), TypeError, r"TensorDesc.dtype: .*bool"),
    (lambda: _topk_desc(vals=(3, 3)), ValueError, r"TopK1Desc.output_value.sizes: \(3, 3\) "
                                                  r"should be \(3, 2\)"),
    (lambda: _topk_desc(idx=(2,)), ValueError, r"TopK1Desc.output_index.sizes: \(2,\)"),
    (lambda: _topk_desc(vdtype="int32"), TypeError, r"TopK1Desc.output_value.dtype: int32 "
                                                    r"should be the input's float32"),
    (lambda: _topk_desc(idtype="float32"), TypeError, r"TopK1Desc.output_index.dtype: "
                                                      r"'float32' is not a supported type"),
    (lambda: _topk_desc(idtype="uint16"), TypeError, r"TopK1Desc.output_index.dtype: 'uint16'"),
    (lambda: _topk_desc(k=5), ValueError, r"TopK1Desc.k: 5 is out of range for axis 1 of "
                                          r"size 4"),
    (lambda: _topk_desc(k=True), TypeError, r"TopK1Desc.k: True is not an integer"),
    (lambda: _topk_desc(k="2"), TypeError, r"TopK1Desc.k: '2' is not an integer"),
    (lambda: _topk_desc(axis=2), ValueError, r"TopK1Desc.axis: 2 is out of range"),
    (lambda: _topk_desc(axis="1"), TypeError, r"TopK1Desc.axis: '1' is not an integer"),
    (lambda: _topk_desc(direction="up"), ValueError, r"axis_direction: 'up'"),
    (lambda: _topk_desc(sizes=(), vals=(), idx=()), ValueError, r"TopK1Desc.input: rank 0"),
    (lambda: _topk_desc(sizes=(1,) * 9, vals=(1,) * 9, idx=(1,) * 9), ValueError,
     r"TopK1Desc.input: rank 9"),
    (lambda: _topk_desc(dtype="float64"), TypeError, r"TensorDesc.dtype: .*float64"),
    (lambda: _nonzero_desc(sizes=(), coords=(1, 1)), ValueError,
     r"NonZeroCoordinatesDesc.input: rank 0"),
    (lambda: _nonzero_desc(count_dtype="float32"), TypeError,
     r"NonZeroCoordinatesDesc.output_count.dtype: float32 is not supported \(allowed: uint32\)"),
    (lambda: _nonzero_desc(count=(1,) * 9), ValueError,
     r"NonZeroCoordinatesDesc.output_count: rank 9"),
    (lambda: _nonzero_desc(sizes=(1, 2, 3), coords=(6, 1)), ValueError,
     r"output_coordinates.sizes: \(6, 1\) .*N in 2\.\.3"),
    (lambda: _nonzero_desc(coords=(7, 2)), ValueError, r"output_coordinates.sizes: \(7, 2\) "
                                                       r".*M = 6"),
], ids=lambda v: None)
def test_desc_errors(dev, no_gpu, make, exc, match):
    """(ArgMax/ArgMin: test_desc.py.) Raised building or compiling the description."""
    with pytest.raises(exc, match=match):
        dev.compile(make())


# -- bad tensors at call time, for every operator --------------------------------------------

@pytest.fixture(scope="module")
def compiled(dev):
    """One compiled operator of each kind over a (2, 3) float32 input, with a maker of
    good (inputs, outputs) for it."""
    x = dg.TensorDesc("float32", (2, 3))
    return {
        "argmax": (dev.compile(dg.ArgMaxDesc(x, dg.TensorDesc("uint32", (2, 1)), (1,))),
                   [("uint32", (2, 1))]),
        "hardmax": (dev.compile(dg.Hardmax1Desc(x, x, (1,))), [("float32", (2, 3))]),
        "top_k": (dev.compile(dg.TopK1Desc(x, dg.TensorDesc("float32", (2, 2)),
                                           dg.TensorDesc("int64", (2, 2)), 1, 2)),
                  [("float32", (2, 2)), ("int64", (2, 2))]),
        "nonzero": (dev.compile(dg.NonZeroCoordinatesDesc(x, dg.TensorDesc("uint32", (1,)),
                                                          dg.TensorDesc("uint32", (6, 2)))),
                    [("uint32", (1,)), ("uint32", (6, 2))]),
    }


OPS = ["argmax", "hardmax", "top_k", "nonzero"]
X23 = np.array([[1, 0, 3], [0, 5, 5]], np.float32)


def _outputs(specs, device=None):
    return [dg.empty(shape, dtype, device=device) for dtype, shape in specs]


@pytest.mark.parametrize("name", OPS)
def test_call_with_tensors_of_another_device(dev, windowed_dev, compiled, name):
    op, outs = compiled[name]
    x = dg.asarray(X23)
    with pytest.raises(ValueError, match=r"inputs\[0\]: the tensor lives on another device "
                                         r"\(<dmlgpu.Device #\d+ .*\) than the operator"):
        op(inputs=[dg.asarray(X23, device=windowed_dev)])
    for i in range(len(outs)):
        mixed = _outputs(outs)
        mixed[i] = _outputs(outs[i:i + 1], windowed_dev)[0]
        with pytest.raises(ValueError, match=rf"outputs\[{i}\]: .*another device"):
            op(inputs=[x], outputs=mixed)
    # and with every tensor on the operator's device it runs
    op(inputs=[x], outputs=_outputs(outs))


@pytest.mark.parametrize("name", OPS)
def test_call_with_wrong_tensors(dev, compiled, name):
    op, outs = compiled[name]
    x = dg.asarray(X23)
    bad_inputs = [
        (dg.asarray(X23.astype(np.float16)), TypeError, r"inputs\[0\]: dtype float16"),
        (dg.asarray(X23.T.copy()), ValueError, r"inputs\[0\]: shape \(3, 2\)"),
        (dg.asarray(X23.T.copy()).T, ValueError, r"inputs\[0\]: strides \(1, 2\)"),
        (X23, TypeError, r"inputs\[0\]: expected a dg\.Tensor, got ndarray"),
    ]
    for bad, exc, match in bad_inputs:
        with pytest.raises(exc, match=match):
            op(inputs=[bad])
    for i, (dtype, shape) in enumerate(outs):
        other = "int32" if dtype != "int32" else "uint32"
        for bad_spec, exc, match in [
            ((other, shape), TypeError, rf"outputs\[{i}\]: dtype {other}"),
            ((dtype, shape + (1,)), ValueError, rf"outputs\[{i}\]: shape"),
        ]:
            specs = list(outs)
            specs[i] = bad_spec
            with pytest.raises(exc, match=match):
                op(inputs=[x], outputs=_outputs(specs))
        if shape[-1] > 1:  # a strided output the description did not announce
            specs = _outputs(outs)
            wide = dg.empty(shape[:-1] + (2 * shape[-1],), dtype)
            specs[i] = wide[..., ::2]
            with pytest.raises(ValueError, match=rf"outputs\[{i}\]: strides"):
                op(inputs=[x], outputs=specs)


@pytest.mark.parametrize("name", OPS)
def test_call_with_wrong_tensor_counts(dev, compiled, name):
    op, outs = compiled[name]
    x = dg.asarray(X23)
    with pytest.raises(ValueError, match=r"inputs.*2"):
        op(inputs=[x, x])
    with pytest.raises(ValueError, match=r"outputs.*"):
        op(inputs=[x], outputs=_outputs(outs) + _outputs(outs[:1]))


# -- device limits and index arithmetic -----------------------------------------------------

@pytest.fixture
def limit_elements(dev):
    """Elements of 4 bytes one past the device's max-buffer-size."""
    return dev.max_buffer_size // 4 + 1


def test_empty_beyond_max_buffer_size(dev, limit_elements):
    with pytest.raises(dg.DeviceLimitError, match=r"max-buffer-size limit \(\d+ bytes\)"):
        dg.empty((limit_elements,), "float32")
    with pytest.raises(ValueError, match=r"max-buffer-size"):  # DeviceLimitError is one
        dg.empty((limit_elements, 2), "uint16")


@pytest.mark.parametrize("name", ["argmax", "hardmax", "top_k", "nonzero_coordinates"])
def test_outputs_beyond_max_buffer_size(dev, limit_elements, no_dispatch, name):
    """A broadcast input of a few bytes whose output would exceed the largest buffer: an
    error naming the limit, and nothing dispatched."""
    one8 = dg.asarray(np.array([7], np.uint8))
    one32 = dg.asarray(np.array([7], np.float32))
    call = {
        "argmax": lambda: dg.argmax(dg.broadcast_to(one8, (limit_elements, 2)), 1),
        "hardmax": lambda: dg.hardmax(dg.broadcast_to(one32, (limit_elements,))),
        "top_k": lambda: dg.top_k(dg.broadcast_to(one32, (limit_elements, 2)), 1),
        "nonzero_coordinates": lambda: dg.nonzero_coordinates(
            dg.broadcast_to(one8, (limit_elements,))),
    }[name]
    with pytest.raises(dg.DeviceLimitError, match=r"max-buffer-size"):
        call()


def test_past_2_to_32_elements_top_k_and_nonzero(dev, no_dispatch):
    """Past 2^32 elements the 32-bit GPU indices cannot count: an error naming the limit,
    never a wrapped-around answer. (ArgMax: test_desc.py.)"""
    x = dg.broadcast_to(dg.asarray(np.array([7], np.uint8)), (2**32 + 2,))
    with pytest.raises(ValueError, match=r"k: axis 0 has 4294967298 elements; TopK1 supports "
                                         r"at most 4294967295"):
        dg.top_k(x, 1, index_dtype="int64")
    with pytest.raises(ValueError, match=r"TopK1Desc.k: .*at most 4294967295"):
        dev.compile(dg.TopK1Desc(dg.TensorDesc.of(x), dg.TensorDesc("uint8", (1,)),
                                 dg.TensorDesc("int64", (1,)), 0, 1))
    with pytest.raises(dg.DeviceLimitError, match=r"2\^32"):
        dg.nonzero_coordinates(x)
    # 2^31 + 1 elements: indices fit, the coordinates (8 GiB) do not fit a buffer
    with pytest.raises(dg.DeviceLimitError, match=r"max-buffer-size"):
        dg.nonzero_coordinates(x[:2**31 + 1])
    # many rows: 2^33 elements in 2^31 rows of 4; the outputs exceed the largest buffer
    rows = dg.broadcast_to(dg.asarray(np.array([1, 2, 3, 4], np.float32)), (2**31, 4))
    with pytest.raises(dg.DeviceLimitError, match=r"max-buffer-size"):
        dg.top_k(rows, 1)


def test_allocation_failure_is_a_dmlgpu_error(dev, monkeypatch):
    """An allocation the device refuses (out of memory) raises DmlgpuError saying so, and
    the library keeps working afterwards."""
    def refuse(**kwargs):
        raise dev.wgpu.GPUOutOfMemoryError("simulated: out of memory")
    with monkeypatch.context() as m:
        m.setattr(dev.device, "create_buffer", refuse)
        dev.empty_cache()  # nothing cached to serve the requests
        with pytest.raises(dg.OutOfMemoryError, match=r"empty: allocating 8192 bytes on device "
                                                      r"#\d+ .* failed: out of device memory"):
            dg.empty((1500,), "float32")
        with pytest.raises(dg.DmlgpuError, match=r"allocating"):
            dg.argmax(np.zeros((3, 4), np.float32), 1)
    assert dg.argmax(X23, 1).numpy().ravel().tolist() == [2, 1]


# -- shader compile failures and lost devices -------------------------------------------------

def test_shader_compile_failure_then_recovery(dev, monkeypatch):
    """A shader that fails to compile raises ShaderCompileError naming the template and its
    key; nothing is cached, and later calls compile and run."""
    render = codegen.render
    broken = {"on": True}

    def maybe_broken(template, variables):
        if broken["on"] and template == "argreduce.wgsl.j2":
            return "fn main( { this is not WGSL"
        return render(template, variables)

    monkeypatch.setattr(codegen, "render", maybe_broken)
    # empty caches, so that the next call has to build its pipelines
    monkeypatch.setattr(dev, "pipelines", pipelines.PipelineCache(dev))
    monkeypatch.setattr(dev, "_compiled", OrderedDict())
    monkeypatch.setattr(dev, "_hot", {})
    x = dg.asarray(X23)
    with pytest.raises(dg.ShaderCompileError, match=r"shader argreduce\.wgsl\.j2 with \{.*'op': "
                                                    r"'max'.*\} failed to compile on "):
        dg.argmax(x, 1)
    assert isinstance(dg.ShaderCompileError("x"), dg.DmlgpuError)
    assert len(dev.pipelines) == 0 and len(dev._compiled) == 0
    broken["on"] = False
    assert dg.argmax(x, 1).numpy().ravel().tolist() == [2, 1]


@pytest.fixture
def queue_fails(dev, monkeypatch):
    """Makes one queue method raise, as a lost device's queue would."""
    def fail(method):
        def boom(*args, **kwargs):
            raise RuntimeError("simulated: the device was lost")
        monkeypatch.setattr(dev.device.queue, method, boom, raising=False)
    return fail


def test_failed_submission_is_a_dmlgpu_error(dev, queue_fails, monkeypatch):
    x = dg.asarray(random_values(rng_for("lost"), (4, 300), "float32"))
    assert dev.subgroup_size >= 0  # probed (a submission of its own) before the queue fails
    queue_fails("submit")
    calls = [(lambda: dg.argmax(x, 0), "ArgMaxDesc"), (lambda: dg.top_k(x, 3), "TopK1"),
             (lambda: dg.nonzero_coordinates(x), "NonZeroCoordinates")]
    allocated = []
    for _ in range(2):
        for call, label in calls:
            with pytest.raises(dg.DeviceLostError, match=rf"submitting {label} failed: device "
                                                         r"#\d+ .* was lost.*simulated"):
                call()
                dev.flush()  # a small call is batched: its submission fails here
        gc.collect()
        allocated.append(dev.memory_stats()["allocated_bytes"])
    monkeypatch.undo()
    # failed calls leave nothing allocated behind (the bound dispatches of the first round
    # serve the second), and the next calls work
    assert allocated[1] == allocated[0]
    assert_same(dg.argmax(x, 0), arg_reference(x.numpy(), (0,), "max", False))


def test_failed_readback_and_upload_are_dmlgpu_errors(dev, queue_fails, monkeypatch):
    y = dg.argmax(X23, 1)
    dev.flush()  # submitted before the queue fails
    queue_fails("submit")
    with pytest.raises(dg.DeviceLostError, match=r"reading 8 bytes back from the GPU failed: "
                                                 r"device .* was lost"):
        y.numpy()
    queue_fails("write_buffer")
    with pytest.raises(dg.DeviceLostError, match=r"writing 24 bytes to the GPU failed"):
        dg.asarray(X23)
    monkeypatch.undo()
    assert y.numpy().ravel().tolist() == [2, 1]


# -- buffer reuse ---------------------------------------------------------------------------

def test_scratch_and_uniforms_are_reused(dev):
    """Calls with partials (a split argmax), NonZero scratch and uniform blocks take their
    buffers from the allocator's cache: after the first call, no new buffer per call."""
    x = dg.asarray(random_values(rng_for("reuse"), (300, 4), "float32"))
    host = x.numpy()
    op = dev.compile(dg.ArgMaxDesc(dg.TensorDesc.of(x), dg.TensorDesc("uint32", (1, 4)), (0,)))
    assert op.plan.partial_bytes > 0  # a split reduction: it needs partials

    def call():
        assert_same(dg.argmax(x, 0), arg_reference(host, (0,), "max", False))
        return dg.nonzero_coordinates(x)

    # (a loop's call runs while it holds the last call's results: two sets of NonZero's
    # outputs, the second made by the second call, whatever earlier tests left cached)
    held = call()
    held = call()
    before = dev.memory_stats()
    for _ in range(20):
        held = call()
    del held
    after = dev.memory_stats()
    assert after["misses"] == before["misses"]
    # 20 x (argmax's output and partials, NonZero's two outputs and scratch, readbacks)
    assert after["hits"] >= before["hits"] + 100


def test_reused_scratch_is_not_overwritten_in_flight(dev):
    """Calls queued back to back without waiting share scratch buffers (the allocator hands
    a call's scratch to the next once queued); queue order keeps each result intact."""
    rng = rng_for("in flight")
    hosts = [random_values(rng, (300, 4), "float32") for _ in range(6)]
    long_rows = [random_values(rng, (2, 20000), "int32") for _ in range(6)]
    xs = [dg.asarray(h) for h in hosts]
    ls = [dg.asarray(h) for h in long_rows]
    results = []
    for x, lx in zip(xs, ls, strict=True):  # nothing is read until all are queued
        results.append((dg.argmin(x, 0), dg.nonzero_coordinates(x), dg.top_k(lx, 5)))
    op = dev.compile(dg.TopK1Desc(dg.TensorDesc.of(ls[0]), dg.TensorDesc("int32", (2, 5)),
                                  dg.TensorDesc("uint32", (2, 5)), 1, 5))
    assert op.plan.scratch  # the candidates strategy needs scratch
    for h, lh, (a, (count, coords), (v, i)) in zip(hosts, long_rows, results, strict=True):
        assert_same(a, arg_reference(h, (0,), "min", False))
        n = int(count.numpy()[0])
        np.testing.assert_array_equal(coords[:n].numpy(), nonzero_reference(h))
        ev, ei = topk_reference(lh, 5)
        assert_same(v, ev)
        assert_same(i, ei)


# -- memory over many calls -----------------------------------------------------------------

def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _live_buffers(dev) -> int:
    """Live wgpu buffer objects (the wrapper's object tracker, both implementations)."""
    return dev.wgpu.diagnostics.object_counts.tracker.counts.get("GPUBuffer", 0)


CALLS = 10_000


def test_memory_10000_mixed_calls(dev):
    """10,000 calls of all operators (with partials, scratch and uniforms) on small tensors:
    no buffer is created after a warm-up, and no memory accumulates."""
    rng = rng_for("memory")
    a = random_values(rng, (300, 4), "float32")
    b = random_values(rng, (6, 40), "float16")
    c = random_values(rng, (5, 37), "int16")
    xa, xb, xc = dg.asarray(a), dg.asarray(b), dg.asarray(c)
    calls = [
        (lambda: dg.argmax(xa, 0), lambda r: assert_same(r, arg_reference(a, (0,), "max",
                                                                           False))),
        (lambda: dg.argmin(xc, None, index_dtype="int64"),
         lambda r: assert_same(r, arg_reference(c, (0, 1), "min", False, "int64"))),
        (lambda: dg.hardmax(xb, 1), lambda r: assert_same(r, hardmax_reference(b, (1,)))),
        (lambda: dg.top_k(xc, 4, axis_direction="increasing"),
         lambda r: assert_same(r[1], topk_reference(c, 4, -1, False)[1])),
        (lambda: dg.nonzero_coordinates(xc)[0],
         lambda r: assert_same(r, np.array([np.count_nonzero(c)], np.uint32))),
    ]

    def batch(n):
        for i in range(n):
            call, check = calls[i % len(calls)]
            result = call()
            if i % 500 < len(calls):  # check now and then (a readback also drains the queue)
                check(result)

    batch(1000)  # warm-up: pipelines, allocator cache, bound dispatches
    gc.collect()
    mem0, bufs0, rss0 = dev.memory_stats(), _live_buffers(dev), _rss_mib()
    batch(CALLS)
    gc.collect()
    mem1, bufs1, rss1 = dev.memory_stats(), _live_buffers(dev), _rss_mib()
    report = (f"memory {mem0} -> {mem1}; live buffers {bufs0} -> {bufs1}; "
              f"RSS {rss0:.1f} -> {rss1:.1f} MiB")
    print(report)
    assert mem1["misses"] == mem0["misses"], report  # every output and scratch reused
    assert mem1["hits"] - mem0["hits"] >= CALLS, report
    assert mem1["allocated_bytes"] == mem0["allocated_bytes"], report
    assert bufs1 <= bufs0 + 4, report  # no wgpu buffer object accumulates
    assert rss1 - rss0 < 48, report  # generous: allocator noise, no per-call growth


# -- several threads --------------------------------------------------------------------------

def test_threads_share_a_device(dev):
    """8 threads call every operator at once on their own data, on a fresh device (its
    compile and pipeline caches start empty, so the threads race to fill them); every
    result is right, and nothing is built twice."""
    d = dg.Device()
    n_threads, rounds = 8, 6
    errors = []
    start = threading.Barrier(n_threads)

    def work(t):
        try:
            rng = rng_for("threads", t)
            a = random_values(rng, (300, 4), "float32")
            b = random_values(rng, (5, 37), "int8")
            c = random_values(rng, (2, 20000), "float32")  # TopK with per-op scratch
            h = random_values(rng, (6, 40), "float16")
            start.wait()
            for _ in range(rounds):
                xa = dg.asarray(a, device=d)
                assert_same(dg.argmax(xa, 0), arg_reference(a, (0,), "max", False))
                assert_same(dg.argmin(dg.asarray(b, device=d), 1, axis_direction="decreasing"),
                            arg_reference(b, (1,), "min", True))
                assert_same(dg.hardmax(dg.asarray(h, device=d), 0), hardmax_reference(h, (0,)))
                v, i = dg.top_k(dg.asarray(c, device=d), 7)
                ev, ei = topk_reference(c, 7)
                assert_same(v, ev)
                assert_same(i, ei)
                count, coords = dg.nonzero_coordinates(dg.asarray(b, device=d))
                n = int(count.numpy()[0])
                np.testing.assert_array_equal(coords[:n].numpy(), nonzero_reference(b))
        except BaseException as e:  # reported by the main thread
            errors.append(f"thread {t}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)
    assert d.pipelines.misses == len(d.pipelines)  # each pipeline built once
