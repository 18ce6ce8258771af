"""dmlgpu.onnx through ONNX's own backend test suite (every node test of ArgMax, ArgMin,
TopK, NonZero and Hardmax), plus graphs of several nodes and the rejections at prepare."""

from __future__ import annotations

import re

import numpy as np
import onnx.backend.test
import pytest
from onnx import TensorProto, helper

from dmlgpu import onnx as donnx

OPS = ("argmax", "argmin", "top_k", "nonzero", "hardmax")

backend_test = onnx.backend.test.BackendTest(donnx.Backend, __name__)
_PATTERN = re.compile(rf"^test_({'|'.join(OPS)})(_.*)?_cpu$")
backend_test.include(_PATTERN.pattern)
# the ONNX suite's generated test cases of these ops as pytest tests of this module (the
# thousands of others, which include() would leave as skips, are dropped)
SUITE = backend_test.test_cases  # (a property: new classes on every access)
for _cls in SUITE.values():
    for _name in [n for n in dir(_cls) if n.startswith("test_") and not _PATTERN.match(n)]:
        delattr(_cls, _name)
globals().update(SUITE)


def test_the_suite_selected_every_node_test():
    from onnx.backend.test.case.node import collect_testcases

    expected = {c.name for c in collect_testcases(None)
                if any(c.name.startswith(f"test_{op}") for op in OPS)}
    names = {name for cls in SUITE.values() for name in dir(cls) if name.startswith("test_")}
    assert {f"{n}_cpu" for n in expected} == names
    assert len(expected) >= 45


def _model(nodes, inputs, outputs, opset=13, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_graph_of_several_nodes_keeps_tensors_on_the_gpu(dev, monkeypatch):
    """Hardmax -> ArgMax and TopK -> NonZero in one graph: intermediate tensors are not
    read back (the only readback is NonZero's count, then the graph's outputs)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])
    k = helper.make_tensor("k", TensorProto.INT64, [1], [3])
    nodes = [helper.make_node("Hardmax", ["x"], ["h"], axis=-1),
             helper.make_node("ArgMax", ["h"], ["i"], axis=1, keepdims=0),
             helper.make_node("TopK", ["x", "k"], ["v", "j"], axis=1),
             helper.make_node("NonZero", ["v"], ["nz"])]
    outs = [helper.make_tensor_value_info("i", TensorProto.INT64, [4]),
            helper.make_tensor_value_info("j", TensorProto.INT64, [4, 3]),
            helper.make_tensor_value_info("nz", TensorProto.INT64, [2, "nnz"])]
    rep = donnx.Backend.prepare(_model(nodes, [x], outs, initializers=[k]))
    a = np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32)
    a[0, 2] = 0
    reads = []
    download = type(dev).download

    def spy(self, buffer, offset, nbytes):
        reads.append(nbytes)
        return download(self, buffer, offset, nbytes)
    monkeypatch.setattr(type(dev), "download", spy)
    i, j, nz = rep.run([a])
    monkeypatch.undo()
    np.testing.assert_array_equal(i, np.argmax(a, 1))
    np.testing.assert_array_equal(j, np.argsort(-a, 1, kind="stable")[:, :3])
    v = np.take_along_axis(a, np.argsort(-a, 1, kind="stable")[:, :3], 1)
    np.testing.assert_array_equal(nz, np.array(np.nonzero(v), np.int64))
    assert i.dtype == j.dtype == nz.dtype == np.int64
    assert len(reads) == 4  # NonZero's count, then the three outputs


def test_hardmax_before_opset_13_flattens_at_axis(dev):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    a = np.random.default_rng(6).standard_normal((2, 3, 4)).astype(np.float32)
    for axis in (0, 1, 2, -1):
        rep = donnx.Backend.prepare(_model([helper.make_node("Hardmax", ["x"], ["y"],
                                                             axis=axis)], [x], [y], opset=11))
        (got,) = rep.run([a])
        ax = axis % 3
        flat = a.reshape(int(np.prod(a.shape[:ax])), -1)
        exp = np.zeros_like(flat)
        exp[np.arange(flat.shape[0]), np.argmax(flat, 1)] = 1
        np.testing.assert_array_equal(got, exp.reshape(a.shape))


def test_run_node(dev):
    node = helper.make_node("ArgMin", ["x"], ["y"], axis=0, keepdims=1, select_last_index=1)
    a = np.array([[1, 2], [1, 0], [3, 0]], np.int32)
    (y,) = donnx.Backend.run_node(node, [a])
    np.testing.assert_array_equal(y, [[1, 2]])
    assert y.dtype == np.int64


@pytest.mark.parametrize("make, match", [
    (lambda x, y: ([helper.make_node("Relu", ["x"], ["y"])], [x], [y]),
     r"node 'n0' \(Relu\): the op is not served"),
    (lambda x, y: ([helper.make_node("ArgMax", ["x"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [3])], [y]),
     r"\(ArgMax\): input 'x' has type float64, which the kernels do not take"),
    (lambda x, y: ([helper.make_node("Hardmax", ["x"], ["h"]),
                    helper.make_node("ArgMax", ["h"], ["kk"], keepdims=1),
                    helper.make_node("TopK", ["x", "kk"], ["y", "z"])], [x], [y]),
     r"\(TopK\): K \('kk'\) is computed by another node"),
])
def test_prepare_rejects_what_it_cannot_honor(make, match):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])
    nodes, ins, outs = make(x, y)
    for i, n in enumerate(nodes):
        n.name = f"n{i}"
    with pytest.raises(donnx.UnsupportedNode, match=match):
        donnx.Backend.prepare(_model(nodes, ins, outs))
