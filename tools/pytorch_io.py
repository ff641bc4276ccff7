#!/usr/bin/python3
"""Minimal safetensors reader/writer (float32 only) for Switchyard tooling.

Written from the format description, without the `safetensors` package:

  * 8 bytes: little-endian uint64 N, the length of the JSON header;
  * N bytes: UTF-8 JSON object
        {"<name>": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]},
         ...,
         "__metadata__": {"<key>": "<string value>"}}
    padded with trailing spaces so that N is a multiple of 8;
  * the data section: tensors packed contiguously, in sorted name order,
    float32 little-endian, C (row-major) order. data_offsets are relative
    to the start of the data section.

Writing streams one tensor at a time to the file, so a ~530 MB VGG-11
checkpoint never has to exist as one bytes object in memory.

Usage:
    sys.path.insert(0, "tools"); from pytorch_io import save_safetensors, load_safetensors
    save_safetensors("x.safetensors", {"w": np_array_or_torch_tensor}, {"k": "v"})
    tensors, metadata = load_safetensors("x.safetensors")
"""

import json
import struct

import numpy as np

_F32_LE = np.dtype("<f4")


def _to_numpy_f32(value):
    """Converts a numpy array or torch tensor to a C-contiguous <f4 array."""
    if hasattr(value, "detach"):  # torch.Tensor, without importing torch here
        value = value.detach().cpu().contiguous().numpy()
    arr = np.asarray(value)
    if arr.dtype != np.float32:
        raise TypeError("only float32 tensors are supported, got %s" % arr.dtype)
    return np.ascontiguousarray(arr, dtype=_F32_LE)


def _shape_of(name, value):
    """Returns the shape of a float32 numpy array / torch tensor, without copying."""
    if hasattr(value, "detach"):  # torch.Tensor
        if str(value.dtype) != "torch.float32":
            raise TypeError("%s: only float32 tensors are supported, got %s" % (name, value.dtype))
        return tuple(int(d) for d in value.shape)
    arr = np.asarray(value)
    if arr.dtype != np.float32:
        raise TypeError("%s: only float32 tensors are supported, got %s" % (name, arr.dtype))
    return tuple(int(d) for d in arr.shape)


def _build_header(names, shapes, metadata):
    header = {}
    offset = 0
    for name in names:
        shape = shapes[name]
        nbytes = int(np.prod(shape, dtype=np.int64)) * 4
        header[name] = {
            "dtype": "F32",
            "shape": list(shape),
            "data_offsets": [offset, offset + nbytes],
        }
        offset += nbytes
    if metadata:
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("metadata keys and values must be strings: %r=%r" % (k, v))
        header["__metadata__"] = dict(metadata)
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * ((8 - len(raw) % 8) % 8)
    return raw


def save_safetensors(path, tensors, metadata=None):
    """Writes `tensors` (name -> np.ndarray | torch.Tensor, float32) to `path`.

    Tensors are stored in sorted name order. Each tensor is converted and
    written on its own, so peak extra memory is about one tensor.
    """
    if "__metadata__" in tensors:
        raise ValueError("'__metadata__' is reserved")
    names = sorted(tensors)
    shapes = {name: _shape_of(name, tensors[name]) for name in names}
    header = _build_header(names, shapes, metadata)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for name in names:
            arr = _to_numpy_f32(tensors[name]).reshape(-1)
            if arr.size:
                f.write(memoryview(arr).cast("B"))
    return path


def load_safetensors(path):
    """Returns (dict name -> np.ndarray float32, metadata dict or {})."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("%s: file too short" % path)
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError("%s: header length %d exceeds file size" % (path, n))
    header = json.loads(data[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {}) or {}
    body = memoryview(data)[8 + n:]
    tensors = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError("%s: unsupported dtype %s" % (name, info["dtype"]))
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if end - begin != count * 4 or end > len(body):
            raise ValueError("%s: bad data_offsets %r for shape %r" % (name, info["data_offsets"], shape))
        arr = np.frombuffer(body[begin:end], dtype=_F32_LE).reshape(shape)
        tensors[name] = arr.astype(np.float32, copy=True)
    return tensors, metadata
