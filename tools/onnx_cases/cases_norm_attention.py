"""The normalization and attention ops of opsets 18-23: GroupNormalization
(18: per-group scale and bias; 21: per-channel, stash_type), Gelu at 20,
AffineGrid (20), RMSNormalization, RotaryEmbedding and Attention (23), a few in
float16, with refusals for hostile head counts, groups, shapes and sizes."""

import numpy as np
from onnx import TensorProto, helper

from case_registry import case, model, rand, refusal, single

# --- GroupNormalization -------------------------------------------------


def _group_norm(opset, x_shape, groups, param_len, attrs=None):
    x = rand(*x_shape)
    inits = {"scale": rand(param_len), "bias": rand(param_len)}
    a = {"num_groups": groups}
    a.update(attrs or {})
    return single("GroupNormalization", {"x": x}, opset, attrs=a,
                  initializers=inits)


@case("opset18", "group_norm_v18")
def _():
    return _group_norm(18, (2, 4, 3, 3), 2, 2)


@case("opset18", "group_norm_v18_rank3_epsilon")
def _():
    return _group_norm(18, (2, 6, 5), 3, 3, {"epsilon": 1e-2})


@case("opset18", "group_norm_v18_scale_as_input")
def _():
    # Scale and bias computed at run time (graph inputs), not constants.
    x, scale, bias = rand(1, 6, 2, 2), rand(3), rand(3)
    return single("GroupNormalization", {"x": x, "scale": scale, "bias": bias},
                  18, attrs={"num_groups": 3})


@case("opset21", "group_norm_v21")
def _():
    return _group_norm(21, (2, 4, 2, 3), 2, 4)


@case("opset21", "group_norm_v21_rank5")
def _():
    return _group_norm(21, (1, 6, 2, 2, 2), 3, 6, {"epsilon": 1e-3})


@case("opset21", "group_norm_v21_rank3_one_group")
def _():
    return _group_norm(21, (2, 4, 5), 1, 4)


@case("opset21", "group_norm_v21_groups_equal_channels")
def _():
    return _group_norm(21, (2, 3, 4, 2), 3, 3, {"stash_type": 1})


@refusal("opset21", "group_norm_zero_groups", "num_groups")
def _():
    return _group_norm(21, (2, 4, 3), 0, 4)


@refusal("opset21", "group_norm_groups_not_dividing", "divide")
def _():
    return _group_norm(21, (2, 4, 3), 3, 4)


@refusal("opset18", "group_norm_v18_channel_scale", "version 18")
def _():
    return _group_norm(18, (2, 4, 3), 2, 4)


@refusal("opset21", "group_norm_v21_group_scale", "version 21")
def _():
    return _group_norm(21, (2, 4, 3), 2, 2)


@refusal("opset21", "group_norm_rank2", "rank")
def _():
    return _group_norm(21, (2, 4), 2, 4)


# --- Gelu at opset 20 ---------------------------------------------------

for _approx in ["none", "tanh"]:
    def _gelu(approx=_approx):
        return single("Gelu", {"x": rand(3, 7, low=-4, high=4)}, 20,
                      attrs={"approximate": approx})
    case("opset20", f"gelu_opset20_{_approx}")(_gelu)


@case("opset20", "gelu_opset20_default")
def _():
    return single("Gelu", {"x": rand(2, 5, low=-4, high=4)}, 20)


# --- AffineGrid ---------------------------------------------------------


def _affine_grid(theta_shape, size, align=None, size_as_input=False):
    theta = rand(*theta_shape, low=-1, high=1)
    attrs = {} if align is None else {"align_corners": align}
    size = np.array(size, np.int64)
    if size_as_input:
        return single("AffineGrid", {"theta": theta, "size": size}, 20,
                      attrs=attrs)
    return single("AffineGrid", {"theta": theta}, 20, attrs=attrs,
                  initializers={"size": size})


