"""The DirectML-style layer: ArgMaxDesc/ArgMinDesc + TensorDesc, dev.compile(desc), and the
compiled operator's call. Every constraint is checked at compile time, every tensor at call
time; messages name the argument and the value."""

from __future__ import annotations

import numpy as np
import pytest
from reference import arg_reference, assert_same, random_values, rng_for

import dmlgpu as dg

X = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)


def desc(cls=dg.ArgMaxDesc, dtype="float32", sizes=(3, 3), out_sizes=(1, 3), axes=(0,),
         index="uint32", direction="increasing", strides=None, out_strides=None):
    return cls(input=dg.TensorDesc(dtype, sizes, strides),
               output=dg.TensorDesc(index, out_sizes, out_strides),
               axes=axes, axis_direction=direction)


# -- compile and run ---------------------------------------------------------------------

def test_compile_and_run_into_preallocated_output(dev):
    op = dev.compile(desc())
    x = dg.asarray(X)
    y = dg.empty((1, 3), "uint32")
    result = op(inputs=[x], outputs=[y])
    assert result[0] is y
    assert_same(y, np.array([[1, 2, 1]], np.uint32))


def test_outputs_none_returns_a_new_tensor(dev):
    op = dev.compile(desc(cls=dg.ArgMinDesc, axes=(1,), out_sizes=(3, 1), index="int64",
                          direction="decreasing"))
    (y,) = op(inputs=[dg.asarray(X)])
    assert isinstance(y, dg.Tensor) and y.device is dev
    assert_same(y, np.array([[0], [1], [2]], np.int64))
    (y2,) = op(inputs=[dg.asarray(X)])
    assert y2 is not y


def test_compile_is_cached_and_reusable(dev):
    d = desc(axes=(0, 1), out_sizes=(1, 1))
    op = dev.compile(d)
    assert dev.compile(d) is op
    misses = dev.pipelines.misses
    for i in range(3):
        x = np.roll(X, i)
        assert_same(op(inputs=[dg.asarray(x)])[0], arg_reference(x, (0, 1), "max", False))
    assert dev.pipelines.misses == misses


def test_argmin_and_argmax_descs_differ(dev):
    a = dev.compile(desc(cls=dg.ArgMaxDesc, axes=(1,), out_sizes=(3, 1)))
    b = dev.compile(desc(cls=dg.ArgMinDesc, axes=(1,), out_sizes=(3, 1)))
    assert a is not b
    x = dg.asarray(X)
    assert a(inputs=[x])[0].numpy().ravel().tolist() == [2, 2, 1]
    assert b(inputs=[x])[0].numpy().ravel().tolist() == [0, 1, 0]


def test_desc_fields_normalised():
    d = desc(axes=0, direction="DML_AXIS_DIRECTION_DECREASING")
    assert d.axes == (0,)
    assert d.axis_direction == "decreasing"
    t = dg.TensorDesc(np.float16, [2, 3])
    assert t.dtype == "float16" and t.sizes == (2, 3) and t.strides is None
    assert t.element_strides == (3, 1)
    assert dg.TensorDesc("int8", (2, 3), [1, 2]).strides == (1, 2)


def test_tensordesc_of_a_view(dev):
    t = dg.asarray(np.zeros((4, 6), np.int16))[1:, ::-2]
    td = dg.TensorDesc.of(t)
    assert (td.dtype, td.sizes, td.strides) == ("int16", (3, 3), (6, -2))


@pytest.mark.parametrize("view, strides", [
    (lambda a: a[:, ::2], (6, 2)),
    (lambda a: a[::-1], (-6, 1)),
    (lambda a: a.T[1:4], (1, 6)),
], ids=["steps", "reversed", "transposed-offset"])
def test_strided_input_desc(dev, view, strides):
    base = random_values(rng_for("strided-desc", strides), (4, 6), "float32")
    t = view(dg.asarray(base))
    nv = view(base)
    assert t.strides == strides
    for axes in ((0,), (1,), (0, 1)):
        out_sizes = tuple(1 if i in axes else n for i, n in enumerate(nv.shape))
        op = dev.compile(desc(sizes=nv.shape, strides=strides, out_sizes=out_sizes, axes=axes,
                              direction="decreasing"))
        assert_same(op(inputs=[t])[0], arg_reference(nv, axes, "max", True))


def test_strided_output_desc_writes_only_its_elements(dev):
    """An output TensorDesc with strides: the indices land in every other column."""
    x = random_values(rng_for("strided-out"), (4, 5), "int32")
    big = dg.asarray(np.full((4, 2), 99, np.uint32))
    y = big[:, 1:2]
    op = dev.compile(desc(dtype="int32", sizes=(4, 5), out_sizes=(4, 1), axes=(1,),
                          out_strides=(2, 1)))
    op(inputs=[dg.asarray(x)], outputs=[y])
    got = big.numpy()
    assert (got[:, 0] == 99).all()
    assert_same(y, arg_reference(x, (1,), "max", False))


