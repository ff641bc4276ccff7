#!/usr/bin/python3
"""Minimal safetensors reader/writer for Switchyard tooling.

Written from the format description, without the `safetensors` package:

  * 8 bytes: little-endian uint64 N, the length of the JSON header;
  * N bytes: UTF-8 JSON object
        {"<name>": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]},
         ...,
         "__metadata__": {"<key>": "<string value>"}}
    padded with trailing spaces so that N is a multiple of 8;
  * the data section: tensors packed contiguously, in sorted name order,
    little-endian, C (row-major) order. data_offsets are relative to the
    start of the data section.

Dtypes: those Switchyard reads and writes, F32 F16 BF16 F64 I64 I32 I8 U8
BOOL. numpy arrays and torch tensors of the matching dtypes are written as
they are (a torchvision state_dict's `num_batches_tracked` stays I64).
numpy has no bfloat16, so BF16 is written only from torch.bfloat16 tensors
and read back as float32 (exact: bfloat16 is the high half of a float32).

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

# safetensors dtype name -> little-endian numpy dtype (BF16: raw uint16 bits).
_DTYPES = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}
_NAMES = {v.newbyteorder("="): k for k, v in _DTYPES.items() if k != "BF16"}
_TORCH_NAMES = {
    "torch.float32": "F32", "torch.float16": "F16", "torch.bfloat16": "BF16",
    "torch.float64": "F64", "torch.int64": "I64", "torch.int32": "I32",
    "torch.int8": "I8", "torch.uint8": "U8", "torch.bool": "BOOL",
}


def _is_torch(value):
    return hasattr(value, "detach")  # without importing torch here


def _dtype_name(name, value):
    """The safetensors dtype of a numpy array or torch tensor."""
    if _is_torch(value):
        dtype, known = str(value.dtype), _TORCH_NAMES
    else:
        dtype, known = np.asarray(value).dtype.newbyteorder("="), _NAMES
    if dtype not in known:
        raise TypeError("%s: dtype %s is not one of %s"
                        % (name, dtype, ", ".join(_DTYPES)))
    return known[dtype]


def _to_numpy(value, dtype_name):
    """A C-contiguous little-endian array of the tensor's elements (BF16:
    their bits as uint16)."""
    if _is_torch(value):
        value = value.detach().cpu().contiguous()
        if dtype_name == "BF16":
            import torch  # only reached with a torch tensor
            value = value.view(torch.int16)
        value = value.numpy()
    arr = np.asarray(value)
    if dtype_name == "BF16":
        return np.ascontiguousarray(arr).view(_DTYPES["BF16"])
    return np.ascontiguousarray(arr, dtype=_DTYPES[dtype_name])


def _shape_of(value):
    """The shape of a numpy array / torch tensor, without copying."""
    if _is_torch(value):
        return tuple(int(d) for d in value.shape)
    return tuple(int(d) for d in np.asarray(value).shape)


def _build_header(names, shapes, dtypes, metadata):
    header = {}
    offset = 0
    for name in names:
        shape = shapes[name]
        nbytes = int(np.prod(shape, dtype=np.int64)) * _DTYPES[dtypes[name]].itemsize
        header[name] = {
            "dtype": dtypes[name],
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
    """Writes `tensors` (name -> np.ndarray | torch.Tensor) to `path`.

    Tensors are stored in sorted name order, each in its own dtype. Each
    tensor is converted and written on its own, so peak extra memory is
    about one tensor.
    """
    if "__metadata__" in tensors:
        raise ValueError("'__metadata__' is reserved")
    names = sorted(tensors)
    shapes = {name: _shape_of(tensors[name]) for name in names}
    dtypes = {name: _dtype_name(name, tensors[name]) for name in names}
    header = _build_header(names, shapes, dtypes, metadata)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for name in names:
            arr = _to_numpy(tensors[name], dtypes[name]).reshape(-1)
            if arr.size:
                f.write(memoryview(arr).cast("B"))
    return path


def load_safetensors(path):
    """Returns (dict name -> np.ndarray in its dtype, metadata dict or {}).

    BF16 tensors come back as float32."""
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
        if info["dtype"] not in _DTYPES:
            raise ValueError("%s: unsupported dtype %s" % (name, info["dtype"]))
        dtype = _DTYPES[info["dtype"]]
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if end - begin != count * dtype.itemsize or end > len(body):
            raise ValueError("%s: bad data_offsets %r for shape %r" % (name, info["data_offsets"], shape))
        arr = np.frombuffer(body[begin:end], dtype=dtype).reshape(shape)
        if info["dtype"] == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = arr.astype(arr.dtype.newbyteorder("="), copy=True)
    return tensors, metadata
