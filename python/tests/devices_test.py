"""Device queries: the facts `switchyard devices` prints, as data."""

import json
import os
import subprocess

import pytest

import switchyard
from conftest import ROOT


def test_cpu_device():
    cpus = [d for d in switchyard.devices() if d["backend"] == "cpu"]
    assert len(cpus) == switchyard.device_count("cpu") == 1
    cpu = cpus[0]
    assert cpu["device"] == "cpu:0" and cpu["available"] and cpu["reason"] is None
    assert cpu["name"] == switchyard.get_device_name("cpu:0") != ""
    free, total = switchyard.mem_get_info("cpu")
    assert 0 < free <= total
    assert cpu["total_memory"] == total
    assert switchyard.is_available("cpu")
    assert switchyard.get_device_properties("cpu:0")["name"] == cpu["name"]


def test_every_backend_is_listed_with_devices_or_a_reason():
    types = [b["type"] for b in switchyard.backends()]
    assert "cpu" in types and "cuda" in types
    listed = {d["backend"] for d in switchyard.devices()}
    assert listed == set(types)
    for entry in switchyard.devices():
        if not entry["available"]:
            assert entry["device"] is None and entry["reason"]
            assert switchyard.device_count(entry["backend"]) == 0
            assert switchyard.unavailable_reason(entry["backend"]) == entry["reason"]


def test_cuda_count_or_reason():
    count = switchyard.device_count("cuda")
    assert count == switchyard.device_count()  # cuda is the default, as torch.cuda
    if count == 0:
        assert not switchyard.is_available("cuda")
        assert switchyard.unavailable_reason("cuda")
        with pytest.raises(switchyard.UnavailableError):
            switchyard.get_device_name("cuda:0")
    else:
        assert switchyard.get_device_name("cuda:0")


def test_unknown_backend_type():
    with pytest.raises(switchyard.NotFoundError) as e:
        switchyard.device_count("tpu")
    assert "cpu" in e.value.message  # lists the registered types
    with pytest.raises(switchyard.InvalidArgumentError):
        switchyard.device_count("Not A Type")


def test_backend_options_round_trip():
    options = switchyard.backend_options("cpu")
    assert "threads" in options and options["threads"]["help"]
    before = switchyard.get_option("cpu.threads")
    assert before == options["threads"]["value"]
    try:
        switchyard.set_option("cpu.threads", 1)
        assert switchyard.get_option("cpu.threads") == "1"
        assert switchyard.backend_options("cpu")["threads"]["value"] == "1"
    finally:
        switchyard.set_option("cpu.threads", before)
    with pytest.raises(switchyard.NotFoundError):
        switchyard.get_option("cpu.no_such_option")


def test_same_facts_as_the_command_line():
    cli = os.path.join(ROOT, "tools", "cli", "switchyard")
    if not os.path.exists(cli):
        pytest.skip("the switchyard command line is not built next to the tests")
    printed = json.loads(subprocess.run([cli, "devices", "--json"], check=True,
                                        capture_output=True, text=True).stdout)
    by_type = {b["type"]: b for b in printed["backends"]}
    for backend in switchyard.backends():
        cli_entry = by_type[backend["type"]]
        assert backend["available"] == cli_entry["available"]
        assert backend["reason"] == cli_entry.get("reason")
        assert ([d["device"] for d in backend["devices"]] ==
                [d["device"] for d in cli_entry.get("devices", [])])
        assert ([d["name"] for d in backend["devices"]] ==
                [d["name"] for d in cli_entry.get("devices", [])])
        assert ([d["total_memory"] for d in backend["devices"]] ==
                [d["total_memory_bytes"] for d in cli_entry.get("devices", [])])
        assert set(backend["options"]) == set(cli_entry.get("options", {}))


def test_a_plugin_adds_its_devices(tmp_path):
    # The reference backend is not linked into the module: as a plugin it
    # registers "ref", and a session runs there.
    plugin = os.path.join(ROOT, "backends", "reference", "libswitchyard_ref_plugin.so")
    if "ref" not in [b["type"] for b in switchyard.backends()]:
        loaded = switchyard.load_plugin(plugin)
        assert loaded["types"] == ["ref"]
    assert switchyard.device_count("ref") >= 1
    with pytest.raises(switchyard.AlreadyExistsError, match="ref"):
        switchyard.load_plugin(plugin)
    with pytest.raises(switchyard.NotFoundError, match="no_such_plugin.so"):
        switchyard.load_plugin(str(tmp_path / "no_such_plugin.so"))
    not_a_plugin = tmp_path / "not_a_plugin.so"
    not_a_plugin.write_bytes(b"not an ELF file")
    with pytest.raises(switchyard.InvalidArgumentError):
        switchyard.load_plugin(str(not_a_plugin))
