"""The other ops new at opset 18: Mish, the Bitwise ops, CenterCropPad,
Col2Im, and LpPool's new attributes (ceil_mode, dilations) with
GlobalLpPool; each attribute, and refusals for hostile sizes."""

import numpy as np
from onnx import TensorProto

from case_registry import case, ints, rand, refusal, single

# --- Mish ----------------------------------------------------------------


@case("opset18", "mish")
def _():
    return single("Mish", {"x": rand(3, 4, 5, low=-6, high=6)}, 18)


@case("opset18", "mish_large_magnitudes")
def _():
    # exp overflows float32 past 88: the composition must not give inf or NaN.
    x = np.array([-1000, -100, -30, -10, -1, 0, 1, 10, 30, 100, 1000, 3e38],
                 np.float32)
    return single("Mish", {"x": x}, 18)


@case("opset18", "mish_float64")
def _():
    return single("Mish", {"x": rand(2, 6, dtype=np.float64, low=-5, high=5)}, 18,
                  out_types={"y": TensorProto.DOUBLE})


# --- BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot -------------------------

_INT_TYPES = {
    "int64": (np.int64, TensorProto.INT64),
    "int32": (np.int32, TensorProto.INT32),
    "int8": (np.int8, TensorProto.INT8),
    "uint8": (np.uint8, TensorProto.UINT8),
}


def _ints_of(dtype, *shape):
    # Most of the type's range, so sign bits and high bits take part.
    info = np.iinfo(dtype)
    low, high = (-(1 << 62), 1 << 62) if dtype == np.int64 else (int(info.min), int(info.max))
    return ints(*shape, low=low, high=high).astype(dtype)


for _op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
    for _tname, (_np, _onnx) in _INT_TYPES.items():
        def _same(op=_op, np_type=_np, onnx_type=_onnx):
            a, b = _ints_of(np_type, 3, 4), _ints_of(np_type, 3, 4)
            return single(op, {"a": a, "b": b}, 18, out_types={"y": onnx_type})

        def _broadcast(op=_op, np_type=_np, onnx_type=_onnx):
            a, b = _ints_of(np_type, 2, 3, 4), _ints_of(np_type, 3, 1)
            return single(op, {"a": a, "b": b}, 18, out_types={"y": onnx_type})

        _name = _op[len("Bitwise"):].lower()
        case("opset18", f"bitwise_{_name}_{_tname}")(_same)
        case("opset18", f"bitwise_{_name}_{_tname}_broadcast")(_broadcast)

for _tname, (_np, _onnx) in _INT_TYPES.items():
    def _not(np_type=_np, onnx_type=_onnx):
        return single("BitwiseNot", {"x": _ints_of(np_type, 3, 5)}, 18,
                      out_types={"y": onnx_type})
    case("opset18", f"bitwise_not_{_tname}")(_not)


@case("opset18", "bitwise_and_scalar_constant")
def _():
    # A mask held as a constant, broadcast from a scalar.
    return single("BitwiseAnd", {"a": _ints_of(np.int32, 4, 6)}, 18,
                  initializers={"mask": np.array(0x0F0F, np.int32)},
                  out_types={"y": TensorProto.INT32})


@refusal("opset18", "bitwise_and_float", "integer")
def _():
    return single("BitwiseAnd", {"a": rand(3), "b": rand(3)}, 18)


# --- CenterCropPad ---------------------------------------------------------


def _crop_pad(x, shape, axes=None, shape_dtype=np.int64, opset=18):
    attrs = {"axes": axes} if axes is not None else {}
    return single("CenterCropPad", {"x": x}, opset, attrs=attrs,
                  initializers={"shape": np.array(shape, shape_dtype)})


@case("opset18", "center_crop_pad_crop")
def _():
    return _crop_pad(rand(6, 8, 3), [4, 5, 3])


@case("opset18", "center_crop_pad_pad")
def _():
    return _crop_pad(rand(3, 4, 2), [6, 7, 2])


@case("opset18", "center_crop_pad_odd_differences")
def _():
    # Crop by 3 (start rounds down) on one axis, pad by 3 (extra at the end)
    # on the other.
    return _crop_pad(rand(7, 4), [4, 7])


@case("opset18", "center_crop_pad_crop_and_pad_axes")
def _():
    return _crop_pad(rand(2, 10, 3, 5), [6, 8], axes=[3, 1])


@case("opset18", "center_crop_pad_negative_axes")
def _():
    return _crop_pad(rand(2, 5, 6), [3, 9], axes=[-1, -2])


