"""switchyard.diagnose: image batches from tests/images streamed into a
model, with the facts and verdict of `switchyard run --images --report`."""

import json
import os

import pytest

import switchyard
from conftest import ROOT

IMAGES = os.path.join(ROOT, "tests", "images")
VERDICTS = {"starved", "host_bound", "one_op", "copies", "balanced", "too_short"}


def _bad_files():
    return sorted(f for f in os.listdir(IMAGES)
                  if f.startswith("bad_") and os.path.isfile(os.path.join(IMAGES, f)))


@pytest.fixture(scope="module")
def one_pass(session):
    # 15 files, batches of 4: one pass is 4 batches; every bad file is met.
    return switchyard.diagnose(session, images=IMAGES, batch=4, image_size=32,
                               loader_threads=2, prefetch=2)


def test_fields(one_pass):
    d = one_pass
    assert isinstance(d, switchyard.Diagnosis)
    assert d.verdict in VERDICTS
    assert isinstance(d.diagnosis, str) and d.diagnosis
    assert d.device == "cpu:0" and d.batch == 4 and d.batches == 4
    assert d.loader_threads == 2 and d.prefetch == 2
    assert set(d.phases) == {"load", "wait", "h2d", "forward", "d2h"}, d.phases.keys()
    for name in ("load", "h2d", "forward", "d2h"):
        phase = d.phases[name]
        assert phase.count == 4, (name, phase)
        assert phase.total_ms >= 0 and phase.max_ms >= phase.median_ms >= 0
    assert d.phases.forward.total_ms > 0
    assert 0 < d.busy_share <= 1
    assert d.devices[0].device == "cpu:0"
    assert d.input_wait_ms >= 0 and 0 <= d.input_wait_share <= 1
    assert d.run_ms > 0 and d.images_per_s > 0
    assert d.top_node and 0 < d.top_node_share <= 1
    assert d.top_loader_stage in d.images.stages
    assert d.copy_share >= 0


def test_loader_stages_and_bad_files(one_pass):
    images = one_pass.images
    files = [f for f in os.listdir(IMAGES) if os.path.isfile(os.path.join(IMAGES, f))]
    assert images.files == len(files)  # not reference/ (absent under Bazel)
    assert images.samples == 16
    for stage in ("read", "decode", "resize", "crop", "normalize", "batch"):
        assert stage in images.stages, images.stages.keys()
        assert images.stages[stage].ms_per_sample >= 0
    assert abs(sum(s.share for _, s in images.stages.items()) - 1) < 1e-6
    assert images.loader_ms_per_sample > 0
    bad = sorted(os.path.basename(b.path) for b in images.bad_files)
    assert bad == _bad_files(), images.bad_files
    assert all(b.error for b in images.bad_files)
    assert images.skipped_slots >= len(bad)


def test_text_profile_and_dict(one_pass, tmp_path):
    d = one_pass
    assert d.diagnosis in str(d)
    assert "decode" in str(d)
    assert "verdict=" in repr(d)
    plain = d.as_dict()
    assert "profile" not in plain
    assert json.loads(json.dumps(plain))["verdict"] == d.verdict
    assert d["phases"]["h2d"]["count"] == 4
    assert isinstance(d.profile, switchyard.Profile)
    lanes = {e["lane"] for e in d.profile.events}
    assert "cpu:0" in lanes and any(l.startswith("loader ") for l in lanes), lanes
    trace = tmp_path / "stream.json"
    d.profile.save_chrome_trace(str(trace))
    assert json.loads(trace.read_text())
    with pytest.raises(AttributeError, match="no field"):
        d.no_such_field


def test_slow_loader_is_starved(session):
    # One loader thread sleeping 60 ms per batch, a model that needs a few:
    # the device waits for input most of the run.
    d = switchyard.diagnose(session, batch=2, image_size=32, batches=8,
                            loader_threads=1, prefetch=1, loader_cost_ms=60,
                            loader_work="sleep")
    assert d.verdict == "starved", (d.verdict, d.diagnosis)
    assert d.input_wait_share > 0.5, str(d)
    assert d.loader_cost_ms == 60 and d.loader_work == "sleep"
    assert "waiting for input" in d.diagnosis


