"""session.run(..., profile=True): per-node times on the device's clock, the
summary and the Chrome trace."""

import json

import numpy as np

import switchyard


def test_profile_times_every_node(session, resnet18):
    _, x, _ = resnet18
    plain, = session.run({"input": x})
    (logits,), profile = session.run({"input": x}, profile=True)
    np.testing.assert_array_equal(logits, plain)
    assert isinstance(profile, switchyard.Profile)
    nodes = profile.nodes
    assert nodes, profile.events
    ops = {n["op"] for n in nodes}
    assert any("conv2d" in op for op in ops), ops
    assert all(n["duration_us"] >= 0 and n["lane"] == "cpu:0" for n in nodes)
    assert any(n["flops"] > 0 for n in nodes)
    assert profile.total_ms > 0
    assert sum(r["total_ms"] for r in profile.by_op()) > 0
    assert "conv2d" in profile.summary()
    assert "nodes" in repr(profile)


def test_chrome_trace(session, resnet18, tmp_path):
    _, profile = session.run({"input": resnet18[1]}, profile=True)
    trace = json.loads(profile.chrome_trace())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = {e.get("name") for e in events}
    assert any(n and "conv" in n.lower() for n in names)
    path = tmp_path / "trace.json"
    profile.save_chrome_trace(str(path))
    assert json.loads(path.read_text()) == trace
    with np.testing.assert_raises(switchyard.Error):
        profile.save_chrome_trace(str(tmp_path / "no" / "such" / "dir" / "t.json"))
