"""The forms ops took at opsets 18 to 23 that Switchyard's existing
converters read: Split's num_outputs, Pad's axes input and wrap mode,
Resize's axes, keep_aspect_ratio_policy, antialias and half_pixel_symmetric,
ScatterElements/ScatterND max and min, AveragePool's dilations, Cast's
saturate, GridSample's renamed modes; and hostile parameters of each, which
must be refused. (Reductions: cases_reductions.py.)"""

import numpy as np
from onnx import TensorProto, helper

from case_registry import case, ints, model, onnx_type, rand, refusal, single


def _split(x, opset, n_outputs, axis=0, num_outputs=None, split=None):
    attrs = {"axis": axis}
    if num_outputs is not None:
        attrs["num_outputs"] = num_outputs
    inits = {"split": split} if split is not None else None
    return single("Split", {"x": x}, opset, attrs=attrs, n_outputs=n_outputs,
                  initializers=inits)


# --- Split-18 ----------------------------------------------------------------

@case("opset18", "split_num_outputs_even")
def _():
    return _split(rand(6, 4), 18, 3, num_outputs=3)


@case("opset18", "split_num_outputs_uneven")
def _():
    # 7 in 3 parts: ceil(7 / 3) = 3, 3, and the last 1.
    return _split(rand(7, 3), 18, 3, num_outputs=3)


@case("opset18", "split_num_outputs_uneven_negative_axis")
def _():
    return _split(rand(2, 5), 18, 2, axis=-1, num_outputs=2)


@case("opset18", "split_num_outputs_one")
def _():
    return _split(rand(4, 3), 18, 1, axis=1, num_outputs=1)


@case("opset18", "split_input_sizes")
def _():
    return _split(rand(6, 2), 18, 2, split=np.array([2, 4], np.int64))


@refusal("opset18", "split_neither_sizes_nor_num_outputs", "neither input 1 (split) nor")
def _():
    # Split-13 split equally by the output count; 18 requires one of them.
    return _split(rand(4, 6), 18, 3, axis=1)


@refusal("opset18", "split_num_outputs_zero", "attribute 'num_outputs' is 0")
def _():
    return _split(rand(4, 3), 18, 1, num_outputs=0)


@refusal("opset18", "split_num_outputs_negative", "attribute 'num_outputs' is -2")
def _():
    return _split(rand(4, 3), 18, 1, num_outputs=-2)


@refusal("opset18", "split_num_outputs_over_axis", "more parts than axis 0")
def _():
    return _split(rand(3, 2), 18, 4, num_outputs=4)


@refusal("opset18", "split_num_outputs_unfillable", "cannot fill 4 outputs")
def _():
    # ceil(5 / 4) = 2: three chunks of 2 already pass the 5 elements.
    return _split(rand(5, 2), 18, 4, num_outputs=4)


@refusal("opset18", "split_num_outputs_not_output_count", "the node has 2 outputs")
def _():
    return _split(rand(6, 2), 18, 2, num_outputs=3)


@refusal("opset18", "split_num_outputs_and_input", "both input 1 (split)")
def _():
    return _split(rand(6, 2), 18, 2, num_outputs=2, split=np.array([3, 3], np.int64))


@refusal("opset18", "split_huge_num_outputs", "attribute 'num_outputs' is 4611686018427387904")
def _():
    return _split(rand(6, 2), 18, 2, num_outputs=1 << 62)


# --- Pad-18: axes; Pad-19: wrap; Pad-21/23: types only ------------------------

def _pad(x, opset, pads, mode="constant", axes=None, value=None, axes_input=False):
    inits = {"pads": np.array(pads, np.int64)}
    names = ["x", "pads"]
    if value is not None:
        inits["value"] = np.array(value, x.dtype)
        names.append("value")
    if axes is not None:
        if value is None:
            names.append("")
        names.append("axes")
        axes = np.array(axes, np.int64)
    inputs = {"x": x}
    if axes is not None and axes_input:
        inputs["axes"] = axes
    elif axes is not None:
        inits["axes"] = axes
    out_types = {"y": onnx_type(x)}
    return single("Pad", inputs, opset, attrs={"mode": mode}, initializers=inits,
                  input_names=names, out_types=out_types)