def test_output_view_with_offset(dev):
    """A preallocated output may be a view at an offset into a larger buffer."""
    x = random_values(rng_for("out-offset"), (3, 7), "uint16")
    big = dg.asarray(np.full(10, -1, np.int64))
    y = big[5:8][:, None]
    op = dev.compile(desc(dtype="uint16", sizes=(3, 7), out_sizes=(3, 1), axes=(1,),
                          index="int64", direction="decreasing"))
    op(inputs=[dg.asarray(x)], outputs=[y])
    got = big.numpy()
    assert (got[:5] == -1).all() and (got[8:] == -1).all()
    assert_same(y, arg_reference(x, (1,), "max", True, "int64"))


def test_empty_input_returns_empty_output(dev):
    op = dev.compile(desc(sizes=(0, 3), out_sizes=(0, 1), axes=(1,)))
    (y,) = op(inputs=[dg.asarray(np.zeros((0, 3), np.float32))])
    assert y.shape == (0, 1)


# -- compile-time errors -----------------------------------------------------------------

def compile_error(dev, make, exc, match):
    """The error may come from building the description or from compiling it."""
    with pytest.raises(exc, match=match):
        dev.compile(make())


COMPILE_ERROR_IDS = [
    "rank0",
    "rank9",
    "out-sizes-swapped",
    "out-sizes-rank1",
    "out-sizes-rank3",
    "out-sizes-2-axes",
    "out-dtype-float32",
    "out-dtype-uint16",
    "out-dtype-int8",
    "axes-out-of-range",
    "axes-negative-out-of-range",
    "axes-repeated",
    "axes-repeated-negative",
    "axes-empty",
    "axes-str",
    "axes-float",
    "direction-up",
    "direction-None",
    "direction-int",
    "dtype-float64",
    "dtype-bool",
    "dtype-object",
    "dtype-complex64",
    "dtype-misspelled",
    "sizes-negative",
    "sizes-float",
    "strides-count",
    "strides-str",
    "empty-reduction",
]


@pytest.mark.parametrize("make, exc, match", [
    # rank
    (lambda: desc(sizes=(), out_sizes=()), ValueError, r"input.*rank 0.*allowed 1\.\.8"),
    (lambda: desc(sizes=(1,) * 9, out_sizes=(1,) * 9), ValueError, r"input.*rank 9.*1\.\.8"),
    # output sizes
    (lambda: desc(out_sizes=(3, 1)), ValueError, r"output\.sizes.*\(3, 1\).*\(1, 3\)"),
    (lambda: desc(out_sizes=(3,)), ValueError, r"output\.sizes.*\(3,\).*\(1, 3\)"),
    (lambda: desc(out_sizes=(1, 3, 1)), ValueError, r"output\.sizes.*\(1, 3, 1\)"),
    (lambda: desc(axes=(0, 1), out_sizes=(1, 3)), ValueError, r"output\.sizes.*\(1, 1\)"),
    # output dtype
    (lambda: desc(index="float32"), TypeError, r"output\.dtype.*float32.*uint32"),
    (lambda: desc(index="uint16"), TypeError, r"output\.dtype.*uint16.*int64"),
    (lambda: desc(index="int8"), TypeError, r"output\.dtype.*int8"),
    # axes
    (lambda: desc(axes=(2,)), ValueError, r"axes: 2 is out of range for a rank-2 tensor "
                                          r"\(allowed -2\.\.1\)"),
    (lambda: desc(axes=(-3,)), ValueError, r"axes: -3 is out of range"),
    (lambda: desc(axes=(0, 0), out_sizes=(1, 3)), ValueError, r"axes.*\(0, 0\).*repeat"),
    (lambda: desc(axes=(1, -1), out_sizes=(3, 1)), ValueError, r"axes.*\(1, -1\).*repeat"),
    (lambda: desc(axes=()), ValueError, r"axes.*empty"),
    (lambda: desc(axes=("0",)), TypeError, r"axes.*'0'.*integer"),
    (lambda: desc(axes=1.5), TypeError, r"axes.*1\.5"),
    # direction
    (lambda: desc(direction="up"), ValueError, r"axis_direction.*'up'.*increasing.*decreasing"),
    (lambda: desc(direction=None), ValueError, r"axis_direction.*None"),
    (lambda: desc(direction=1), ValueError, r"axis_direction.*1"),
    # input dtype
    (lambda: desc(dtype="float64"), TypeError, r"dtype.*float64.*float32"),
    (lambda: desc(dtype="bool"), TypeError, r"dtype.*bool"),
    (lambda: desc(dtype=object), TypeError, r"dtype.*object"),
    (lambda: desc(dtype="complex64"), TypeError, r"dtype.*complex64"),
    (lambda: desc(dtype="floot32"), TypeError, r"dtype.*floot32"),
    # sizes and strides
    (lambda: desc(sizes=(3, -3)), ValueError, r"sizes.*\(3, -3\).*negative"),
    (lambda: desc(sizes=(3, 3.0)), TypeError, r"sizes.*3\.0"),
    (lambda: desc(strides=(3,)), ValueError, r"strides.*\(3,\)"),
    (lambda: desc(strides=(3, "a")), TypeError, r"strides.*'a'"),
    # an empty reduction has no answer
    (lambda: desc(sizes=(0, 3)), ValueError, r"input\.sizes.*\(0, 3\).*empty"),
], ids=COMPILE_ERROR_IDS)
def test_compile_errors(dev, make, exc, match):
    misses = dev.pipelines.misses
    compile_error(dev, make, exc, match)
    assert dev.pipelines.misses == misses


