#!/usr/bin/python3
"""Compares two logits arrays (.npy, shape [batch, classes]).

Usage:
    /usr/bin/python3 tools/compare_logits.py EXPECTED.npy ACTUAL.npy [--rtol 1e-4]

EXPECTED is the reference (e.g. the expected_logits.npy written by
tools/vgg11_reference.py); ACTUAL is what Switchyard produced.

Prints the max absolute difference, max|logit| of the reference, their
ratio, and the per-sample top-1 class of both. Exit status:
    0  iff  max_abs_diff <= rtol * max|expected|  (rtol defaults to 1e-4)
            and every sample's top-1 class agrees;
    1  on a numeric mismatch (or NaN/Inf in ACTUAL);
    2  on unusable inputs (missing file, shape mismatch).
Needs only numpy.
"""

import argparse
import sys

import numpy as np


def compare(expected, actual, rtol=1e-4, out=sys.stdout):
    """Returns True when `actual` matches `expected` under the policy above."""
    expected = np.asarray(expected, dtype=np.float64)
    actual = np.asarray(actual, dtype=np.float64)
    if expected.shape != actual.shape:
        raise ValueError("shape mismatch: expected %s, actual %s" % (expected.shape, actual.shape))
    if expected.ndim == 1:
        expected = expected[None, :]
        actual = actual[None, :]
    expected2 = expected.reshape(expected.shape[0], -1)
    actual2 = actual.reshape(actual.shape[0], -1)

    finite = bool(np.all(np.isfinite(actual2)))
    max_abs_diff = float(np.max(np.abs(expected2 - actual2))) if finite else float("inf")
    max_ref = float(np.max(np.abs(expected2)))
    ratio = max_abs_diff / max_ref if max_ref > 0 else (0.0 if max_abs_diff == 0 else float("inf"))
    top1_expected = np.argmax(expected2, axis=1)
    top1_actual = np.argmax(actual2, axis=1) if finite else np.full(len(expected2), -1)
    top1_ok = bool(np.all(top1_expected == top1_actual))
    diff_ok = finite and max_abs_diff <= rtol * max_ref

    print("shape:            %s" % (tuple(expected.shape),), file=out)
    print("max_abs_diff:     %.6e" % max_abs_diff, file=out)
    print("max|expected|:    %.6e" % max_ref, file=out)
    print("ratio:            %.6e  (limit %.1e)" % (ratio, rtol), file=out)
    print("top-1 expected:   %s" % top1_expected.tolist(), file=out)
    print("top-1 actual:     %s" % top1_actual.tolist(), file=out)
    if not finite:
        print("ACTUAL contains NaN or Inf", file=out)
    ok = diff_ok and top1_ok
    print("result:           %s%s%s" % ("PASS" if ok else "FAIL",
                                       "" if diff_ok else " (difference too large)",
                                       "" if top1_ok else " (top-1 disagrees)"), file=out)
    return ok


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Compare logits: pass iff max|a-b| <= rtol*max|expected| and top-1 agrees.")
    parser.add_argument("expected", help="reference logits .npy")
    parser.add_argument("actual", help="logits .npy to check")
    parser.add_argument("--rtol", type=float, default=1e-4,
                        help="tolerance relative to max|expected| (default 1e-4)")
    args = parser.parse_args(argv)
    try:
        expected = np.load(args.expected)
        actual = np.load(args.actual)
        ok = compare(expected, actual, args.rtol)
    except (OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
