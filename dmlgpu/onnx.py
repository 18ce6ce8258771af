"""An ONNX backend over dmlgpu's kernels: `from dmlgpu import onnx as donnx`.

`donnx.Backend` is an `onnx.backend.base.Backend`: `Backend.prepare(model)` checks every
node and returns a rep whose `run(inputs)` executes the graph on dmlgpu's WebGPU device,
intermediate tensors staying on the GPU; `Backend.run_node(node, inputs)` runs one node.
It serves ArgMax, ArgMin, TopK, NonZero and Hardmax at every opset that defines them, with
ONNX's semantics:

- ArgMax/ArgMin: `axis`, `keepdims`, `select_last_index` (the last of equal extremes);
  int64 outputs.
- TopK: K as an attribute (opset 1) or an int64 tensor input (opset 10 on), `largest`,
  `sorted` (results are always sorted, which sorted=0 allows); equal values in ascending
  index order, as ONNX specifies; int64 indices.
- NonZero: int64 (rank, nnz) indices in row-major order (bool inputs too).
- Hardmax: before opset 13 the input is seen as 2-D at `axis` (all dims from `axis` on
  are one row), which is Hardmax1 over the axes axis..rank-1; from opset 13 one axis.

A node outside this set, an input type the kernels lack (double, bfloat16, strings), or
a K that is not known before the graph runs (computed by another node) is rejected at
`prepare`, naming the node, the op and the reason. Nothing runs on the CPU; NonZero reads
back its 4-byte count, since its output's shape depends on it.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend as _Backend
from onnx.backend.base import BackendRep as _BackendRep

from . import dtypes
from .ops import argreduce, hardmax, nonzero, topk
from .ops.convert import coords_to_indices
from .runtime.device import Device, default_device
from .runtime.tensor import Tensor, asarray

OPS = ("ArgMax", "ArgMin", "TopK", "NonZero", "Hardmax")
# the latest opset of each op (its semantics since then are what `run_node` uses)
LATEST = {"ArgMax": 13, "ArgMin": 13, "TopK": 24, "NonZero": 13, "Hardmax": 13}
_BOOL = onnx.TensorProto.BOOL


class UnsupportedNode(ValueError):
    """A node the backend cannot run as ONNX specifies it (raised at prepare)."""


def _attrs(node) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _where(node, i: int) -> str:
    return f"node {node.name or i!r} ({node.op_type})"


class _Node:
    """One checked node: its op, attributes, opset and input/output names."""

    def __init__(self, node, index: int, opset: int, types: dict, constants: dict,
                 graph_inputs: set):
        self.op, self.name = node.op_type, _where(node, index)
        if node.domain not in ("", "ai.onnx"):
            raise UnsupportedNode(f"{self.name}: domain {node.domain!r} is not served "
                                  "(only the default ONNX domain)")
        if node.op_type not in OPS:
            raise UnsupportedNode(f"{self.name}: the op is not served by dmlgpu's ONNX "
                                  f"backend (served: {', '.join(OPS)})")
        self.attrs = _attrs(node)
        self.opset = opset
        self.inputs, self.outputs = list(node.input), list(node.output)
        x = self.inputs[0]
        t = types.get(x)
        if t is not None:
            if t == _BOOL and self.op != "NonZero":
                raise UnsupportedNode(f"{self.name}: input {x!r} is bool, which {self.op} "
                                      "does not take")
            if t != _BOOL:
                np_t = onnx.helper.tensor_dtype_to_np_dtype(t)
                if np.dtype(np_t).name not in dtypes.DTYPES:
                    raise UnsupportedNode(
                        f"{self.name}: input {x!r} has type {np.dtype(np_t).name}, which the "
                        f"kernels do not take (allowed: {', '.join(dtypes.DTYPES)})")
        if self.op == "TopK" and opset >= 10:
            k = self.inputs[1] if len(self.inputs) > 1 else ""
            if k not in constants and k not in graph_inputs:
                raise UnsupportedNode(f"{self.name}: K ({k!r}) is computed by another node, "
                                      "so it is not known before the graph runs; give it as "
                                      "an initializer or a graph input")
        if self.op == "TopK" and self.attrs.get("largest", 1) not in (0, 1):
            raise UnsupportedNode(f"{self.name}: largest={self.attrs['largest']}")


def _tensor(v, device: Device) -> Tensor:
    if isinstance(v, Tensor):
        return v
    a = np.asarray(v)
    if a.dtype == np.bool_:
        a = a.view(np.uint8)  # 0/1 bytes: what is zero stays zero
    return asarray(a, device=device)


def _host_int(v, what: str) -> int:
    a = np.asarray(v.numpy() if isinstance(v, Tensor) else v).reshape(-1)
    if a.size != 1:
        raise ValueError(f"{what}: expected one value, got shape {a.shape}")
    return int(a[0])


def _execute(n: _Node, args: list, device: Device) -> list:
    a, op = n.attrs, n.op
    if op in ("ArgMax", "ArgMin"):
        x = _tensor(args[0], device)
        if x.ndim == 0:
            x = x.reshape(1)
        axis = a.get("axis", 0) % x.ndim
        fn = argreduce.argmax if op == "ArgMax" else argreduce.argmin
        y = fn(x, axis, axis_direction="decreasing" if a.get("select_last_index", 0) else
               "increasing", index_dtype="int64")
        if not a.get("keepdims", 1):
            y = y.reshape(tuple(s for i, s in enumerate(y.shape) if i != axis))
        return [y]
    if op == "Hardmax":
        x = _tensor(args[0], device)
        if n.opset < 13:
            axis = a.get("axis", 1) % x.ndim
            return [hardmax.hardmax(x, tuple(range(axis, x.ndim)))]
        return [hardmax.hardmax(x, a.get("axis", -1) % x.ndim)]
    if op == "TopK":
        x = _tensor(args[0], device)
        k = a["k"] if n.opset < 10 else _host_int(args[1], f"{n.name}: K")
        axis = a.get("axis", -1) % x.ndim
        largest = a.get("largest", 1) == 1
        values, indices = topk.top_k(x, k, axis, index_dtype="int64",
                                     axis_direction="decreasing" if largest else "increasing")
        return [values, indices]
    if op == "NonZero":
        x = _tensor(args[0], device)
        if x.ndim == 0:
            x = x.reshape(1)
        count, coords = nonzero.nonzero_coordinates(x)
        return [coords_to_indices(coords, int(count.numpy()[0]), per_dim=True)]
    raise AssertionError(op)


def _host(v) -> np.ndarray:
    return v.numpy() if isinstance(v, Tensor) else np.asarray(v)


class DmlgpuRep(_BackendRep):
    """A prepared model: `run(inputs)` returns the graph's outputs as numpy arrays."""

    def __init__(self, model, device: Device):
        self.device = device
        graph = model.graph
        opsets = {o.domain: o.version for o in model.opset_import}
        opset = opsets.get("", opsets.get("ai.onnx", max(LATEST.values())))
        self.constants = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.inputs = [i.name for i in graph.input if i.name not in self.constants]
        self.outputs = [o.name for o in graph.output]
        try:
            inferred = onnx.shape_inference.infer_shapes(model)
        except Exception:  # a model shape inference cannot follow: types from the graph
            inferred = model
        types = {}
        for v in list(inferred.graph.value_info) + list(graph.input) + list(graph.output):
            if v.type.HasField("tensor_type"):
                types[v.name] = v.type.tensor_type.elem_type
        for c, arr in self.constants.items():
            types[c] = onnx.helper.np_dtype_to_tensor_dtype(arr.dtype)
        self.nodes = [_Node(nd, i, opset, types, self.constants, set(self.inputs))
                      for i, nd in enumerate(graph.node)]

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
            if len(inputs) != len(self.inputs):
                raise ValueError(f"inputs: {len(inputs)} given, the graph takes "
                                 f"{len(self.inputs)} ({', '.join(self.inputs)})")
            feed = dict(zip(self.inputs, inputs, strict=True))
        values = dict(self.constants)
        values.update(feed)
        for n in self.nodes:
            args = [values[name] if name else None for name in n.inputs]
            for name, out in zip(n.outputs, _execute(n, args, self.device), strict=False):
                if name:
                    values[name] = out
        return tuple(_host(values[o]) for o in self.outputs)