def test_compile_errors_name_the_operator(dev):
    with pytest.raises(ValueError, match=r"ArgMinDesc\.axes"):
        dev.compile(desc(cls=dg.ArgMinDesc, axes=(5,)))
    with pytest.raises(ValueError, match=r"ArgMaxDesc\.output\.sizes"):
        dev.compile(desc(out_sizes=(3, 3)))


def test_axes_accept_numpy_integers(dev):
    op = dev.compile(desc(axes=np.int64(1), out_sizes=(3, 1)))
    assert op(inputs=[dg.asarray(X)])[0].numpy().ravel().tolist() == [2, 2, 1]
    op = dev.compile(desc(axes=(np.int32(0),)))
    assert op(inputs=[dg.asarray(X)])[0].numpy().ravel().tolist() == [1, 2, 1]
    op = dev.compile(desc(axes=np.array([1, 0]), out_sizes=(1, 1)))
    assert op(inputs=[dg.asarray(X)])[0].numpy().ravel().tolist() == [7]


def test_not_a_desc(dev):
    with pytest.raises(TypeError, match=r"desc: .*ArgMaxDesc"):
        dev.compile(dg.TensorDesc("float32", (3,)))


# -- index type too small: checked on huge descriptions (nothing is allocated) ------------

@pytest.mark.parametrize("index, sizes, axes, ok", [
    ("int32", (2**31 + 5,), (0,), False),
    ("int32", (2**31 + 1,), (0,), False),  # largest index 2^31 > int32 max
    ("int32", (2**31,), (0,), True),  # largest index 2^31 - 1 fits
    ("int32", (2**16, 2**15 + 1), (0, 1), False),  # the product of the reduced axes counts
    ("int32", (2**16, 2**15 + 1), (1,), True),
    ("uint32", (2**31 + 5,), (0,), True),
])
def test_index_type_too_small(dev, index, sizes, axes, ok):
    out = tuple(1 if i in axes else n for i, n in enumerate(sizes))
    d = desc(dtype="uint8", sizes=sizes, out_sizes=out, axes=axes, index=index)
    if ok:
        dev.compile(d)
    else:
        with pytest.raises(ValueError, match=rf"output\.dtype.*{index}.*largest index"):
            dev.compile(d)


def test_uint32_index_too_small_for_2_to_32_elements(dev):
    # stride 0: describes 2^32 + 1 elements of one byte
    d = desc(dtype="uint8", sizes=(2**32 + 1,), strides=(0,), out_sizes=(1,), index="uint32")
    with pytest.raises(ValueError, match=r"uint32.*4294967296"):
        dev.compile(d)


def test_reductions_past_2_to_32_elements_are_not_wrong(dev):
    """A broadcast input of more than 2^32 elements (1 byte of memory): either the right
    index or an error naming the limit, never a wrapped-around answer."""
    x = dg.broadcast_to(dg.asarray(np.array([7], np.uint8)), (2**32 + 2,))
    try:
        y = dg.argmax(x, axis_direction="decreasing", index_dtype="int64")
    except ValueError as e:
        assert "limit" in str(e) or "2**32" in str(e) or "4294967" in str(e), str(e)
    else:
        assert y.numpy().tolist() == [2**32 + 1]


# -- call-time errors ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def op33(dev):
    return dev.compile(desc())


