#!/usr/bin/python3
"""Compares the .npy outputs of one `switchyard run` on two devices.

Usage:
    python3 tools/gpu_check/compare_outputs.py REF_DIR GOT_DIR [--rtol R] [--atol A]

REF_DIR holds the reference device's files (cpu:0), GOT_DIR the same names
from the device checked (cuda:0), as `run --output=DIR/` or `run --images
... --output=DIR/` writes them. Per file, one line: the shape, max|got -
ref|, max|ref| and ok or FAIL. Floats (float16 compared as float32) pass when
max|got - ref| <= atol + rtol * max|ref| and NaN sits in the same places;
integers (labels) must be equal. Exit status: 0 every file matches, 1 a
mismatch (values, shape: e.g. another number of detections, or a file
missing), 2 nothing to compare. Needs numpy only.
"""

import argparse
import os
import sys

import numpy as np


def compare_file(ref_path, got_path, rtol, atol):
    name = os.path.basename(ref_path)
    if not os.path.exists(got_path):
        return False, "%s: FAIL missing on the device checked" % name
    ref, got = np.load(ref_path), np.load(got_path)
    if ref.shape != got.shape:
        return False, "%s: FAIL shape %s here, %s on the reference" % (name, got.shape, ref.shape)
    if ref.size == 0:
        return True, "%s: ok (empty %s)" % (name, ref.shape)
    if not np.issubdtype(ref.dtype, np.floating):
        equal = bool(np.array_equal(ref, got))
        return equal, "%s: %s %s %s, %d of %d elements differ" % (
            name, "ok" if equal else "FAIL", ref.dtype, ref.shape,
            int(np.sum(ref != got)), ref.size)
    ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
    if not np.array_equal(np.isnan(ref64), np.isnan(got64)):
        return False, "%s: FAIL NaN in other places" % name
    finite = ~np.isnan(ref64)
    diff = float(np.max(np.abs(ref64 - got64)[finite], initial=0.0))
    scale = float(np.max(np.abs(ref64[finite]), initial=0.0))
    ok = diff <= atol + rtol * scale
    return ok, "%s: %s %s %s, max|diff| %.3g, max|ref| %.3g (limit %.3g)" % (
        name, "ok" if ok else "FAIL", ref.dtype, ref.shape, diff, scale, atol + rtol * scale)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ref_dir")
    parser.add_argument("got_dir")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-6)
    args = parser.parse_args()
    names = sorted(f for f in os.listdir(args.ref_dir) if f.endswith(".npy")) \
        if os.path.isdir(args.ref_dir) else []
    if not names:
        print("nothing to compare: no .npy files in %s" % args.ref_dir)
        return 2
    failed = 0
    for name in names:
        ok, line = compare_file(os.path.join(args.ref_dir, name),
                                os.path.join(args.got_dir, name), args.rtol, args.atol)
        print(line)
        failed += not ok
    print("%d of %d files match (rtol %g, atol %g)" % (len(names) - failed, len(names),
                                                        args.rtol, args.atol))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
