#!/usr/bin/env python3
"""Writes Switchyard's own ONNX test suites into tests/onnx_cases/.

    /usr/bin/python3 tools/onnx_cases/make_cases.py            # every case
    /usr/bin/python3 tools/onnx_cases/make_cases.py --filter=split

Each case module (cases_*.py in this folder) registers builders with
case_registry.case (the model must match ONNX Runtime) or
case_registry.refusal (the model is hostile: Switchyard must refuse it with
an error containing the given text) or case_registry.known_gap (ONNX Runtime
runs it, Switchyard refuses it as unsupported for the given reason). Cases are written in ONNX's
backend-test layout, read by tests/onnx_node_test.cc:

    tests/onnx_cases/<suite>/test_<name>/model.onnx
    tests/onnx_cases/<suite>/test_<name>/test_data_set_0/input_0.pb ...
    tests/onnx_cases/<suite>/test_<name>/test_data_set_0/output_0.pb ...  (ONNX Runtime's)
    tests/onnx_cases/<suite>/test_<name>/expected_error.txt              (refusals)
    tests/onnx_cases/<suite>/test_<name>/known_gap.txt                   (known gaps)

Needs ONNX Runtime (tools/setup.sh --with-peers) and node.
"""

import argparse
import glob
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import case_registry  # noqa: E402

ORT_TYPES = {np.dtype(t): n for t, n in [
    (np.float32, "float32"), (np.float64, "float64"), (np.float16, "float16"),
    (np.int64, "int64"), (np.int32, "int32"), (np.int16, "int16"), (np.int8, "int8"),
    (np.uint64, "uint64"), (np.uint32, "uint32"), (np.uint16, "uint16"),
    (np.uint8, "uint8"), (np.bool_, "bool")]}
NP_TYPES = {n: t for t, n in ORT_TYPES.items()}


def save_model(m, case_dir, options):
    path = os.path.join(case_dir, "model.onnx")
    if options.get("external_data"):
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="model.onnx.data", size_threshold=0)
    else:
        onnx.save_model(m, path)
    return path


def write_pb(array, path, name):
    tensor = numpy_helper.from_array(array, name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "onnx_cases"))
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    for module in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
        importlib.import_module(os.path.basename(module)[:-3])

    manifest, written = [], []
    scratch = tempfile.mkdtemp(prefix="onnx_cases_")
    for suite, name, kind, build, expected in case_registry.CASES:
        if args.filter not in name:
            continue
        case_dir = os.path.join(args.out, suite, "test_" + name)
        shutil.rmtree(case_dir, ignore_errors=True)
        os.makedirs(os.path.join(case_dir, "test_data_set_0"))
        built = build()
        m, inputs = built[0], built[1]
        options = built[2] if len(built) > 2 else {}
        model_path = save_model(m, case_dir, options)
        for i, (input_name, array) in enumerate(inputs.items()):
            write_pb(array, os.path.join(case_dir, "test_data_set_0", f"input_{i}.pb"),
                     input_name)
        if kind == "refusal":
            with open(os.path.join(case_dir, "expected_error.txt"), "w") as f:
                f.write(expected + "\n")
            continue
        if kind == "known_gap":
            with open(os.path.join(case_dir, "known_gap.txt"), "w") as f:
                f.write(expected + "\n")
        if options.get("integer_tolerance"):
            with open(os.path.join(case_dir, "integer_tolerance.txt"), "w") as f:
                f.write(options["integer_tolerance"] + "\n")
        work = os.path.join(scratch, suite + "_" + name)
        os.makedirs(work)
        feeds = []
        for input_name, array in inputs.items():
            raw = os.path.join(work, input_name + ".bin")
            np.ascontiguousarray(array).tofile(raw)
            feeds.append({"name": input_name, "type": ORT_TYPES[array.dtype],
                          "dims": list(array.shape), "file": raw})
        manifest.append({"model": model_path, "dir": work, "inputs": feeds})
        written.append((suite, name, case_dir, work))

    manifest_path = os.path.join(scratch, "manifest.json")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f)
    subprocess.run(["node", os.path.join(HERE, "ort_oracle.js"), manifest_path], check=True)

    failed = 0
    for suite, name, case_dir, work in written:
        error = os.path.join(work, "ort_error.txt")
        if os.path.exists(error):
            with open(error) as f:
                print(f"{suite}/{name}: ONNX Runtime refused it: {f.read().strip()}")
            shutil.rmtree(case_dir)
            failed += 1
            continue
        with open(os.path.join(work, "ort_outputs.json")) as f:
            outputs = json.load(f)
        for i, out in enumerate(outputs):
            array = np.fromfile(out["file"], dtype=NP_TYPES[out["type"]])
            array = array.reshape(out["dims"])
            write_pb(array, os.path.join(case_dir, "test_data_set_0", f"output_{i}.pb"),
                     out["name"])
    shutil.rmtree(scratch)
    print(f"make_cases.py: {len(written) - failed} cases with ONNX Runtime's outputs, "
          f"{failed} refused by it, in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
