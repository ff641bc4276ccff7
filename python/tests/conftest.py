"""Shared fixtures of the Python tests: where the test models are, run by
Bazel (runfiles) or by hand from the repository root:

    bazel build //python:switchyard
    PYTHONPATH=bazel-bin/python /usr/bin/python3 -m pytest python/tests
"""

import os

import numpy as np
import pytest


def _root():
    """The repository root (the runfiles' copy under Bazel)."""
    for env in ("TEST_SRCDIR", "RUNFILES_DIR"):
        base = os.environ.get(env)
        if base and os.path.isdir(os.path.join(base, "switchyard", "tests")):
            return os.path.join(base, "switchyard")
    return os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


ROOT = _root()
MODELS = os.path.join(ROOT, "tests", "onnx_models")


def relative_diff(got, want):
    """max |got - want| / max |want|, as tests/relative_diff.h."""
    return float(np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want)))


@pytest.fixture(scope="session")
def resnet18():
    """tests/onnx_models/resnet18_dynamic: (model path, input [2,3,64,64],
    PyTorch's logits [2,10]); its batch dimension is symbolic."""
    folder = os.path.join(MODELS, "resnet18_dynamic")
    return (os.path.join(folder, "model.onnx"),
            np.load(os.path.join(folder, "input.npy")),
            np.load(os.path.join(folder, "output_pytorch.npy")))


@pytest.fixture(scope="session")
def session(resnet18):
    import switchyard
    return switchyard.Session(resnet18[0], device="cpu")
