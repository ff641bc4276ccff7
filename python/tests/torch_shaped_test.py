"""Python as PyTorch and ONNX Runtime users write it: torch tensors as
feeds in every form, models as paths, bytes or an onnx.ModelProto, devices
as strings, switchyard.Device or torch.device, __version__; the same calls
with torch absent."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import switchyard
from conftest import ROOT, relative_diff

torch = pytest.importorskip("torch")


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+(-\w+)?", switchyard.__version__)


def test_torch_tensor_in_every_feed_form(session, resnet18):
    _, x, want = resnet18
    t = torch.from_numpy(x)
    for got in (session.run(t)[0],
                session.run([t])[0],
                session.run((t,))[0],
                session.run({"input": t})[0],
                session.run(None, {"input": t})[0],
                session(t)[0]):
        assert relative_diff(got, want) <= 1e-4


def test_torch_tensor_that_needs_grad_strided_or_bfloat16(session, resnet18):
    _, x, want = resnet18
    graded = torch.from_numpy(x.copy()).requires_grad_()
    assert relative_diff(session.run(graded)[0], want) <= 1e-4
    # A transposed view (not contiguous) holds the same values.
    strided = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
    assert not strided.is_contiguous()
    np.testing.assert_array_equal(session.run(strided)[0], session.run(x)[0])
    # bfloat16 feeds a float32 input with its exact values.
    rounded = torch.from_numpy(x).to(torch.bfloat16)
    np.testing.assert_array_equal(session.run(rounded)[0], session.run(rounded.float())[0])


class FakeGpuArray:
    """GPU memory as torch and CuPy describe it (__cuda_array_interface__),
    at an address nothing may read: the checks before any device touches it."""

    def __init__(self, host, typestr=None, strides=None, shape=None):
        self.host = host
        self.__cuda_array_interface__ = {
            "shape": tuple(host.shape) if shape is None else shape,
            "typestr": typestr or host.dtype.str,
            "data": (0xdead0000, False),
            "strides": strides,
            "version": 3,
        }

    def cpu(self):
        return self.host


no_gpu = pytest.mark.skipif(switchyard.device_count("cuda") > 0,
                            reason="the fake address would reach a real GPU")


@no_gpu
def test_gpu_memory_without_switchyards_gpu_says_so_and_the_fix(session, resnet18):
    _, x, _ = resnet18
    with pytest.raises(switchyard.FailedPreconditionError,
                       match=r"input 'input' is on cuda:0, which Switchyard cannot use .*x\.cpu\(\)"):
        session.run(FakeGpuArray(x))


def test_gpu_memory_of_another_dtype_is_converted_on_the_host(session, resnet18):
    _, x, _ = resnet18
    half = x.astype(np.float16)
    np.testing.assert_array_equal(session.run(FakeGpuArray(half))[0],
                                  session.run(half.astype(np.float32))[0])
    with pytest.raises(switchyard.InvalidArgumentError, match="float64"):
        session.run(FakeGpuArray(x.astype(np.float64)))


def test_strided_or_negative_gpu_memory_is_refused_before_any_device(session, resnet18):
    _, x, _ = resnet18
    column_major = tuple(4 * int(np.prod(x.shape[:i])) for i in range(4))
    with pytest.raises(switchyard.InvalidArgumentError, match=r"x\.contiguous\(\)"):
        session.run(FakeGpuArray(x, strides=column_major))
    with pytest.raises(switchyard.InvalidArgumentError, match="negative dimension"):
        session.run(FakeGpuArray(x, shape=(2, -3, 64, 64)))


@pytest.mark.skipif(not torch.cuda.is_available() or switchyard.device_count("cuda") == 0,
                    reason="needs a GPU that torch and Switchyard both see")
def test_torch_cuda_tensor_runs_where_it_is(resnet18):
    path, x, want = resnet18
    gpu = switchyard.Session(path, device="cuda:0")
    on_gpu = torch.from_numpy(x).cuda()
    assert relative_diff(gpu.run(on_gpu)[0], want) <= 1e-3
    assert relative_diff(switchyard.Session(path, device="cpu").run(on_gpu)[0], want) <= 1e-4


def test_nested_list_is_the_only_inputs_value(session, resnet18):
    _, x, _ = resnet18
    np.testing.assert_allclose(session.run(x.tolist())[0], session.run(x)[0], rtol=1e-6)


def test_outputs_become_torch_tensors_without_a_copy(session, resnet18):
    _, x, _ = resnet18
    y, = session.run(torch.from_numpy(x))
    t = torch.from_numpy(y)
    assert t.data_ptr() == y.ctypes.data


def test_model_from_path_bytes_or_model_proto(resnet18):
    onnx = pytest.importorskip("onnx")
    path, x, want = resnet18
    data = pathlib.Path(path).read_bytes()
    for model in (pathlib.Path(path), data, bytearray(data), memoryview(data), onnx.load(path)):
        s = switchyard.Session(model, device="cpu")
        assert relative_diff(s.run(x)[0], want) <= 1e-4
    assert "bytes" in switchyard.Session(data, device="cpu").model


def test_bad_model_bytes_raise_with_their_message(capfd):
    for bad in (b"\xff\xfe\x00 not a model" * 3, b""):
        with pytest.raises(switchyard.InvalidArgumentError) as e:
            switchyard.Session(bad, device="cpu")
        assert "not a valid ONNX model" in e.value.message or "no bytes" in e.value.message
    captured = capfd.readouterr()
    assert "Exception ignored" not in captured.err and "Traceback" not in captured.err
    with pytest.raises(TypeError, match="onnx.ModelProto"):
        switchyard.Session(12345)


def test_non_utf8_bytes_in_a_message_do_not_break_the_error(tmp_path, capfd):
    path = os.path.join(os.fsencode(tmp_path), b"caf\xe9.onnx")
    with open(path, "wb") as f:
        f.write(b"not a protobuf \xff" * 4)
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        switchyard.Session(os.fsdecode(path), device="cpu")
    assert "not a valid ONNX model" in e.value.message
    assert "Exception ignored" not in capfd.readouterr().err


def test_devices_as_strings_switchyard_device_or_torch_device(resnet18):
    path, x, _ = resnet18
    want = switchyard.Session(path, device="cpu:0").run(x)[0]
    for device in ("cpu", switchyard.Device("cpu"), switchyard.Device("cpu", 0),
                   switchyard.Device("cpu:0"), torch.device("cpu"), torch.device("cpu", 0)):
        s = switchyard.Session(path, device=device)
        assert s.device == "cpu:0"
        np.testing.assert_array_equal(s.run(x)[0], want)
    s = switchyard.Session(path, device="cpu")
    assert s.to(torch.device("cpu")) is s and s.device == "cpu:0"
    with pytest.raises(TypeError, match="torch.device"):
        switchyard.Session(path, device=1.5)


def test_torch_cuda_device_names_cuda_0(resnet18):
    path, _, _ = resnet18
    if switchyard.is_available("cuda"):
        assert switchyard.Session(path, device=torch.device("cuda")).device == "cuda:0"
        return
    for device in (torch.device("cuda"), 0, switchyard.Device("cuda")):
        with pytest.raises(switchyard.UnavailableError, match="cuda:0"):
            switchyard.Session(path, device=device)


def test_device_class():
    d = switchyard.Device("cuda", 1)
    assert (d.type, d.index, str(d)) == ("cuda", 1, "cuda:1")
    assert d == "cuda:1" and d == switchyard.Device("cuda:1") and d != "cuda:0"
    assert repr(switchyard.Device("dnnl")) == "switchyard.Device('dnnl:0')"
    assert len({switchyard.Device("cpu"), switchyard.Device("cpu:0")}) == 1
    for bad in (("cuda:x",), ("cuda:0", 1), ("cuda", -1), ("cuda", True)):
        with pytest.raises(ValueError):
            switchyard.Device(*bad)
    with pytest.raises(TypeError):
        switchyard.Device(3)


def test_everything_but_torch_works_without_torch(resnet18):
    """A fresh interpreter where `import torch` fails: numpy feeds, nested
    lists, bytes, Device; switchyard never imports torch itself."""
    path, _, _ = resnet18
    script = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None  # `import torch` raises ImportError
        import numpy as np
        import switchyard
        x = np.load({os.path.join(os.path.dirname(path), "input.npy")!r})
        s = switchyard.Session(open({path!r}, "rb").read(), device=switchyard.Device("cpu"))
        a, = s.run(x)
        b, = s.run(x.tolist())
        c, = s.run([x])
        assert np.allclose(a, b, rtol=1e-6) and (a == c).all()
        assert sys.modules["torch"] is None
        print("ok", switchyard.__version__)
    """)
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
    assert "Exception ignored" not in done.stderr


def test_import_does_not_load_torch():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, switchyard; print('torch' in sys.modules)"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
