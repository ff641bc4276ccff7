"""switchyard.Session on a torchvision model exported to ONNX: declarations,
every way to call run, no copies where none are needed, built-in models."""

import numpy as np
import pytest

import switchyard
from conftest import relative_diff


def test_resnet18_matches_pytorch(session, resnet18):
    _, x, want = resnet18
    logits, = session.run({"input": x})
    assert logits.shape == (2, 10) and logits.dtype == np.float32
    assert relative_diff(logits, want) <= 1e-4


def test_symbolic_batch_runs_each_size(session, resnet18):
    _, x, want = resnet18
    one, = session.run({"input": x[1:2]})
    assert one.shape == (1, 10)
    assert relative_diff(one, want[1:2]) <= 1e-4
    four, = session.run({"input": np.concatenate([x, x])})
    assert relative_diff(four, np.concatenate([want, want])) <= 1e-4


def test_declared_inputs_and_outputs(session):
    (inp,), (out,) = session.inputs, session.outputs
    assert (inp.name, inp.dtype, inp.shape) == ("input", "float32", ["batch", 3, 64, 64])
    assert (out.name, out.dtype) == ("output", "float32")
    assert out.shape[1] == 10
    assert session.get_inputs()[0].name == "input"  # onnxruntime's spelling
    assert "input" in repr(inp) and "float32" in repr(inp)
    assert session.device == "cpu:0"


def test_every_way_to_call_run(session, resnet18):
    _, x, _ = resnet18
    want, = session.run({"input": x})
    for got in (session.run([x])[0],
                session.run((x,))[0],
                session.run(x)[0],
                session.run(None, {"input": x})[0],        # onnxruntime's run(None, feeds)
                session.run(["output"], {"input": x})[0],
                session.run({"input": x}, output_names=["output"])[0],
                session.run({"input": x}, as_dict=True)["output"],
                session({"input": x})[0]):
        np.testing.assert_array_equal(got, want)


def test_inputs_are_not_copied_or_changed(session, resnet18):
    _, x, _ = resnet18
    before = x.copy()
    session.run({"input": x})
    np.testing.assert_array_equal(x, before)
    # A read-only array is borrowed as it is.
    frozen = x.copy()
    frozen.setflags(write=False)
    y, = session.run({"input": frozen})
    np.testing.assert_array_equal(y, session.run({"input": x})[0])


def test_outputs_are_views_of_the_runs_own_buffer(session, resnet18):
    _, x, _ = resnet18
    a, = session.run({"input": x})
    b, = session.run({"input": x})
    assert not a.flags.owndata and a.base is not None  # no copy out of the runtime
    assert a.flags.writeable and a.flags.c_contiguous
    a[:] = 0  # each run's outputs are its own
    assert np.all(b != 0)


def test_output_that_is_an_input_is_copied(tmp_path):
    import onnx
    from onnx import helper, TensorProto
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "identity",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    path = tmp_path / "identity.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    session = switchyard.Session(path)
    x = np.array([1, 2, 3], np.float32)
    y, = session.run({"x": x})
    np.testing.assert_array_equal(y, x)
    y[0] = 100  # must not write into the caller's input
    assert x[0] == 1


def test_integer_and_bool_inputs(tmp_path):
    import onnx
    from onnx import helper, TensorProto
    graph = helper.make_graph(
        [helper.make_node("Where", ["c", "a", "b"], ["y"])], "where",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, [4]),
         helper.make_tensor_value_info("a", TensorProto.INT64, [4]),
         helper.make_tensor_value_info("b", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [4])])
    path = tmp_path / "where.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    session = switchyard.Session(str(path))
    assert [i.dtype for i in session.inputs] == ["bool", "int64", "int64"]
    c = np.array([True, False, True, False])
    a = np.arange(4, dtype=np.int64)
    b = -np.arange(4, dtype=np.int64)
    y, = session.run({"c": c, "a": a, "b": b})
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y, np.where(c, a, b))
    # Lists take the declared dtype; int32 widens to int64 without loss.
    y2, = session.run({"c": [1, 0, 1, 0], "a": [0, 1, 2, 3], "b": b.astype(np.int32)})
    np.testing.assert_array_equal(y2, y)