for _align in [0, 1]:
    case("opset20", f"affine_grid_2d_align{_align}")(
        lambda a=_align: _affine_grid((2, 2, 3), [2, 3, 4, 5], a))
    case("opset20", f"affine_grid_3d_align{_align}")(
        lambda a=_align: _affine_grid((2, 3, 4), [2, 1, 3, 2, 4], a))
    case("opset20", f"affine_grid_2d_size_one_align{_align}")(
        lambda a=_align: _affine_grid((1, 2, 3), [1, 1, 1, 3], a))


@case("opset20", "affine_grid_2d_default_align")
def _():
    return _affine_grid((1, 2, 3), [1, 2, 3, 3])


@refusal("opset20", "affine_grid_negative_size", "size")
def _():
    return _affine_grid((1, 2, 3), [1, 1, -3, 4])


@refusal("opset20", "affine_grid_huge_size", "size")
def _():
    return _affine_grid((1, 2, 3), [1, 1, 1 << 31, 1 << 31])


@refusal("opset20", "affine_grid_zero_size", "size")
def _():
    return _affine_grid((1, 2, 3), [1, 1, 0, 4])


@refusal("opset20", "affine_grid_batch_mismatch", "theta")
def _():
    return _affine_grid((2, 2, 3), [3, 1, 2, 4])


@refusal("opset20", "affine_grid_size_length", "size")
def _():
    return _affine_grid((2, 2, 3), [2, 1, 2, 4, 4])


@case("opset20", "affine_grid_size_as_input")
def _():
    # Read from the data: a staged run asks for it before converting.
    return _affine_grid((1, 2, 3), [1, 1, 2, 4], 1, size_as_input=True)


@refusal("opset20", "affine_grid_negative_size_as_input", "size")
def _():
    return _affine_grid((1, 2, 3), [1, 1, 2, -4], size_as_input=True)


# --- RMSNormalization ---------------------------------------------------


def _rms(x_shape, scale_shape, attrs=None):
    return single("RMSNormalization", {"x": rand(*x_shape)}, 23,
                  attrs=attrs or {}, initializers={"scale": rand(*scale_shape)})


@case("opset23", "rms_norm_last_axis")
def _():
    return _rms((2, 3, 4), (4,))


@case("opset23", "rms_norm_axis1")
def _():
    return _rms((2, 3, 4), (3, 4), {"axis": 1, "epsilon": 1e-2})


@case("opset23", "rms_norm_negative_axis_broadcast_scale")
def _():
    return _rms((2, 3, 4), (1, 4), {"axis": -2})


@case("opset23", "rms_norm_scalar_scale_stash")
def _():
    return _rms((3, 5), (1,), {"stash_type": 1})


@case("opset23", "rms_norm_axis0_rank4")
def _():
    return _rms((2, 2, 3, 2), (2, 2, 3, 2), {"axis": 0})


@refusal("opset23", "rms_norm_bad_scale", "scale")
def _():
    return _rms((2, 3, 4), (3,))


@refusal("opset23", "rms_norm_bad_axis", "axis")
def _():
    return _rms((2, 3, 4), (4,), {"axis": 3})


# --- RotaryEmbedding ----------------------------------------------------


def _rotary(x_shape, cache_rows, half, attrs=None, ids=None, ids_as_input=False,
            no_ids=False):
    x = rand(*x_shape)
    inputs = {"x": x}
    inits = {}
    if no_ids:
        b = x_shape[0]
        s = x_shape[1] if len(x_shape) == 3 else x_shape[2]
        inputs["cos"] = rand(b, s, half)
        inputs["sin"] = rand(b, s, half)
        names = ["x", "cos", "sin"]
    else:
        inits["cos"] = rand(cache_rows, half)
        inits["sin"] = rand(cache_rows, half)
        if ids is None:
            b = x_shape[0]
            s = x_shape[1] if len(x_shape) == 3 else x_shape[2]
            ids = np.random.default_rng(1).integers(0, cache_rows, (b, s))
        ids = np.array(ids, np.int64)
        if ids_as_input:
            inputs["ids"] = ids
        else:
            inits["ids"] = ids
        names = ["x", "cos", "sin", "ids"]
    return single("RotaryEmbedding", inputs, 23, attrs=attrs or {},
                  initializers=inits, input_names=names)