@case("opset18", "center_crop_pad_to_zero")
def _():
    return _crop_pad(rand(4, 3), [0], axes=[0])


@case("opset18", "center_crop_pad_int64_data")
def _():
    m, feeds = _crop_pad(ints(5, 4), [2, 7])
    m.graph.output[0].type.tensor_type.elem_type = TensorProto.INT64
    return m, feeds


@refusal("opset18", "center_crop_pad_negative_size", ">= 0")
def _():
    return _crop_pad(rand(4, 4), [2, -1])


@refusal("opset18", "center_crop_pad_wrong_length", "one target size per axis")
def _():
    return _crop_pad(rand(4, 4, 4), [2, 2])


@refusal("opset18", "center_crop_pad_wrong_length_axes", "one target size per axis")
def _():
    return _crop_pad(rand(4, 4, 4), [2, 2, 2], axes=[0, 1])


@refusal("opset18", "center_crop_pad_huge_size", "2^28")
def _():
    return _crop_pad(rand(4, 4), [1 << 20, 1 << 20])


# --- Col2Im ----------------------------------------------------------------


def _col2im_blocks(image, block, dilations, pads, strides):
    count = 1
    n = len(image)
    for d in range(n):
        span = dilations[d] * (block[d] - 1) + 1
        count *= (image[d] + pads[d] + pads[n + d] - span) // strides[d] + 1
    return count


def _col2im(n, c, image, block, dilations=None, pads=None, strides=None,
            blocks=None, dtype=np.float32, onnx_type=TensorProto.FLOAT):
    k = len(image)
    attrs = {}
    if dilations is not None:
        attrs["dilations"] = dilations
    if pads is not None:
        attrs["pads"] = pads
    if strides is not None:
        attrs["strides"] = strides
    if blocks is None:
        blocks = _col2im_blocks(image, block, dilations or [1] * k, pads or [0] * 2 * k,
                                strides or [1] * k)
    x = rand(n, c * int(np.prod(block)), blocks).astype(dtype)
    return single("Col2Im", {"x": x}, 18, attrs=attrs,
                  initializers={"image_shape": np.array(image, np.int64),
                                "block_shape": np.array(block, np.int64)},
                  out_types={"y": onnx_type})


@case("opset18", "col2im")
def _():
    return _col2im(1, 1, [5, 5], [1, 5])


@case("opset18", "col2im_overlapping_blocks")
def _():
    return _col2im(2, 3, [4, 5], [2, 3])


@case("opset18", "col2im_strides")
def _():
    return _col2im(1, 2, [6, 7], [2, 2], strides=[2, 3])


@case("opset18", "col2im_pads")
def _():
    return _col2im(1, 2, [5, 5], [3, 3], pads=[1, 0, 2, 1])


@case("opset18", "col2im_dilations")
def _():
    return _col2im(2, 1, [6, 6], [2, 3], dilations=[2, 2])


@case("opset18", "col2im_all_attributes")
def _():
    return _col2im(1, 2, [7, 8], [3, 2], dilations=[2, 1], pads=[1, 2, 1, 0],
                   strides=[2, 2])


@case("opset18", "col2im_3d_image")
def _():
    return _col2im(1, 2, [3, 4, 4], [2, 2, 3])


@refusal("opset18", "col2im_block_count_mismatch", "block count")
def _():
    return _col2im(1, 1, [5, 5], [2, 2], blocks=17)


@refusal("opset18", "col2im_channels_not_multiple", "multiple")
def _():
    m, feeds = _col2im(1, 1, [4, 4], [2, 2])
    x = rand(1, 6, 9)
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 6
    return m, {"x": x}


@refusal("opset18", "col2im_zero_block", "[1, 2^30]")
def _():
    return _col2im(1, 1, [4, 4], [0, 2], blocks=4)


@refusal("opset18", "col2im_negative_image", "[1, 2^30]")
def _():
    return _col2im(1, 1, [-4, 4], [2, 2], blocks=4)


@refusal("opset18", "col2im_zero_stride", "[1, 2^30]")
def _():
    return _col2im(1, 1, [4, 4], [2, 2], strides=[0, 1], blocks=9)


@refusal("opset18", "col2im_negative_pad", "[0, 2^30]")
def _():
    return _col2im(1, 1, [4, 4], [2, 2], pads=[-1, 0, 0, 0], blocks=9)