def test_options_apply_to_the_backend(resnet18):
    path, x, want = resnet18
    before = switchyard.get_option("cpu.threads")
    try:
        session = switchyard.Session(path, device="cpu", options={"cpu.threads": 1})
        assert switchyard.get_option("cpu.threads") == "1"
        logits, = session.run({"input": x})
        assert relative_diff(logits, want) <= 1e-4
    finally:
        switchyard.set_option("cpu.threads", before)


def test_placement_policy(resnet18):
    session = switchyard.Session(resnet18[0], placement="auto")
    assert session.placement == "auto"
    session.placement = "strict"
    assert session.placement == "strict"
    with pytest.raises(switchyard.InvalidArgumentError):
        session.placement = "anywhere"


def test_run_stats(session, resnet18):
    session.run({"input": resnet18[1]})
    stats = session.run_stats()
    assert stats["runs"] >= 1 and stats["plans_compiled"] >= 1


def test_builtin_model_by_name():
    # VGG11 with its seeded initialisation, as `switchyard run --model=vgg11`;
    # VGG pools adaptively, so a small image keeps the test quick.
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    a = switchyard.Session("vgg11", seed=1)
    assert [i.name for i in a.inputs] == ["input"]
    logits, = a.run({"input": x})
    assert logits.shape == (1, 1000) and np.all(np.isfinite(logits))
    # The same seed, the same weights.
    again, = switchyard.Session("vgg11", seed=1).run([x])
    np.testing.assert_array_equal(logits, again)


def test_an_output_named_twice(session, resnet18):
    a, b = session.run(["output", "output"], {"input": resnet18[1]})
    np.testing.assert_array_equal(a, b)


def test_precompile_makes_the_first_run_of_each_shape_compile_nothing(resnet18):
    import time
    path, x, want = resnet18
    s = switchyard.Session(path, device="cpu")
    s.precompile([(1, 3, 64, 64), {"input": (4, 3, 64, 64)}])
    compiled = s.run_stats()["plans_compiled"]
    assert compiled >= 2
    one, = s.run(x[:1])
    four, = s.run(np.concatenate([x, x]))
    assert s.run_stats()["plans_compiled"] == compiled  # nothing new
    assert relative_diff(one, want[:1]) <= 1e-4 and relative_diff(four[2:], want) <= 1e-4
    for bad in ([], "1x3x64x64", [(1, 3, -1, 64)], {"image": (1, 3, 64, 64)}, [3.5]):
        with pytest.raises(switchyard.InvalidArgumentError):
            s.precompile(bad)


def test_replicas_split_the_batch_over_devices(resnet18):
    # As `switchyard run --replicas=cpu:0,dnnl:0`: 3 samples split 2 + 1,
    # the outputs joined in input order, each as a run of its own.
    path, x, want = resnet18
    batch = np.concatenate([x, x[:1]])
    s = switchyard.Session(path, device="cpu")
    alone, = s.run(batch)
    assert s.replicate(["cpu:0", "dnnl:0"]) is s
    assert s.replica_devices == ["cpu:0", "dnnl:0"] and s.device == "cpu:0"
    joined, = s.run(batch)
    assert joined.shape == alone.shape
    np.testing.assert_array_equal(joined[:2], alone[:2])  # cpu:0's slice
    assert relative_diff(joined[2:], alone[2:]) <= 1e-4  # dnnl:0's
    summary = s.replica_summary()
    assert summary["runs"] == 1, summary
    assert [r["samples_per_run"] for r in summary["devices"]] == [2, 1], summary
    assert "cpu:0" in summary["table"] and "dnnl:0" in summary["table"]
    with pytest.raises(switchyard.InvalidArgumentError):
        s.run(batch, profile=True)
    with pytest.raises(switchyard.InvalidArgumentError, match="at least one sample"):
        s.run(batch[:0])
    s.replicate(None)
    assert s.replicate("cpu:0,dnnl:0").replica_devices == ["cpu:0", "dnnl:0"]
    s.replicate(None)
    assert s.replica_devices == [] and s.replica_summary() is None
    np.testing.assert_array_equal(s.run(batch)[0], alone)