def test_too_few_batches_carry_no_verdict(session):
    d = switchyard.diagnose(session, batch=2, image_size=32, batches=3)
    assert d.verdict == "too_short", (d.verdict, d.diagnosis)
    assert "no verdict" in d.diagnosis and "stream 8 or more" in d.diagnosis


def test_missing_folder(session, tmp_path):
    missing = str(tmp_path / "no_such_folder")
    with pytest.raises(switchyard.NotFoundError) as e:
        switchyard.diagnose(session, images=missing, image_size=32)
    assert e.value.code == "NOT_FOUND"
    assert missing in e.value.message and "images=" in e.value.message
    assert isinstance(e.value, LookupError)


def test_bad_file_raises_without_skip(session):
    with pytest.raises(switchyard.Error) as e:
        switchyard.diagnose(session, images=IMAGES, batch=4, image_size=32,
                            skip_bad=False)
    assert "bad_" in e.value.message and "skip_bad=True" in e.value.message, e.value


def test_synthetic_batches(session):
    d = switchyard.diagnose(session, batch=2, image_size=32, batches=3)
    assert d.images is None and d.batches == 3 and d.verdict in VERDICTS
    with pytest.raises(switchyard.InvalidArgumentError, match="batches"):
        switchyard.diagnose(session, image_size=32)


def test_bad_arguments(session):
    with pytest.raises(switchyard.InvalidArgumentError, match="loader_work"):
        switchyard.diagnose(session, images=IMAGES, image_size=32, loader_work="spin")
    with pytest.raises(switchyard.InvalidArgumentError, match="prefetch"):
        switchyard.diagnose(session, images=IMAGES, image_size=32, prefetch=0)
    with pytest.raises(switchyard.InvalidArgumentError, match="augment"):
        switchyard.diagnose(session, images=IMAGES, image_size=32, augment="test")


def test_a_per_image_detector_runs_each_image_at_its_own_size():
    # As `switchyard run --images=DIR` runs it: the same report fields.
    from conftest import MODELS
    detector = switchyard.Session(os.path.join(MODELS, "fasterrcnn_narrow", "model.onnx"),
                                  device="cpu")
    d = switchyard.diagnose(detector, images=IMAGES)
    assert isinstance(d, switchyard.Diagnosis)
    assert d.mode == "own_size" and d.batch == 1
    assert d.verdict in {"input_bound", "compile_bound", "model_bound"}, d.verdict
    assert d.diagnosis and str(d).startswith("images: ")
    bad = sorted(os.path.basename(b.path) for b in d.bad_files)
    assert bad == _bad_files()
    files = [f for f in os.listdir(IMAGES) if os.path.isfile(os.path.join(IMAGES, f))]
    assert len(d.images) + len(bad) == len(files)
    sizes = {(i.width, i.height) for i in d.images}
    assert d.new_sizes == len(sizes) and d.compile_ms > 0
    for image in d.images:
        assert image.ms.model > 0 and isinstance(image.detections, list), image
    assert d.images_per_s > 0 and d.median_ms.model > 0


def test_a_per_image_detector_needs_images_and_reports_bad_files_on_request():
    from conftest import MODELS
    detector = switchyard.Session(os.path.join(MODELS, "fasterrcnn_narrow", "model.onnx"),
                                  device="cpu")
    with pytest.raises(switchyard.InvalidArgumentError) as e:
        switchyard.diagnose(detector, batches=8, batch=1, image_size=64)
    assert "images='DIR'" in e.value.message and "[3, H, W]" in e.value.message
    bad = os.path.join(IMAGES, _bad_files()[0])
    with pytest.raises(switchyard.Error) as e:
        switchyard.diagnose(detector, images=bad, skip_bad=False)
    assert "skip_bad=True" in e.value.message