@case("opset18", "pad_axes_input")
def _():
    return _pad(rand(3, 4, 5), 18, [1, 2], axes=[1], value=1.5)


@case("opset18", "pad_axes_negative")
def _():
    # axes [-1, 0]: pads are [last begin, first begin, last end, first end].
    return _pad(rand(3, 4, 5), 18, [2, 1, 0, 2], mode="reflect", axes=[-1, 0])


@case("opset18", "pad_axes_edge_crop")
def _():
    return _pad(rand(2, 3, 6), 18, [2, -1, 1, -2], mode="edge", axes=[1, 2])


@case("opset18", "pad_axes_empty")
def _():
    return _pad(rand(3, 4), 18, [], axes=np.zeros([0], np.int64))


@case("opset18", "pad_no_axes")
def _():
    return _pad(rand(3, 4), 18, [0, 1, 2, 0])


@refusal("opset18", "pad_axes_out_of_range", "input 3 (axes) 3 is out of range for rank 3")
def _():
    return _pad(rand(3, 4, 5), 18, [1, 1], axes=[3])


@refusal("opset18", "pad_axes_far_out_of_range", "is out of range for rank 3")
def _():
    return _pad(rand(3, 4, 5), 18, [1, 1], axes=[-(1 << 62)])


@refusal("opset18", "pad_axes_repeated", "lists axis -2 (1) twice")
def _():
    return _pad(rand(3, 4, 5), 18, [1, 1, 1, 1], axes=[1, -2])


@refusal("opset18", "pad_axes_pads_count", "1 padded axes need 2")
def _():
    return _pad(rand(3, 4, 5), 18, [1, 1, 1, 1], axes=[1])


@case("opset19", "pad_wrap")
def _():
    return _pad(rand(3, 4), 19, [1, 2, 2, 1], mode="wrap")


@case("opset19", "pad_wrap_axes")
def _():
    return _pad(rand(2, 3, 4), 19, [3, 1, 2, 4], mode="wrap", axes=[-1, 1])


@case("opset19", "pad_wrap_full_length")
def _():
    # Pads as long as the axis: a whole copy on each side.
    return _pad(rand(2, 3), 19, [2, 3, 2, 3], mode="wrap")


@case("opset19", "pad_wrap_crop")
def _():
    # Negative pads crop before the wrap.
    return _pad(rand(3, 5), 19, [0, -1, 0, 2], mode="wrap")


@case("opset19", "pad_wrap_int64")
def _():
    return _pad(ints(3, 4), 19, [1, 1, 1, 1], mode="wrap")


@case("opset19", "pad_constant_axes_19")
def _():
    return _pad(rand(3, 4), 19, [1, 1], axes=[0], value=-2.0)


@refusal("opset19", "pad_wrap_huge", "more than Switchyard allocates for one Pad")
def _():
    return _pad(rand(3, 4), 19, [0, 1 << 40, 0, 0], mode="wrap")


@refusal("opset19", "pad_wrap_crop_too_much", "remove more than the 4 elements")
def _():
    return _pad(rand(3, 4), 19, [0, -3, 0, -2], mode="wrap")


@refusal("opset18", "pad_wrap_before_19", "mode 'wrap' came with Pad-19")
def _():
    return _pad(rand(3, 4), 18, [1, 1, 1, 1], mode="wrap")


@case("opset21", "pad_reflect_21")
def _():
    return _pad(rand(2, 5), 21, [1, 2], mode="reflect", axes=[1])


@case("opset23", "pad_wrap_23")
def _():
    return _pad(rand(2, 3), 23, [1, 1, 0, 2], mode="wrap")


# --- Resize-18/19 --------------------------------------------------------------

