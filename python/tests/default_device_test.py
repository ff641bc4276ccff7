"""The device a Session takes without device=: the oneDNN plugin beside the
module found at import, the device policies (and a function as one), auto
placement for a chosen device, strict for a named one."""

import numpy as np
import pytest

import switchyard


def test_the_plugin_beside_the_module_is_found():
    found = switchyard.discovered_plugins()
    assert found["enabled"]
    assert [p["types"] for p in found["loaded"]] == [["dnnl"]], found
    assert found["loaded"][0]["path"].endswith("switchyard/libswitchyard_dnnl_plugin.so")
    assert "dnnl:0" in [d["device"] for d in switchyard.devices()]


def test_choose_device_by_policy():
    fastest = switchyard.choose_device()
    assert fastest["device"] == "dnnl:0"
    assert "device policy fastest" in fastest["reason"]
    assert switchyard.choose_device("cpu")["device"] == "dnnl:0"
    assert switchyard.choose_device("low-power")["threads"] == 1
    with pytest.raises(switchyard.InvalidArgumentError, match="fastest, cpu, gpu, low-power"):
        switchyard.choose_device("quick")


def test_a_session_without_a_device_runs_on_the_fastest(resnet18):
    path, x, want = resnet18
    s = switchyard.Session(path)
    assert s.device == "dnnl:0"
    assert s.placement == "auto"
    assert "oneDNN, the fastest CPU backend" in s.device_reason
    got, = s.run({"input": x})
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_a_named_device_is_strict_and_a_function_can_choose(resnet18):
    path, x, want = resnet18
    named = switchyard.Session(path, device="cpu")
    assert named.device == "cpu:0"
    assert named.placement == "strict"
    assert named.device_reason == "named by device="
    seen = []

    def last_cpu_device(devices):
        seen.extend(devices)
        return [d for d in devices if d.startswith("cpu")][-1]

    chosen = switchyard.Session(path, device_policy=last_cpu_device)
    assert "dnnl:0" in seen and "cpu:0" in seen
    assert chosen.device == "cpu:0"
    assert chosen.placement == "auto"
    got, = chosen.run({"input": x})
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
    with pytest.raises(switchyard.InvalidArgumentError, match="'quick'"):
        switchyard.Session(path, device_policy="quick")


def test_a_near_miss_of_a_device_says_which_was_meant(resnet18):
    path = resnet18[0]
    with pytest.raises(switchyard.NotFoundError, match="did you mean device='dnnl:0'"):
        switchyard.Session(path, device="dnnl0")
    with pytest.raises(switchyard.NotFoundError, match="did you mean device='cpu:0'"):
        switchyard.Session(path, device="cpuu")
    s = switchyard.Session(path, device="cpu")
    with pytest.raises(switchyard.NotFoundError, match="did you mean device='dnnl:0'"):
        s.to("mkldnn")