def test_replicas_are_refused_for_model_bytes_and_a_device_named_twice(resnet18):
    path = resnet18[0]
    with open(path, "rb") as f:
        from_bytes = switchyard.Session(f.read(), device="cpu")
    with pytest.raises(switchyard.FailedPreconditionError, match="from its file"):
        from_bytes.replicate(["cpu:0", "dnnl:0"])
    s = switchyard.Session(path, device="cpu")
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        s.replicate(["cpu:0", "cpu:0"])
    assert "--replicas" not in e.value.message
    with pytest.raises(switchyard.Error):
        s.replicate(["cpu:0", "cuda:7"])
    assert s.replica_devices == []


def test_bench_gives_the_commands_json_fields(resnet18):
    path, _, _ = resnet18
    r = switchyard.bench(path, devices=["cpu:0"], batch=[1, 2], warmup=0, iterations=2)
    assert r["schema"] == "switchyard.bench/1"
    assert r["framework"] == "switchyard"
    assert [(row["device"], row["batch"]) for row in r["results"]] == [("cpu:0", 1), ("cpu:0", 2)]
    for row in r["results"]:
        assert row["forward_ms"]["median"] > 0
        assert len(row["forward_ms"]["samples"]) == 2
        assert row["end_to_end_ms"]["median"] >= row["forward_ms"]["min"]
    assert "cpu:0" in r["table"]
    # A built-in model at a given input shape; every device, the unavailable
    # ones listed with the reason.
    r = switchyard.bench("vgg11", devices="all", batch=1, warmup=0, iterations=1,
                         input_shape=(1, 3, 32, 32))
    assert any(d["device"] == "cpu:0" and d["available"] for d in r["devices"])
    assert all(d["available"] or d["reason"] for d in r["devices"])


def test_bench_refuses_bad_arguments(resnet18):
    with pytest.raises(switchyard.NotFoundError, match="resnet99"):
        switchyard.bench("resnet99")
    with pytest.raises(switchyard.InvalidArgumentError, match="placement"):
        switchyard.bench(resnet18[0], devices=["cpu:0"], placement="sometimes")
    with pytest.raises(switchyard.InvalidArgumentError, match="iterations"):
        switchyard.bench(resnet18[0], devices=["cpu:0"], iterations=0)
    with pytest.raises(switchyard.InvalidArgumentError, match="one input"):
        switchyard.bench("vgg11", input_shape={"a": (1, 3, 32, 32), "b": (1, 3, 32, 32)})
    with pytest.raises(switchyard.NotFoundError, match="did you mean 'cuda:0'"):
        switchyard.bench(resnet18[0], devices=["cuda0"])
    # Errors name Python's arguments, not the command's flags.
    with pytest.raises(switchyard.InvalidArgumentError, match=r"^[^-]*warmup >= 0"):
        switchyard.bench(resnet18[0], devices=["cpu:0"], warmup=-1)
    with pytest.raises(switchyard.InvalidArgumentError, match="batch must be >= 1"):
        switchyard.Session(resnet18[0], device="cpu:0").graph(batch=0)


def test_graph_shows_what_the_command_shows(resnet18):
    s = switchyard.Session(resnet18[0], device="cpu:0")
    g = s.graph(input_shape=(2, 3, 64, 64))
    assert not g["staged"]
    assert "conv2d" in g["text"] and "cpu:0" in g["text"]
    assert g["dot"].startswith("digraph")
    assert g["buffer_plan"]["slots"] > 0
    assert 0 < g["buffer_plan"]["planned_bytes"] <= g["buffer_plan"]["unplanned_bytes"]
    assert "conv2d" in g["kernels"]
    assert g["fused_groups"] >= 0
    assert switchyard.Session(resnet18[0], device="cpu:0").graph(batch=4)["text"] != g["text"]
    with pytest.raises(switchyard.InvalidArgumentError):
        s.graph(input_shape=(2, 3, 64))  # the rank the model declares is 4