def _resize(x, opset, scales=None, sizes=None, **attrs):
    inits, names = {}, ["x", "", ""]
    if scales is not None:
        inits["scales"] = np.array(scales, np.float32)
        names[2] = "scales"
    if sizes is not None:
        inits["sizes"] = np.array(sizes, np.int64)
        names = names[:2] + ["", "sizes"]
    return single("Resize", {"x": x}, opset, attrs=attrs, initializers=inits,
                  input_names=names)


@case("opset18", "resize_axes_scales")
def _():
    return _resize(rand(1, 2, 4, 6), 18, scales=[2.0, 0.5], mode="linear", axes=[2, 3])


@case("opset18", "resize_axes_negative_sizes")
def _():
    return _resize(rand(1, 2, 4, 6), 18, sizes=[5], mode="nearest", axes=[-2])


@case("opset18", "resize_not_larger")
def _():
    return _resize(rand(1, 1, 4, 6), 18, sizes=[8, 8], mode="linear", axes=[2, 3],
                   keep_aspect_ratio_policy="not_larger")


@case("opset18", "resize_not_smaller")
def _():
    return _resize(rand(1, 1, 4, 6), 18, sizes=[3, 3], mode="nearest", axes=[2, 3],
                   keep_aspect_ratio_policy="not_smaller")


@case("opset18", "resize_not_larger_all_axes")
def _():
    return _resize(rand(1, 1, 5, 3), 18, sizes=[1, 1, 7, 9], mode="cubic",
                   keep_aspect_ratio_policy="not_larger")


for _mode in ["linear", "cubic"]:
    for _name, _shape, _scales in [("down", (1, 2, 8, 9), [1.0, 1.0, 0.5, 0.4]),
                                   ("mixed", (1, 1, 6, 5), [1.0, 1.0, 0.6, 1.5])]:
        def _antialias(mode=_mode, shape=_shape, scales=_scales):
            return _resize(rand(*shape), 18, scales=scales, mode=mode, antialias=1)
        case("opset18", f"resize_antialias_{_mode}_{_name}")(_antialias)


@case("opset18", "resize_antialias_linear_sizes_align_corners")
def _():
    return _resize(rand(1, 1, 9, 7), 18, sizes=[1, 1, 4, 3], mode="linear", antialias=1,
                   coordinate_transformation_mode="align_corners")


@case("opset18", "resize_antialias_cubic_exclude_outside")
def _():
    return _resize(rand(1, 1, 10, 6), 18, scales=[1.0, 1.0, 0.3, 0.5], mode="cubic",
                   antialias=1, exclude_outside=1, cubic_coeff_a=-0.5)


@case("opset18", "resize_antialias_linear_axes")
def _():
    return _resize(rand(2, 7, 3), 18, scales=[0.4], mode="linear", antialias=1, axes=[1])


@case("opset18", "resize_antialias_upscale")
def _():
    return _resize(rand(1, 1, 3, 4), 18, scales=[1.0, 1.0, 2.0, 1.5], mode="linear",
                   antialias=1)


for _mode in ["linear", "cubic", "nearest"]:
    def _symmetric(mode=_mode):
        return _resize(rand(1, 2, 5, 4), 19, scales=[1.0, 1.0, 1.6, 0.75], mode=mode,
                       coordinate_transformation_mode="half_pixel_symmetric")
    case("opset19", f"resize_half_pixel_symmetric_{_mode}")(_symmetric)


@case("opset19", "resize_half_pixel_symmetric_sizes")
def _():
    return _resize(rand(1, 1, 4, 7), 19, sizes=[1, 1, 7, 3], mode="linear",
                   coordinate_transformation_mode="half_pixel_symmetric")


@refusal("opset18", "resize_sizes_negative", "must be > 0, got -4")
def _():
    return _resize(rand(1, 1, 4, 4), 18, sizes=[-4, 4], axes=[2, 3])


@refusal("opset18", "resize_sizes_huge", "more than Switchyard allocates")
def _():
    return _resize(rand(1, 1, 4, 4), 18, sizes=[1 << 40, 4], axes=[2, 3])


