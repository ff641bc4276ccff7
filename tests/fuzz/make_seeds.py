#!/usr/bin/env python3
"""Writes the hand-made seed inputs of tests/fuzz/corpus/ (run from anywhere).

The corpora also hold, from the fuzzers: min-<sha1> (a long run's corpus,
minimized to the inputs that cover its edges: `FUZZER -merge=1
-use_counters=0 OUT CORPUS`), and crash-*, timeout-*, slow-unit-* (findings,
each also a case in fuzz_regression_test.cc) and harness-* (inputs that broke
the fuzz target itself). This script only (re)writes the seeds below,
named seed_*.
"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    path = os.path.join(HERE, "corpus", target, "seed_" + name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def safetensors(tensors, metadata=None, dtype="F32", pad=True):
    header, data, offset = {}, b"", 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (shape, values) in tensors.items():
        raw = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


# struct formats of the dtypes the runtime reads (safetensors name, npy descr).
FORMATS = {"F32": "f", "F16": "e", "F64": "d", "I64": "q", "I32": "i",
           "I8": "b", "U8": "B", "BOOL": "?"}


def bfloat16(value):
    return struct.pack("<f", value)[2:]  # the high half (exact for these)


def typed_safetensors(tensors):
    """tensors: name -> (dtype, shape, values); every dtype the runtime has."""
    header, data = {}, b""
    for name, (dtype, shape, values) in sorted(tensors.items()):
        if dtype == "BF16":
            raw = b"".join(bfloat16(v) for v in values)
        else:
            raw = struct.pack("<%d%s" % (len(values), FORMATS[dtype]), *values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def npy(shape, values, descr="<f4", fortran=False, version=(1, 0), fmt="f"):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", dims)
    length_bytes = 2 if version[0] == 1 else 4
    total = 6 + 2 + length_bytes + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    length = struct.pack("<H" if length_bytes == 2 else "<I", len(header))
    return (b"\x93NUMPY" + bytes(version) + length + header.encode() +
            struct.pack("<%d%s" % (len(values), fmt), *values))


def main():
    write("safetensors", "empty", safetensors({}))
    write("safetensors", "one_tensor",
          safetensors({"w": ([2, 3], [1, 2, 3, 4, 5, 6])}))
    write("safetensors", "two_tensors_metadata",
          safetensors({"a.weight": ([2, 2], [1, -1, 0.5, 2]),
                       "a.bias": ([2], [0, 1])}, {"format": "pt"}))
    write("safetensors", "scalar_and_empty",
          safetensors({"s": ([], [3.5]), "e": ([0, 4], [])}))
    write("safetensors", "f16", safetensors({"h": ([1], [1])}, dtype="F16"))
    write("safetensors", "unpadded", safetensors({"x": ([1], [7])}, pad=False))
    write("safetensors", "truncated",
          safetensors({"w": ([2, 3], [1, 2, 3, 4, 5, 6])})[:-5])
    write("safetensors", "rank8",
          safetensors({"r": ([1] * 8, [1.0])}))
    write("safetensors", "every_dtype", typed_safetensors({
        "f32": ("F32", [2], [1.5, -2]), "f16": ("F16", [3], [1, -0.5, 65504]),
        "bf16": ("BF16", [1, 2], [1, -3]), "f64": ("F64", [2], [1e-310, 2]),
        "i64": ("I64", [], [-9007199254740993]), "i32": ("I32", [2], [-7, 9]),
        "i8": ("I8", [2], [-128, 127]), "u8": ("U8", [1], [255]),
        "bool": ("BOOL", [2], [True, False]), "empty": ("I64", [0], [])}))
    write("safetensors", "batch_norm_state", typed_safetensors({
        "bn.weight": ("F32", [2], [1, 1]), "bn.bias": ("F32", [2], [0, 0]),
        "bn.running_mean": ("F32", [2], [0.5, -0.5]),
        "bn.running_var": ("F32", [2], [1, 2]),
        "bn.num_batches_tracked": ("I64", [], [1234])}))

    write("npy", "v1_2x3", npy([2, 3], [1, 2, 3, 4, 5, 6]))
    write("npy", "v2_vector", npy([4], [1, 2, 3, 4], version=(2, 0)))
    write("npy", "v3_scalar", npy([], [9], version=(3, 0)))
    write("npy", "empty", npy([0, 5], []))
    write("npy", "fortran", npy([2, 2], [1, 2, 3, 4], fortran=True))
    write("npy", "f8", npy([1], [1, 2], descr="<f8"))
    write("npy", "python2_long",
          npy([2], [1, 2]).replace(b"(2,)", b"(2L,)"))
    write("npy", "truncated", npy([3, 3], list(range(9)))[:-7])
    write("npy", "f2", npy([3], [1, -0.5, 65504], descr="<f2", fmt="e"))
    write("npy", "i8", npy([2], [-1, 2 ** 62], descr="<i8", fmt="q"))
    write("npy", "i4", npy([2, 1], [-7, 9], descr="<i4", fmt="i"))
    write("npy", "i1", npy([2], [-128, 127], descr="|i1", fmt="b"))
    write("npy", "u1", npy([1], [255], descr="|u1", fmt="B"))
    write("npy", "b1", npy([3], [True, False, True], descr="|b1", fmt="?"))
    write("npy", "c8", npy([1], [1, 2], descr="<c8"))  # unsupported

    for i, text in enumerate([
            "cpu", "cpu:0", "cuda:1", "my_backend_2:1023", "CPU", "cuda:01",
            "cuda:-1", "cuda:", ":0", "a" * 33, "cuda:1024", "cuda:99999",
            "cuda:1:2", " cpu", "cpu\x00:0"]):
        write("device", "%02d" % i, text)

    rng = random.Random(5)
    for i in range(16):
        write("graph", "random_%02d" % i,
              bytes(rng.randrange(256) for _ in range(rng.randrange(8, 96))))

    nms_seeds()


def nms_seeds():
    """nms_fuzzer.cc's layout: batches, classes, box count, then the
    max_output, iou, score threshold and center kinds, then one byte per
    coordinate and score (< 170: a small integer or half, or for scores one
    of 8 values; 170..219: a raw float from the next 4 bytes; else special)."""
    def header(batches, classes, boxes, max_kind, iou_kind, score_kind=0,
               center_kind=0):
        return bytes([0, batches - 1, 0, classes - 1, boxes, max_kind,
                      iou_kind, score_kind, center_kind])

    # Overlapping small-integer boxes, tied scores, max = count, IoU 0.5.
    grid = bytes([0, 0, 6, 6, 2, 2, 8, 8, 0, 0, 6, 6, 10, 10, 14, 14,
                  1, 1, 7, 7, 0, 0, 0, 0])
    # Kinds: max_output 18 + i picks max_values[i] (3: the box count), iou
    # 16 + i picks iou_values[i] (2: 0.5).
    write("nms", "overlaps", header(1, 1, 6, 18 + 3, 16 + 2) + grid +
          bytes([7, 6, 6, 5, 7, 1]))
    # Two batches, three classes, a score threshold, the center format.
    rng = random.Random(12)
    body = bytes(rng.randrange(170) for _ in range(2 * 20 * 4 + 2 * 3 * 20))
    write("nms", "batches_classes", header(2, 3, 20, 18 + 2, 16 + 3,
                                           129, 130) + body)
    # NaN, infinite and raw-float coordinates and scores.
    special = bytes([220, 221, 222, 223, 224, 225, 226, 227] * 10)
    raw = bytes([170, 0, 0, 128, 63, 170, 0, 0, 0, 64] * 8)
    write("nms", "specials", header(1, 2, 12, 18 + 3, 16 + 1, 128 + 3) +
          special + raw)
    # Many boxes (the parallel path), nothing selected by default, and an
    # invalid iou_threshold.
    # 741 boxes: 41 + (188 + 2 * 256) % 960.
    write("nms", "many_boxes", bytes([0, 1, 0, 2, 240, 188, 2, 18 + 4, 16 + 3,
                                      0, 0]) +
          bytes(rng.randrange(170) for _ in range(2 * 741 * 4 + 2 * 3 * 741)))
    write("nms", "defaults", header(1, 1, 10, 0, 0) + bytes(range(60)))
    write("nms", "invalid_iou", header(1, 1, 4, 18 + 3, 245) + bytes(range(40)))
    # One batch and class, then the torchvision-style calls (last byte odd).
    write("nms", "functional", header(1, 1, 8, 18 + 3, 16 + 2) +
          bytes(rng.randrange(170) for _ in range(8 * 4 + 8)) +
          bytes([1, 0, 1, 2, 3, 0, 1, 2, 3]))


if __name__ == "__main__":
    main()
