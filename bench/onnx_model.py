"""One-node ONNX models for the onnxruntime peer.

The input is an initializer of the model, so that onnxruntime keeps it on the GPU the way
dmlgpu keeps a dg.Tensor (onnxruntime's Python binding cannot place an input there); the
benchmark turns graph optimizations off, so nothing is folded at load time.

Built with onnx.helper where the `onnx` package is importable; otherwise encoded here in
protobuf's wire format (a one-node ModelProto needs little of it), so that onnxruntime
alone suffices on a machine without network access.
"""

from __future__ import annotations

import numpy as np

from .cases import OnnxNode

OPSET = 17
IR_VERSION = 8
# TensorProto.DataType
ELEM_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
              "int64": 7, "float16": 10, "uint32": 12, "uint64": 13}


def build(node: OnnxNode, x: np.ndarray) -> bytes:
    """The serialized model: the initializer "x" (x reshaped to node.x_shape, if given)
    and one node computing outputs "y0", "y1", ..."""
    if node.x_shape is not None:
        x = x.reshape(node.x_shape)
    outs = [(f"y{i}", ELEM_TYPES[t or x.dtype.name]) for i, t in enumerate(node.outputs)]
    try:
        import onnx  # noqa: F401
    except ImportError:
        return _encode(node, x, outs)
    return _with_onnx(node, x, outs)


def build_io(node: OnnxNode, x: np.ndarray):
    """The same one-node model with "x" a graph input (fed from the host each run), as an
    onnx ModelProto (needs the onnx package); returns (model, x reshaped)."""
    from onnx import helper, numpy_helper

    if node.x_shape is not None:
        x = x.reshape(node.x_shape)
    outs = [(f"y{i}", ELEM_TYPES[t or x.dtype.name]) for i, t in enumerate(node.outputs)]
    n = helper.make_node(node.op_type, ["x", *node.consts], [o for o, _ in outs],
                         **node.attrs)
    inits = [numpy_helper.from_array(np.asarray(v, np.int64), name)
             for name, v in node.consts.items()]
    graph = helper.make_graph(
        [n], "bench", [helper.make_tensor_value_info("x", ELEM_TYPES[x.dtype.name], x.shape)],
        # outputs of symbolic sizes: NonZero's are (rank, nnz), the others keep x's rank
        [helper.make_tensor_value_info(
            o, t, [f"{o}_{d}" for d in range(2 if node.op_type == "NonZero" else x.ndim)])
         for o, t in outs], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="dmlgpu-bench")
    model.ir_version = IR_VERSION
    return model, x


def _with_onnx(node, x, outs) -> bytes:
    from onnx import helper, numpy_helper

    n = helper.make_node(node.op_type, ["x", *node.consts], [o for o, _ in outs],
                         **node.attrs)
    inits = [numpy_helper.from_array(np.ascontiguousarray(x), "x")]
    inits += [numpy_helper.from_array(np.asarray(v, np.int64), name)
              for name, v in node.consts.items()]
    graph = helper.make_graph([n], "bench", [],
                              [helper.make_tensor_value_info(o, t, None) for o, t in outs],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="dmlgpu-bench")
    model.ir_version = IR_VERSION
    return model.SerializeToString()


# -- protobuf wire format (field numbers from onnx.proto) --------------------------------

def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1  # int64 fields: negative values as two's complement
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _int(field: int, v: int) -> bytes:
    return _varint(field << 3) + _varint(v)


def _len(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _str(field: int, s: str) -> bytes:
    return _len(field, s.encode())


def _value_info(name: str, elem: int) -> bytes:
    # ValueInfoProto.type.tensor_type.elem_type; shapes are left to onnxruntime
    return _str(1, name) + _len(2, _len(1, _int(1, elem)))


def _initializer(name: str, arr: np.ndarray) -> list[bytes]:
    """TensorProto (dims, data_type, name, raw_data) as parts, to join without copies."""
    raw = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
    head = (b"".join(_int(1, d) for d in arr.shape) + _int(2, ELEM_TYPES[arr.dtype.name])
            + _str(8, name) + _varint(9 << 3 | 2) + _varint(raw.nbytes))
    body = memoryview(raw.reshape(-1)).cast("B")
    return [_varint(5 << 3 | 2) + _varint(len(head) + raw.nbytes), head, body]


def _encode(node: OnnxNode, x: np.ndarray, outs) -> bytes:
    n = _str(1, "x")  # NodeProto.input
    for name in node.consts:
        n += _str(1, name)
    for o, _ in outs:
        n += _str(2, o)  # NodeProto.output
    n += _str(3, node.op_type.lower()) + _str(4, node.op_type)
    for k, v in node.attrs.items():  # AttributeProto: name, i, type = INT (2)
        n += _len(5, _str(1, k) + _int(3, int(v)) + _int(20, 2))
    parts = [_len(1, n), _str(2, "bench")]  # GraphProto.node, name
    parts += _initializer("x", x)  # GraphProto.initializer
    for name, v in node.consts.items():
        parts += _initializer(name, np.asarray(v, np.int64))
    for o, t in outs:
        parts.append(_len(12, _value_info(o, t)))  # GraphProto.output
    graph_len = sum(len(p) if isinstance(p, bytes) else p.nbytes for p in parts)
    return b"".join([_int(1, IR_VERSION), _str(2, "dmlgpu-bench"),
                     _varint(7 << 3 | 2), _varint(graph_len), *parts,
                     _len(8, _str(1, "") + _int(2, OPSET))])