@refusal("opset18", "resize_sizes_huge_not_larger", "more than Switchyard allocates")
def _():
    # Each size alone passes; the common scale makes the other axis huge too.
    return _resize(rand(1, 1, 4, 4), 18, sizes=[1 << 30, 1 << 30], axes=[2, 3],
                   keep_aspect_ratio_policy="not_smaller")


@refusal("opset18", "resize_axes_repeated", "lists axis 2 twice")
def _():
    return _resize(rand(1, 1, 4, 4), 18, scales=[2.0, 2.0], axes=[2, -2])


@refusal("opset18", "resize_axes_count", "needs 2 (one per axis")
def _():
    return _resize(rand(1, 1, 4, 4), 18, scales=[2.0], axes=[2, 3])


@refusal("opset18", "resize_bad_policy", "keep_aspect_ratio_policy")
def _():
    return _resize(rand(1, 1, 4, 4), 18, sizes=[2, 2], axes=[2, 3],
                   keep_aspect_ratio_policy="fit")


@refusal("opset18", "resize_antialias_huge_matrix", "more than the 33554432 it allows")
def _():
    # 6000 x 5999 weights on the last axis.
    return _resize(rand(1, 1, 1, 6000), 18, sizes=[1, 1, 1, 5999], mode="linear",
                   antialias=1)


@case("opset18", "resize_antialias_large_shrink")
def _():
    # 1/40: each output's filter spans 80 inputs, beyond the axis at the edges.
    return _resize(rand(1, 1, 2, 120), 18, sizes=[1, 1, 2, 3], mode="cubic", antialias=1)


# --- ScatterElements-18, ScatterND-18: max and min -----------------------------

for _reduction in ["max", "min"]:
    def _scatter_elements(reduction=_reduction):
        data = rand(3, 4)
        indices = np.array([[1, 0, 2, 1], [1, 2, 0, 1]], np.int64)  # duplicates in column 0, 3
        updates = rand(2, 4)
        return single("ScatterElements", {"data": data, "updates": updates}, 18,
                      attrs={"axis": 0, "reduction": reduction},
                      initializers={"indices": indices},
                      input_names=["data", "indices", "updates"])

    def _scatter_elements_int(reduction=_reduction):
        data = ints(2, 5, low=-5, high=5)
        indices = np.array([[4, 4, 0], [-1, 1, 1]], np.int64)
        updates = ints(2, 3, low=-9, high=9)
        return single("ScatterElements", {"data": data, "updates": updates}, 18,
                      attrs={"axis": 1, "reduction": reduction},
                      initializers={"indices": indices},
                      input_names=["data", "indices", "updates"],
                      out_types={"y": TensorProto.INT64})

    def _scatter_nd(reduction=_reduction):
        data = rand(4, 3)
        indices = np.array([[1], [3], [1]], np.int64)
        updates = rand(3, 3)
        return single("ScatterND", {"data": data, "updates": updates}, 18,
                      attrs={"reduction": reduction},
                      initializers={"indices": indices},
                      input_names=["data", "indices", "updates"])

    def _scatter_nd_elements(reduction=_reduction):
        data = rand(2, 3, 2)
        indices = np.array([[0, 1, 1], [1, 2, 0], [0, 1, 1]], np.int64)
        updates = rand(3)
        return single("ScatterND", {"data": data, "updates": updates}, 18,
                      attrs={"reduction": reduction},
                      initializers={"indices": indices},
                      input_names=["data", "indices", "updates"])

    case("opset18", f"scatter_elements_{_reduction}")(_scatter_elements)
    case("opset18", f"scatter_elements_{_reduction}_int64")(_scatter_elements_int)
    case("opset18", f"scatter_nd_{_reduction}")(_scatter_nd)
    case("opset18", f"scatter_nd_{_reduction}_elements")(_scatter_nd_elements)


@refusal("opset18", "scatter_elements_bad_reduction", "reduction")
def _():
    return single("ScatterElements", {"data": rand(3), "updates": rand(1)}, 18,
                  attrs={"reduction": "maximum"},
                  initializers={"indices": np.array([1], np.int64)},
                  input_names=["data", "indices", "updates"])


