"""The default path on every model family: a Session without device= (dnnl:0
where the build has it, auto placement for what it lacks) gives what cpu:0
gives (itself checked against PyTorch by //tests:onnx_models_test and the
family tests), on every model of tests/onnx_models and every input size
stored there. r3d_18 once came out wrong here (a transposed view on dnnl:0)
while every cpu:0 test passed."""

import glob
import os

import numpy as np
import pytest

import switchyard
from conftest import MODELS


def _families():
    return sorted(os.path.basename(d.rstrip("/")) for d in glob.glob(os.path.join(MODELS, "*/"))
                  if os.path.exists(os.path.join(d, "model.onnx")))


def _feeds(folder, count):
    """Each stored input set, as a list in the model's input order: input.npy,
    or input_<size>.npy (with mask_<size>.npy for a second input)."""
    single = os.path.join(folder, "input.npy")
    if os.path.exists(single):
        return [[np.load(single)]]
    sets = []
    for path in sorted(glob.glob(os.path.join(folder, "input_*.npy"))):
        size = os.path.basename(path)[len("input_"):-len(".npy")]
        feeds = [np.load(path)]
        mask = os.path.join(folder, f"mask_{size}.npy")
        if count == 2 and os.path.exists(mask):
            feeds.append(np.load(mask))
        sets.append(feeds)
    return sets


@pytest.mark.parametrize("family", _families())
def test_default_path_gives_what_cpu_gives(family):
    path = os.path.join(MODELS, family, "model.onnx")
    reference = switchyard.Session(path, device="cpu:0")
    default = switchyard.Session(path)
    if switchyard.is_available("dnnl"):
        assert default.device == "dnnl:0", default.device_reason
    feed_sets = _feeds(os.path.dirname(path), len(reference.inputs))
    assert feed_sets, f"no inputs stored for {family}"
    for feeds in feed_sets:
        want = reference.run(feeds, as_dict=True)
        got = default.run(feeds, as_dict=True)
        for name, w in want.items():
            g = got[name]
            assert g.shape == w.shape and g.dtype == w.dtype, (family, name, g.shape, w.shape)
            if w.size == 0:
                continue
            w64, g64 = w.astype(np.float64), g.astype(np.float64)
            scale = max(np.abs(w64).max(), 1e-12)
            assert np.abs(g64 - w64).max() / scale <= 1e-3, (family, name, feeds[0].shape)
