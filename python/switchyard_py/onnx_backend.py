"""ONNX's backend API (``onnx.backend.base.Backend``) over Switchyard, so
that ``onnx.backend.test.BackendTest`` and any code written for ONNX backends
run models through it.

    import switchyard.onnx_backend as backend
    rep = backend.prepare(onnx.load("model.onnx"), device="CPU")
    outputs = rep.run([x])
    outputs = backend.run_node(onnx.helper.make_node("Relu", ["x"], ["y"]), [x])

Devices are ONNX's names ("CPU", "CUDA", "CUDA:1"), mapped to Switchyard's
("cpu:0", "cuda:0", "cuda:1").

``SwitchyardBackend.skip_unimplemented`` (False here) turns what Switchyard
does not implement (an op, attribute or dtype the importer does not convert,
a sequence or optional input) into ``unittest.SkipTest`` with the reason,
as the C++ runner of ONNX's suites (tests/onnx_node_test.cc) counts them;
python/tests/onnx_backend_test.py sets it.
"""

import os
import tempfile
import unittest
from collections import namedtuple

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep

import switchyard


def _tensor_type(dtype):
    """numpy dtype -> onnx.TensorProto data type (onnx 1.12 has no
    helper.np_dtype_to_tensor_dtype yet)."""
    return onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


def _bfloat16_bits(values):
    return (np.ascontiguousarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _device(onnx_device):
    """"CPU" -> "cpu:0", "CUDA:1" -> "cuda:1"."""
    text = str(onnx_device).strip()
    kind, _, index = text.partition(":")
    return f"{kind.lower()}:{index or 0}"


class SwitchyardRep(BackendRep):
    """A prepared model: ``run(inputs)`` with inputs as a list in the model's
    input order (or a dict by name, or one array) returns a namedtuple of the
    outputs, as ONNX's backend API does."""

    def __init__(self, session, skip_unimplemented=False):
        self.session = session
        self._skip = skip_unimplemented
        names = [o.name for o in session.outputs]
        valid = all(n.isidentifier() and not n.startswith("_") for n in names)
        self._outputs_type = namedtuple("Outputs", names if valid else
                                        [f"output_{i}" for i in range(len(names))],
                                        rename=True)

    def run(self, inputs, **kwargs):
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        values = inputs.values() if isinstance(inputs, dict) else inputs
        for value in values:
            # ONNX's runner gives a sequence input as a list of arrays and an
            # optional one as None or a list: Switchyard takes tensors only.
            if value is None or (isinstance(value, list) and
                                 (not value or isinstance(value[0], np.ndarray))):
                self._unsupported("sequence and optional inputs are not supported; "
                                  "Switchyard takes tensor inputs")
        try:
            outputs = self.session.run(inputs if isinstance(inputs, dict) else list(inputs))
        except switchyard.UnimplementedError as e:
            if self._skip:
                raise unittest.SkipTest(f"Switchyard: {e.message.splitlines()[0]}") from e
            raise
        # numpy has no bfloat16: Switchyard returns it as float32, ONNX's
        # numpy_helper as uint16 bit patterns (the float32's upper half).
        outputs = [_bfloat16_bits(o) if info.dtype == "bfloat16" else o
                   for o, info in zip(outputs, self.session.outputs)]
        return self._outputs_type(*outputs)

    def _unsupported(self, reason):
        if self._skip:
            raise unittest.SkipTest(f"Switchyard: {reason}")
        raise switchyard.UnimplementedError(reason)


class SwitchyardBackend(Backend):
    """``onnx.backend.base.Backend`` over ``switchyard.Session``."""

    # Raise unittest.SkipTest instead of switchyard.UnimplementedError for
    # what Switchyard does not implement (for ONNX's backend test runner).
    skip_unimplemented = False

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return True

    @classmethod
    def supports_device(cls, device):
        try:
            target = _device(device)
            kind, _, index = target.partition(":")
            return switchyard.device_count(kind) > int(index)
        except (switchyard.Error, ValueError):
            return False

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        """Loads ``model`` (a ModelProto, serialized bytes, or a path) on
        ``device``. kwargs go to switchyard.Session (options, placement)."""
        path, temporary = cls._model_file(model)
        try:
            try:
                session = switchyard.Session(path, device=_device(device), **kwargs)
            except switchyard.UnimplementedError as e:
                if cls.skip_unimplemented:
                    # The reason without the temporary file's name.
                    where = getattr(getattr(model, "graph", None), "name", "") or "model"
                    reason = e.message.splitlines()[0].replace(path, where)
                    raise unittest.SkipTest(f"Switchyard: {reason}") from e
                raise
        finally:
            if temporary:
                os.unlink(path)
        return SwitchyardRep(session, cls.skip_unimplemented)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Runs one NodeProto on ``inputs`` (arrays for node.input in order;
        "" entries are absent optional inputs). ``outputs_info``: (dtype,
        shape) per output, when known. The node runs in a model of its own at
        opset ``kwargs.get("opset_version")`` (default: ONNX's current)."""
        opset = kwargs.pop("opset_version", None)
        graph_inputs, feeds = [], []
        arrays = iter(inputs)
        for name in node.input:
            if not name:
                continue
            value = np.asarray(next(arrays))
            graph_inputs.append(helper.make_tensor_value_info(
                name, _tensor_type(value.dtype), value.shape))
            feeds.append(value)
        graph_outputs = []
        for i, name in enumerate(node.output):
            if not name:
                continue
            if outputs_info is not None and i < len(outputs_info):
                dtype, shape = outputs_info[i]
                graph_outputs.append(helper.make_tensor_value_info(
                    name, _tensor_type(dtype), shape))
            else:
                graph_outputs.append(helper.make_empty_tensor_value_info(name))
        graph = helper.make_graph([node], f"{node.op_type}_node", graph_inputs, graph_outputs)
        opsets = [helper.make_opsetid(node.domain or "", opset)] if opset else None
        model = helper.make_model(graph, producer_name="switchyard.onnx_backend",
                                  opset_imports=opsets)
        # Outputs without outputs_info get the types ONNX's shape inference gives.
        inferred = {v.name: v for v in
                    onnx.shape_inference.infer_shapes(model).graph.value_info}
        for i, output in enumerate(model.graph.output):
            if not output.type.HasField("tensor_type") and output.name in inferred:
                model.graph.output[i].CopyFrom(inferred[output.name])
        return cls.prepare(model, device, **kwargs).run(feeds)

    @staticmethod
    def _model_file(model):
        """(path, whether it is a temporary file to delete)."""
        if isinstance(model, (str, os.PathLike)):
            return os.fspath(model), False
        data = model if isinstance(model, bytes) else model.SerializeToString()
        handle, path = tempfile.mkstemp(suffix=".onnx", prefix="switchyard_")
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        return path, True


prepare = SwitchyardBackend.prepare
run_model = SwitchyardBackend.run_model
run_node = SwitchyardBackend.run_node
supports_device = SwitchyardBackend.supports_device