for _il in [0, 1]:
    case("opset23", f"rotary_4d_interleaved{_il}")(
        lambda il=_il: _rotary((2, 2, 3, 8), 10, 4, {"interleaved": il}))
    case("opset23", f"rotary_3d_interleaved{_il}")(
        lambda il=_il: _rotary((2, 3, 16), 10, 4,
                               {"interleaved": il, "num_heads": 2}))
    case("opset23", f"rotary_4d_partial_interleaved{_il}")(
        lambda il=_il: _rotary((1, 2, 4, 8), 6, 2,
                               {"interleaved": il, "rotary_embedding_dim": 4}))
    case("opset23", f"rotary_3d_partial_interleaved{_il}")(
        lambda il=_il: _rotary((2, 2, 12), 5, 2,
                               {"interleaved": il, "rotary_embedding_dim": 4,
                                "num_heads": 2}))
    case("opset23", f"rotary_4d_no_position_ids_interleaved{_il}")(
        lambda il=_il: _rotary((2, 2, 3, 4), 0, 2, {"interleaved": il},
                               no_ids=True))
    case("opset23", f"rotary_3d_no_position_ids_interleaved{_il}")(
        lambda il=_il: _rotary((2, 3, 8), 0, 2,
                               {"interleaved": il, "num_heads": 2}, no_ids=True))


@case("opset23", "rotary_position_ids_as_input")
def _():
    return _rotary((2, 2, 3, 8), 10, 4, ids=[[0, 1, 2], [9, 3, 4]],
                   ids_as_input=True)


@refusal("opset23", "rotary_num_heads_not_dividing", "num_heads")
def _():
    return _rotary((2, 3, 16), 10, 4, {"num_heads": 3})


@refusal("opset23", "rotary_3d_without_num_heads", "num_heads")
def _():
    return _rotary((2, 3, 16), 10, 4)


@refusal("opset23", "rotary_odd_rotary_dim", "rotary_embedding_dim")
def _():
    return _rotary((1, 2, 4, 8), 6, 2, {"rotary_embedding_dim": 5})


@refusal("opset23", "rotary_rotary_dim_too_big", "rotary_embedding_dim")
def _():
    return _rotary((1, 2, 4, 8), 6, 8, {"rotary_embedding_dim": 16})


@refusal("opset23", "rotary_cache_width", "cos_cache")
def _():
    return _rotary((2, 2, 3, 8), 10, 3)


@refusal("opset23", "rotary_position_id_out_of_range", "position_ids")
def _():
    return _rotary((2, 2, 3, 8), 10, 4, ids=[[0, 1, 2], [3, 10, 4]])


@refusal("opset23", "rotary_position_id_negative", "position_ids")
def _():
    return _rotary((2, 2, 3, 8), 10, 4, ids=[[0, 1, 2], [3, -1, 4]])


@refusal("opset23", "rotary_position_id_out_of_range_at_run_time", "index")
def _():
    return _rotary((2, 2, 3, 8), 10, 4, ids=[[0, 1, 2], [3, 10, 4]],
                   ids_as_input=True)


@refusal("opset23", "rotary_position_id_negative_at_run_time", "index")
def _():
    return _rotary((2, 2, 3, 8), 10, 4, ids=[[0, -2, 2], [3, 1, 4]],
                   ids_as_input=True)


# --- Attention ----------------------------------------------------------


def _attention(q, k, v, attrs=None, mask=None, past=None, n_outputs=1,
               out_types=None):
    inputs = {"q": q, "k": k, "v": v}
    names = ["q", "k", "v"]
    if mask is not None:
        inputs["mask"] = mask
        names.append("mask")
    elif past is not None:
        names.append("")
    if past is not None:
        inputs["past_key"], inputs["past_value"] = past
        names += ["past_key", "past_value"]
    return single("Attention", inputs, 23, attrs=attrs or {},
                  n_outputs=n_outputs, input_names=names, out_types=out_types)


@case("opset23", "attention_4d")
def _():
    return _attention(rand(2, 2, 3, 4), rand(2, 2, 5, 4), rand(2, 2, 5, 4))


@case("opset23", "attention_4d_v_head_size")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 6))


