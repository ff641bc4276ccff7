"""Errors as Python exceptions: the status code as a class and `.code`, the
full message; bad arrays converted when nothing is lost, refused otherwise,
never a crash."""

import numpy as np
import pytest

import switchyard


def test_error_classes_carry_code_and_message():
    assert issubclass(switchyard.InvalidArgumentError, switchyard.Error)
    assert issubclass(switchyard.InvalidArgumentError, ValueError)
    assert issubclass(switchyard.NotFoundError, LookupError)
    assert issubclass(switchyard.UnimplementedError, NotImplementedError)
    assert issubclass(switchyard.UnavailableError, RuntimeError)
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        switchyard.get_device_name("CPU:x")
    assert e.value.code == "INVALID_ARGUMENT"
    assert "CPU:x" in e.value.message and str(e.value).startswith("INVALID_ARGUMENT: ")


def test_missing_model_file(tmp_path):
    missing = str(tmp_path / "nothing.onnx")
    with pytest.raises(switchyard.Error) as e:
        switchyard.Session(missing)
    assert e.value.code == "NOT_FOUND"
    assert missing in e.value.message


def test_not_an_onnx_file(tmp_path):
    path = tmp_path / "garbage.onnx"
    path.write_bytes(b"\x00\x01 this is not a protobuf" * 10)
    with pytest.raises(switchyard.Error) as e:
        switchyard.Session(path)
    assert str(path) in e.value.message


def test_unknown_builtin_model():
    with pytest.raises(switchyard.Error) as e:
        switchyard.Session("vgg12")
    assert "vgg11" in e.value.message  # the message lists the known models


def test_lossy_dtype_is_refused_with_the_fix(session, resnet18):
    x = resnet18[1].astype(np.float64)
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run({"input": x})
    message = e.value.message
    assert "'input'" in message and "float64" in message and "float32" in message
    assert "astype(numpy.float32)" in message
    with pytest.raises(switchyard.InvalidArgumentError):
        session.run({"input": x.astype(np.int32)})  # int -> float can round


def test_lossless_dtype_is_converted(session, resnet18):
    x = resnet18[1]
    want, = session.run({"input": x})
    half = x.astype(np.float16)
    got, = session.run({"input": half})
    ref, = session.run({"input": half.astype(np.float32)})
    np.testing.assert_array_equal(got, ref)


def test_non_contiguous_and_foreign_byte_order_are_copied(session, resnet18):
    x = resnet18[1]
    want, = session.run({"input": x})
    strided = np.ascontiguousarray(np.swapaxes(x, 2, 3)).swapaxes(2, 3)
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(session.run({"input": strided})[0], want)
    fortran = np.asfortranarray(x)
    np.testing.assert_array_equal(session.run({"input": fortran})[0], want)
    big_endian = x.astype(">f4")
    np.testing.assert_array_equal(session.run({"input": big_endian})[0], want)
    every_other = np.repeat(x, 2, axis=0)[::2]  # a view with a step
    np.testing.assert_array_equal(session.run({"input": every_other})[0], want)


def test_wrong_rank_and_wrong_fixed_dimension(session, resnet18):
    x = resnet18[1]
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run({"input": x[0]})
    assert "rank" in e.value.message and "input" in e.value.message
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run({"input": x[:, :2]})
    assert "dimension 1 must be 3" in e.value.message


def test_unknown_missing_and_extra_inputs(session, resnet18):
    x = resnet18[1]
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run({"image": x})
    assert "no input 'image'" in e.value.message and "'input'" in e.value.message
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run({})
    assert "no value for input 'input'" in e.value.message
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run([x, x])
    assert "takes 1 input" in e.value.message
    with pytest.raises(switchyard.InvalidArgumentError):
        session.run({"input": None})
    with pytest.raises(switchyard.InvalidArgumentError):
        session.run("input")
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        session.run({"input": np.array(["a", "b"])})
    assert "strings" in e.value.message


def test_unknown_output_name(session, resnet18):
    with pytest.raises(switchyard.NotFoundError) as e:
        session.run(["logits"], {"input": resnet18[1]})
    assert "no output 'logits'" in e.value.message and "'output'" in e.value.message


def test_bad_device_and_options(resnet18):
    with pytest.raises(switchyard.InvalidArgumentError):
        switchyard.Session(resnet18[0], device="gpu#1")
    with pytest.raises(switchyard.NotFoundError):
        switchyard.Session(resnet18[0], device="tpu:0")
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        switchyard.Session(resnet18[0], options={"cpu.threads": 0})
    assert "cpu.threads" in e.value.message
    with pytest.raises(switchyard.InvalidArgumentError):
        switchyard.set_option("threads", 2)
    with pytest.raises(switchyard.InvalidArgumentError):
        switchyard.Session(resnet18[0], placement="anywhere")


def test_missing_device_says_why(session, resnet18):
    if switchyard.device_count("cuda") > 0:
        pytest.skip("this machine has a cuda device")
    reason = switchyard.unavailable_reason("cuda")
    assert reason
    with pytest.raises(switchyard.UnavailableError) as e:
        session.to("cuda:0")
    assert reason in e.value.message
    assert session.device == "cpu:0"  # nothing moved
    with pytest.raises(switchyard.UnavailableError):
        switchyard.Session(resnet18[0], device="cuda")
    # The session still runs where it was.
    assert session.run({"input": resnet18[1]})[0].shape == (2, 10)


def test_an_op_the_device_lacks_gets_the_python_fix():
    onnx = pytest.importorskip("onnx")
    if not switchyard.is_available("dnnl"):
        pytest.skip("no dnnl:0 in this build")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], "gather",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    i = np.array([3, 1], dtype=np.int64)
    strict = switchyard.Session(model, device="dnnl:0")
    with pytest.raises(switchyard.Error) as e:
        strict.run([x, i])
    assert "Fix: placement='auto'" in e.value.message, e.value.message
    assert "--placement" not in e.value.message
    auto = switchyard.Session(model, device="dnnl:0", placement="auto")
    np.testing.assert_array_equal(auto.run([x, i])[0], x[[3, 1]])