@pytest.mark.parametrize("make, exc, match", [
    (lambda: dg.asarray(X.astype(np.float16)), TypeError,
     r"inputs\[0\]: dtype float16 .*float32"),
    (lambda: dg.asarray(np.zeros((3, 4), np.float32)), ValueError,
     r"inputs\[0\]: shape \(3, 4\) .*\(3, 3\)"),
    (lambda: dg.asarray(np.zeros((9,), np.float32)), ValueError, r"inputs\[0\]: shape \(9,\)"),
    (lambda: dg.asarray(X).T, ValueError, r"inputs\[0\]: strides \(1, 3\) .*\(3, 1\)"),
    (lambda: dg.asarray(np.zeros((3, 6), np.float32))[:, ::2], ValueError,
     r"inputs\[0\]: strides \(6, 2\)"),
    (lambda: X, TypeError, r"inputs\[0\]: expected a dg\.Tensor.*ndarray"),
], ids=["dtype", "shape", "rank", "transposed", "steps", "numpy"])
def test_call_errors_input(dev, op33, make, exc, match):
    with pytest.raises(exc, match=match):
        op33(inputs=[make()])


@pytest.mark.parametrize("make, exc, match", [
    (lambda: dg.empty((1, 3), "int32"), TypeError, r"outputs\[0\]: dtype int32 .*uint32"),
    (lambda: dg.empty((3, 1), "uint32"), ValueError, r"outputs\[0\]: shape \(3, 1\) .*\(1, 3\)"),
    (lambda: dg.empty((3,), "uint32"), ValueError, r"outputs\[0\]: shape \(3,\)"),
    (lambda: dg.empty((1, 6), "uint32")[:, ::2], ValueError, r"outputs\[0\]: strides"),
], ids=["dtype", "shape", "rank", "strides"])
def test_call_errors_output(dev, op33, make, exc, match):
    with pytest.raises(exc, match=match):
        op33(inputs=[dg.asarray(X)], outputs=[make()])


def test_call_error_wrong_device(dev, windowed_dev, op33):
    other = dg.asarray(X, device=windowed_dev)
    with pytest.raises(ValueError, match=r"inputs\[0\]: .*another device"):
        op33(inputs=[other])
    y = dg.empty((1, 3), "uint32", device=windowed_dev)
    with pytest.raises(ValueError, match=r"outputs\[0\]: .*another device"):
        op33(inputs=[dg.asarray(X)], outputs=[y])


@pytest.mark.parametrize("kwargs, match", [
    (lambda x: dict(inputs=[x, x]), r"inputs.*2.*1"),
    (lambda x: dict(inputs=[]), r"inputs.*0.*1"),
    (lambda x: dict(inputs=[x], outputs=[x, x]), r"outputs.*2.*1"),
], ids=["two-inputs", "no-inputs", "two-outputs"])
def test_call_errors_tensor_count(dev, op33, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        op33(**kwargs(dg.asarray(X)))


def test_broadcast_input_matches_desc_with_zero_strides(dev):
    row = dg.asarray(np.array([3, 9, 9, 1], np.int8))
    x = dg.broadcast_to(row, (5, 4))
    assert x.strides == (0, 1)
    op = dev.compile(desc(dtype="int8", sizes=(5, 4), strides=(0, 1), out_sizes=(1, 4),
                          axes=(0,), direction="decreasing"))
    assert op(inputs=[x])[0].numpy().tolist() == [[4, 4, 4, 4]]
    op = dev.compile(desc(dtype="int8", sizes=(5, 4), strides=(0, 1), out_sizes=(5, 1),
                          axes=(1,), direction="decreasing"))
    assert op(inputs=[x])[0].numpy().ravel().tolist() == [2] * 5


def test_output_in_the_input_buffer(dev):
    """DirectML binds tensors at offsets of shared buffers: an output placed in the input's
    buffer (not overlapping it) either works or is refused by a ValueError/TypeError naming
    outputs[0], never by a raw device validation error."""
    big = dg.asarray(np.array([5, 1, 9, 9, 0, 7, 2, 7, 77, 77, 77, 77], np.uint32))
    x, y = big[:8].reshape(2, 4), big[8:10].reshape(2, 1)
    op = dev.compile(desc(dtype="uint32", sizes=(2, 4), out_sizes=(2, 1), axes=(1,)))
    try:
        op(inputs=[x], outputs=[y])
    except (ValueError, TypeError) as e:
        assert "outputs[0]" in str(e)
    else:
        assert big.numpy().tolist() == [5, 1, 9, 9, 0, 7, 2, 7, 2, 1, 77, 77]
    # the device still works
    assert op(inputs=[x])[0].numpy().ravel().tolist() == [2, 1]