@case("opset23", "attention_3d")
def _():
    return _attention(rand(2, 3, 8), rand(2, 5, 8), rand(2, 5, 8),
                      {"q_num_heads": 2, "kv_num_heads": 2})


@case("opset23", "attention_3d_gqa_v_head_size")
def _():
    return _attention(rand(1, 3, 16), rand(1, 4, 8), rand(1, 4, 6),
                      {"q_num_heads": 4, "kv_num_heads": 2})


@case("opset23", "attention_4d_gqa")
def _():
    return _attention(rand(2, 4, 3, 4), rand(2, 2, 3, 4), rand(2, 2, 3, 4))


@case("opset23", "attention_4d_mqa")
def _():
    return _attention(rand(1, 3, 2, 4), rand(1, 1, 4, 4), rand(1, 1, 4, 4))


@case("opset23", "attention_scale")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4),
                      {"scale": 0.3})


@case("opset23", "attention_softcap")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 4, 4), rand(1, 2, 4, 4),
                      {"softcap": 2.0, "scale": 1.0})


@case("opset23", "attention_bool_mask_2d")
def _():
    mask = np.array([[1, 0, 1, 1, 0], [1, 1, 0, 1, 1], [0, 1, 1, 1, 1]], bool)
    return _attention(rand(2, 2, 3, 4), rand(2, 2, 5, 4), rand(2, 2, 5, 4),
                      mask=mask)


@case("opset23", "attention_bool_mask_4d")
def _():
    mask = rand(2, 1, 3, 4) > -1.0
    mask[..., 0] = True  # no row fully masked
    return _attention(rand(2, 2, 3, 4), rand(2, 2, 4, 4), rand(2, 2, 4, 4),
                      mask=mask)


@case("opset23", "attention_float_mask")
def _():
    return _attention(rand(2, 2, 3, 4), rand(2, 2, 4, 4), rand(2, 2, 4, 4),
                      mask=rand(2, 1, 3, 4))


@case("opset23", "attention_float_mask_3d_inputs")
def _():
    return _attention(rand(1, 3, 8), rand(1, 4, 8), rand(1, 4, 8),
                      {"q_num_heads": 2, "kv_num_heads": 2},
                      mask=rand(3, 4))


@case("opset23", "attention_causal")
def _():
    return _attention(rand(2, 2, 4, 4), rand(2, 2, 4, 4), rand(2, 2, 4, 4),
                      {"is_causal": 1})


@case("opset23", "attention_causal_with_mask")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4),
                      {"is_causal": 1}, mask=rand(1, 2, 3, 3))


@case("opset23", "attention_past_present")
def _():
    past = (rand(2, 2, 3, 4), rand(2, 2, 3, 4))
    return _attention(rand(2, 2, 2, 4), rand(2, 2, 2, 4), rand(2, 2, 2, 4),
                      past=past, n_outputs=3)


@case("opset23", "attention_past_present_3d_gqa_mask")
def _():
    past = (rand(1, 1, 2, 4), rand(1, 1, 2, 4))
    return _attention(rand(1, 2, 8), rand(1, 2, 4), rand(1, 2, 4),
                      {"q_num_heads": 2, "kv_num_heads": 1},
                      mask=rand(2, 4), past=past, n_outputs=3)


@case("opset23", "attention_past_causal")
def _():
    past = (rand(1, 2, 3, 4), rand(1, 2, 3, 4))
    return _attention(rand(1, 2, 2, 4), rand(1, 2, 2, 4), rand(1, 2, 2, 4),
                      {"is_causal": 1}, past=past, n_outputs=3)


for _mode in [0, 1, 2, 3]:
    case("opset23", f"attention_qk_output_mode{_mode}")(
        lambda m=_mode: _attention(
            rand(1, 2, 3, 4), rand(1, 2, 4, 4), rand(1, 2, 4, 4),
            {"qk_matmul_output_mode": m, "softcap": 3.0},
            mask=rand(1, 1, 3, 5), past=(rand(1, 2, 1, 4), rand(1, 2, 1, 4)),
            n_outputs=4))


@case("opset23", "attention_softmax_precision")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4),
                      {"softmax_precision": TensorProto.FLOAT})