class Backend(_Backend):
    """dmlgpu's ONNX backend (see the module docstring). The `device` argument names
    where results come back: "CPU" (numpy arrays, the ONNX test runner's default) or
    "GPU"/"WEBGPU"; the computation runs on dmlgpu's WebGPU device either way."""

    DEVICES = ("CPU", "GPU", "WEBGPU")

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return str(device).upper().split(":")[0] in cls.DEVICES

    @classmethod
    def prepare(cls, model, device: str = "CPU", **kwargs) -> DmlgpuRep:
        super().prepare(model, device, **kwargs)  # the checker's validation
        if not cls.supports_device(device):
            raise ValueError(f"device: {device!r} is not served (allowed: "
                             f"{', '.join(cls.DEVICES)})")
        return DmlgpuRep(model, kwargs.get("dmlgpu_device") or default_device())

    @classmethod
    def run_model(cls, model, inputs, device: str = "CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device: str = "CPU", outputs_info=None, **kwargs):
        """Run one node on numpy inputs (opset: kwargs["opset_version"], else the op's
        latest); returns its outputs as numpy arrays."""
        super().run_node(node, inputs, device)
        opset = kwargs.get("opset_version", LATEST.get(node.op_type, 13))
        types = {}
        for name, v in zip(node.input, inputs, strict=False):
            a = np.asarray(v)
            types[name] = (_BOOL if a.dtype == np.bool_
                           else onnx.helper.np_dtype_to_tensor_dtype(a.dtype))
        n = _Node(node, 0, opset, types, {}, set(node.input))
        dev = kwargs.get("dmlgpu_device") or default_device()
        return tuple(_host(o) for o in _execute(n, list(inputs), dev))


prepare = Backend.prepare
run_model = Backend.run_model
run_node = Backend.run_node
supports_device = Backend.supports_device