@refusal("opset18", "scatter_nd_max_index_out_of_range", "out of range")
def _():
    return single("ScatterND", {"data": rand(3), "updates": rand(1)}, 18,
                  attrs={"reduction": "max"},
                  initializers={"indices": np.array([[7]], np.int64)},
                  input_names=["data", "indices", "updates"])


# --- AveragePool-19: dilations ---------------------------------------------------

def _avg_pool(x, **attrs):
    return single("AveragePool", {"x": x}, 19, attrs=attrs)


@case("opset19", "average_pool_dilations")
def _():
    return _avg_pool(rand(1, 2, 7, 7), kernel_shape=[2, 2], dilations=[2, 2])


@case("opset19", "average_pool_dilations_strides_pads")
def _():
    return _avg_pool(rand(1, 3, 8, 7), kernel_shape=[3, 2], dilations=[2, 3],
                     strides=[2, 1], pads=[1, 1, 2, 0])


@case("opset19", "average_pool_dilations_count_include_pad")
def _():
    return _avg_pool(rand(2, 2, 6, 6), kernel_shape=[2, 3], dilations=[3, 2],
                     pads=[1, 1, 1, 2], count_include_pad=1)


@case("opset19", "average_pool_dilations_ceil")
def _():
    return _avg_pool(rand(1, 2, 9, 8), kernel_shape=[2, 2], dilations=[2, 2],
                     strides=[2, 3], ceil_mode=1)


@case("opset19", "average_pool_dilations_ceil_pads_include")
def _():
    return _avg_pool(rand(1, 1, 8, 8), kernel_shape=[3, 3], dilations=[2, 2],
                     strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
                     count_include_pad=1)


@case("opset19", "average_pool_dilations_valid")
def _():
    # (SAME_UPPER with dilations: ONNX Runtime 1.30 sizes the pads as if
    # undilated, [1, 2, 5, 5] for this input where ONNX's rule gives
    # ceil(in / stride) = [1, 2, 7, 6], as Switchyard does; no case.)
    return _avg_pool(rand(1, 2, 7, 6), kernel_shape=[3, 2], dilations=[2, 2],
                     auto_pad="VALID")


@case("opset19", "average_pool_dilations_1d")
def _():
    return _avg_pool(rand(2, 3, 11), kernel_shape=[3], dilations=[3], strides=[2])


@case("opset19", "average_pool_dilations_one")
def _():
    return _avg_pool(rand(1, 2, 6, 6), kernel_shape=[3, 3], dilations=[1, 1],
                     pads=[1, 1, 1, 1])


@refusal("opset19", "average_pool_dilations_zero", "dilations must be in [1, 2^30]")
def _():
    return _avg_pool(rand(1, 1, 6, 6), kernel_shape=[2, 2], dilations=[0, 1])


@refusal("opset19", "average_pool_dilations_huge", "dilations must be in [1, 2^30]")
def _():
    return _avg_pool(rand(1, 1, 6, 6), kernel_shape=[2, 2], dilations=[1 << 40, 1])


@refusal("opset19", "average_pool_dilations_huge_pads", "elements Switchyard pads for one AveragePool")
def _():
    return _avg_pool(rand(1, 1, 6, 6), kernel_shape=[1 << 20, 1 << 20], dilations=[2, 2],
                     pads=[(1 << 20) - 1] * 4)


@refusal("opset18", "pad_axes_huge_constant", "more than Switchyard allocates for one Pad")
def _():
    return _pad(rand(3, 4), 18, [1 << 40, 0], axes=[1])


@refusal("opset19", "average_pool_dilations_too_wide", "too small for the pooling window")
def _():
    return _avg_pool(rand(1, 1, 6, 6), kernel_shape=[3, 2], dilations=[4, 1])


# --- Cast-19/CastLike-19: saturate; Cast-21/23: types only -----------------------