@refusal("opset23", "attention_q_heads_not_dividing", "q_num_heads")
def _():
    return _attention(rand(1, 3, 8), rand(1, 4, 8), rand(1, 4, 8),
                      {"q_num_heads": 3, "kv_num_heads": 2})


@refusal("opset23", "attention_kv_heads_not_dividing", "kv_num_heads")
def _():
    return _attention(rand(1, 3, 8), rand(1, 4, 9), rand(1, 4, 9),
                      {"q_num_heads": 2, "kv_num_heads": 2})


@refusal("opset23", "attention_gqa_not_multiple", "kv_num_heads")
def _():
    return _attention(rand(1, 3, 2, 4), rand(1, 2, 2, 4), rand(1, 2, 2, 4))


@refusal("opset23", "attention_zero_heads", "q_num_heads")
def _():
    return _attention(rand(1, 3, 8), rand(1, 4, 8), rand(1, 4, 8),
                      {"q_num_heads": 0, "kv_num_heads": 2})


@refusal("opset23", "attention_3d_without_heads", "q_num_heads")
def _():
    return _attention(rand(1, 3, 8), rand(1, 4, 8), rand(1, 4, 8))


@refusal("opset23", "attention_mask_shape", "attn_mask")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 4, 4), rand(1, 2, 4, 4),
                      mask=rand(3, 5))


@refusal("opset23", "attention_head_size_mismatch", "head_size")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 4, 5), rand(1, 2, 4, 4))


@refusal("opset23", "attention_past_key_alone", "past_value")
def _():
    q, k, v = rand(1, 2, 2, 4), rand(1, 2, 2, 4), rand(1, 2, 2, 4)
    node = helper.make_node("Attention", ["q", "k", "v", "", "past_key"],
                            ["y"])
    return model([node], {"q": q, "k": k, "v": v, "past_key": rand(1, 2, 1, 4)},
                 ["y"], 23)


@refusal("opset23", "attention_bad_qk_mode", "qk_matmul_output_mode")
def _():
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 4, 4), rand(1, 2, 4, 4),
                      {"qk_matmul_output_mode": 7}, n_outputs=4,
                      past=(rand(1, 2, 1, 4), rand(1, 2, 1, 4)))


@case("opset23", "attention_bool_mask_fully_masked_row")
def _():
    # ONNX's errata: a row with no key allowed is zeros, not NaN.
    mask = np.array([[1, 0, 1, 1], [0, 0, 0, 0], [0, 1, 1, 1]], bool)
    return _attention(rand(1, 2, 3, 4), rand(1, 2, 4, 4), rand(1, 2, 4, 4),
                      mask=mask)


# --- float16: stage one in stash_type (float) ---------------------------


@case("float16", "group_norm_v21_float16")
def _():
    x = rand(2, 4, 3, dtype=np.float16)
    return single("GroupNormalization", {"x": x}, 21, attrs={"num_groups": 2},
                  initializers={"scale": rand(4, dtype=np.float16),
                                "bias": rand(4, dtype=np.float16)},
                  out_types={"y": TensorProto.FLOAT16})


@case("float16", "rms_norm_float16")
def _():
    return single("RMSNormalization", {"x": rand(2, 3, 4, dtype=np.float16)}, 23,
                  initializers={"scale": rand(4, dtype=np.float16)},
                  out_types={"y": TensorProto.FLOAT16})


@case("float16", "rotary_float16")
def _():
    return single("RotaryEmbedding", {"x": rand(1, 2, 3, 4, dtype=np.float16)}, 23,
                  initializers={"cos": rand(5, 2, dtype=np.float16),
                                "sin": rand(5, 2, dtype=np.float16),
                                "ids": np.array([[0, 4, 2]], np.int64)},
                  out_types={"y": TensorProto.FLOAT16})


@case("float16", "attention_float16")
def _():
    q, k, v = (rand(1, 2, 3, 4, dtype=np.float16) for _ in range(3))
    return single("Attention", {"q": q, "k": k, "v": v}, 23,
                  attrs={"is_causal": 1}, out_types={"y": TensorProto.FLOAT16})