@refusal("opset18", "col2im_huge_image", "too large")
def _():
    # One block per axis (stride as large as the image), so L stays 1 while
    # the image would hold 2^58 elements.
    big = 1 << 29
    return _col2im(1, 1, [big, big], [1, 1], strides=[big, big], blocks=1)


@refusal("opset18", "col2im_block_larger_than_image", "larger than the padded image")
def _():
    return _col2im(1, 1, [3, 3], [4, 2], blocks=2)


# --- LpPool and GlobalLpPool -----------------------------------------------


def _lp_pool(shape, kernel, opset=18, **attrs):
    return single("LpPool", {"x": rand(*shape)}, opset,
                  attrs={"kernel_shape": kernel, **attrs})


@case("opset18", "lp_pool_2d_default_p")
def _():
    return _lp_pool((1, 2, 6, 6), [3, 3])


@case("opset18", "lp_pool_2d_p1")
def _():
    return _lp_pool((2, 2, 5, 6), [2, 3], p=1)


@case("opset18", "lp_pool_2d_p3")
def _():
    return _lp_pool((1, 3, 5, 5), [2, 2], p=3)


@case("opset18", "lp_pool_2d_strides_pads")
def _():
    return _lp_pool((1, 2, 7, 6), [3, 2], strides=[2, 2], pads=[1, 0, 1, 1])


@case("opset18", "lp_pool_2d_dilations")
def _():
    return _lp_pool((1, 2, 7, 7), [2, 2], dilations=[2, 3])


@case("opset18", "lp_pool_2d_ceil_mode")
def _():
    return _lp_pool((1, 2, 6, 7), [3, 3], strides=[2, 2], ceil_mode=1)


@case("opset18", "lp_pool_2d_ceil_mode_last_window_in_pad")
def _():
    # ceil gives a window starting in the end padding, which is dropped.
    return _lp_pool((1, 1, 5, 5), [2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)


@case("opset18", "lp_pool_2d_same_upper")
def _():
    return _lp_pool((1, 2, 5, 6), [3, 2], strides=[2, 2], auto_pad="SAME_UPPER")


@case("opset18", "lp_pool_2d_same_lower")
def _():
    return _lp_pool((1, 2, 5, 6), [3, 2], strides=[2, 1], auto_pad="SAME_LOWER")


@case("opset18", "lp_pool_2d_valid")
def _():
    return _lp_pool((1, 2, 6, 5), [3, 2], strides=[2, 2], auto_pad="VALID")


@case("opset18", "lp_pool_1d")
def _():
    return _lp_pool((2, 3, 9), [3], strides=[2], pads=[1, 1])


@case("opset18", "lp_pool_3d")
def _():
    return _lp_pool((1, 2, 4, 5, 5), [2, 3, 2], strides=[1, 2, 2], p=1)


@refusal("opset18", "lp_pool_zero_p", "p in [1, 1024]")
def _():
    return _lp_pool((1, 1, 4, 4), [2, 2], p=0)


@refusal("opset18", "lp_pool_kernel_larger_than_input", "larger than the padded input")
def _():
    return _lp_pool((1, 1, 4, 4), [5, 2])


@refusal("opset18", "lp_pool_huge_pads", "[0, 2^30]")
def _():
    return _lp_pool((1, 1, 4, 4), [2, 2], pads=[1 << 40, 0, 0, 0])


@case("opset18", "global_lp_pool")
def _():
    return single("GlobalLpPool", {"x": rand(2, 3, 4, 5)}, 18)


@case("opset18", "global_lp_pool_p1_3d")
def _():
    return single("GlobalLpPool", {"x": rand(1, 2, 3, 4, 2)}, 18, attrs={"p": 1})


@case("opset18", "global_lp_pool_p3_1d")
def _():
    return single("GlobalLpPool", {"x": rand(2, 2, 7)}, 18, attrs={"p": 3})


# --- float16 (ONNX Runtime has no float64 LpPool or Col2Im) -----------------


@case("float16", "mish_float16")
def _():
    return single("Mish", {"x": rand(3, 5, dtype=np.float16, low=-5, high=5)}, 18,
                  out_types={"y": TensorProto.FLOAT16})


@case("float16", "lp_pool_float16")
def _():
    x = rand(1, 2, 5, 5, dtype=np.float16)
    return single("LpPool", {"x": x}, 18, attrs={"kernel_shape": [2, 2]},
                  out_types={"y": TensorProto.FLOAT16})


@case("float16", "col2im_float16")
def _():
    return _col2im(1, 2, [4, 4], [2, 2], dtype=np.float16, onnx_type=TensorProto.FLOAT16)