@case("opset19", "cast_saturate_1_int")
def _():
    return single("Cast", {"x": rand(3, 4, low=-50, high=50)}, 19,
                  attrs={"to": TensorProto.INT32, "saturate": 1},
                  out_types={"y": TensorProto.INT32})


@case("opset19", "cast_like_saturate")
def _():
    return single("CastLike", {"x": rand(2, 3), "like": np.zeros([1], np.float64)}, 19,
                  attrs={"saturate": 1}, out_types={"y": TensorProto.DOUBLE})


@case("opset21", "cast_21")
def _():
    return single("Cast", {"x": rand(2, 5, low=-9, high=9)}, 21,
                  attrs={"to": TensorProto.INT64}, out_types={"y": TensorProto.INT64})


@case("opset23", "cast_23")
def _():
    return single("Cast", {"x": ints(3, 2)}, 23, attrs={"to": TensorProto.FLOAT})


@case("opset23", "cast_like_23")
def _():
    return single("CastLike", {"x": rand(4), "like": np.zeros([2], np.float16)}, 23,
                  out_types={"y": TensorProto.FLOAT16})


def _narrow_round_trip(opset, code):
    # x -> a narrow type -> float (quantization emulated).
    nodes = [helper.make_node("Cast", ["x"], ["narrow"], to=code),
             helper.make_node("Cast", ["narrow"], ["y"], to=TensorProto.FLOAT)]
    if opset >= 19:
        nodes[0].attribute.append(helper.make_attribute("saturate", 1))
    return model(nodes, {"x": rand(3)}, ["y"], opset)


for _opset, _code, _type in [(19, 17, "FLOAT8E4M3FN"), (19, 19, "FLOAT8E5M2"),
                             (21, 22, "INT4")]:
    case(f"opset{_opset}", f"cast_to_{_type.lower()}")(
        lambda opset=_opset, code=_code: _narrow_round_trip(opset, code))

# FLOAT4E2M1 (opset 23) has no Switchyard dtype.
refusal("opset23", "cast_to_float4e2m1", "ONNX data type FLOAT4E2M1 has no Switchyard dtype")(
    lambda: _narrow_round_trip(23, 23))


@refusal("opset19", "cast_saturate_2", "attribute 'saturate' is 2")
def _():
    return single("Cast", {"x": rand(3)}, 19,
                  attrs={"to": TensorProto.FLOAT16, "saturate": 2},
                  out_types={"y": TensorProto.FLOAT16})


# --- GridSample-20: linear and cubic -------------------------------------------------

def _grid_sample(opset, mode, padding_mode="zeros", align_corners=0, x=None, grid=None):
    x = rand(1, 2, 4, 5) if x is None else x
    grid = rand(1, 3, 4, 2, low=-1.2, high=1.2) if grid is None else grid
    return single("GridSample", {"x": x, "grid": grid}, opset,
                  attrs={"mode": mode, "padding_mode": padding_mode,
                         "align_corners": align_corners})


for _mode in ["linear", "cubic", "nearest"]:
    for _padding in ["zeros", "border", "reflection"]:
        def _grid(mode=_mode, padding=_padding):
            return _grid_sample(20, mode, padding, align_corners=int(padding == "border"))
        case("opset20", f"grid_sample_{_mode}_{_padding}")(_grid)


@case("opset20", "grid_sample_default_mode")
def _():
    return single("GridSample", {"x": rand(2, 1, 3, 3),
                                 "grid": rand(2, 2, 2, 2, low=-1, high=1)}, 20)


@case("opset22", "grid_sample_22")
def _():
    return _grid_sample(22, "linear", "border")


@refusal("opset20", "grid_sample_5d", "only 4-D GridSample")
def _():
    return _grid_sample(20, "linear", x=rand(1, 1, 2, 3, 4),
                        grid=rand(1, 2, 2, 2, 3, low=-1, high=1))


@refusal("opset20", "grid_sample_unknown_mode", "unknown mode 'trilinear'")
def _():
    return _grid_sample(20, "trilinear")
