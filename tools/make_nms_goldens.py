#!/usr/bin/python3
"""Generates the NMS golden fixtures: torchvision.ops.nms / batched_nms answers
for Switchyard's non_max_suppression op and functional::Nms / BatchedNms.

How to run (from the repository root; Debian's PyTorch, see
tools/setup.sh --with-pytorch; the `python3` on PATH may be a pyenv shim
without torch, hence the explicit interpreter):

    /usr/bin/python3 tools/make_nms_goldens.py [--out tests/golden/data/nms]

What it writes: one safetensors file per case into tests/golden/data/nms/
(a folder of its own, so tests/golden_test.cc, which reads the op cases in
tests/golden/data/, never sees them), read by tests/nms_golden_test.cc on
cpu, ref (and every CUDA device there is). Metadata "kind" says how to run a
case:

  * "nms":         boxes F32 [B, 4] (x1, y1, x2, y2), scores F32 [B],
                   metadata iou_threshold; keep I64 [K] =
                   torchvision.ops.nms(boxes, scores, iou_threshold).
  * "batched_nms": the same plus idxs I64 [B]; keep =
                   torchvision.ops.batched_nms(...), put in Switchyard's
                   order (score descending, index ascending: torchvision's
                   per-category path, taken above 4000 coordinates on the
                   CPU, sorts the result with an unstable sort).
  * "op":          boxes F32 [N, B, 4] in ONNX's layout, scores F32 [N, C,
                   B], metadata attrs (JSON: the op's attributes);
                   selected I64 [K, 3] = what ONNX NonMaxSuppression selects,
                   computed per (batch, class) with torchvision.ops.nms on
                   the candidates (score not NaN and > score_threshold), the
                   corners ordered first (ONNX takes any two diagonal
                   corners) or made from the centers, and cut at
                   max_output_boxes_per_class.

Cases: random boxes; RPN-like proposals (many jittered boxes around a few
objects, scores high near them); scores with many ties; zero-area boxes and
points; inverted boxes (x1 > x2 or y1 > y2: torchvision never lets them
overlap anything); IoU exactly at the threshold; a zero threshold with boxes
that only touch; NaN scores; several batches and classes with a score
threshold and a max output; center-format boxes; 80 categories of uneven
size.

Two rules differ from torchvision, by design (ops/non_max_suppression.cc):
  * NaN scores: torchvision sorts NaN above everything and keeps those boxes;
    Switchyard never selects them. The NaN case's golden is torchvision's
    answer on the boxes with a number for a score, mapped back to the
    original indices.
  * IoU is computed in double, torchvision's in float32, so a pair whose IoU
    is within ~1e-7 of the threshold may be decided differently. Every
    golden is therefore also computed by an independent float64 numpy
    version of Switchyard's rules, and must agree with torchvision: a random
    case that does not (a pair on the edge) is drawn again with the next
    seed (the script says so); a designed case must agree as it is.

Deterministic: each case seeds numpy from a CRC32 of its file name. The
script prints each file and its size and reads every file back.
"""

import argparse
import json
import os
import sys
import zlib

import numpy as np
import torch
import torchvision
from torchvision.ops import batched_nms, nms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_io import load_safetensors, save_safetensors  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO_ROOT, "tests", "golden", "data", "nms")
MAX_TOTAL_BYTES = 2 * 1024 * 1024
MAX_TRIES = 20


class Writer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.written = []

    def write(self, name, tensors, metadata):
        path = os.path.join(self.out_dir, name + ".safetensors")
        save_safetensors(path, tensors, metadata)
        back, meta_back = load_safetensors(path)
        assert meta_back == metadata, (path, meta_back, metadata)
        assert set(back) == set(tensors), path
        for k, v in tensors.items():
            assert back[k].dtype == v.dtype and np.array_equal(
                back[k], v, equal_nan=v.dtype.kind == "f"), (path, k)
        size = os.path.getsize(path)
        self.written.append((path, size))
        shapes = ", ".join("%s%s" % (k, list(v.shape))
                           for k, v in sorted(tensors.items()))
        print("wrote %s (%d bytes): %s" % (os.path.relpath(path, REPO_ROOT),
                                           size, shapes))


def rng_for(name, attempt):
    return np.random.default_rng(zlib.crc32(name.encode("utf-8")) + 7919 * attempt)


# ----------------------------------------------- Switchyard's rules in numpy
def decode_op_boxes(boxes, center_point_box):
    """[B, 4] float32 -> float64 (min0, min1, max0, max1, area), area 0 for a
    box that overlaps nothing (ops/nms_geometry.h DecodeNmsBox)."""
    b = boxes.astype(np.float64)
    if center_point_box == 0:
        min0, max0 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
        min1, max1 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    else:
        min0, max0 = b[:, 1] - b[:, 3] / 2, b[:, 1] + b[:, 3] / 2
        min1, max1 = b[:, 0] - b[:, 2] / 2, b[:, 0] + b[:, 2] / 2
    e0, e1 = max0 - min0, max1 - min1
    with np.errstate(invalid="ignore", over="ignore"):
        area = e0 * e1
        valid = (e0 > 0) & (e1 > 0) & np.isfinite(area)
    out = np.zeros((len(b), 5))
    out[valid] = np.stack([min0, min1, max0, max1, area], axis=1)[valid]
    return out


def decode_torchvision_boxes(boxes):
    """(x1, y1, x2, y2) with torchvision's rule: a box with x1 > x2 or y1 > y2
    overlaps nothing (functional::Nms turns it into a point)."""
    b = boxes.copy()
    inverted = (b[:, 0] > b[:, 2]) | (b[:, 1] > b[:, 3])
    b[inverted, 2] = b[inverted, 0]
    b[inverted, 3] = b[inverted, 1]
    return decode_op_boxes(b, 0)


def candidate_order(scores, score_threshold=None):
    idx = np.arange(len(scores))
    ok = ~np.isnan(scores)
    if score_threshold is not None:  # in float64, as the op compares
        ok &= scores.astype(np.float64) > score_threshold
    idx, s = idx[ok], scores[ok].astype(np.float64)
    return idx[np.lexsort((idx, -s))]


def greedy(decoded, order, iou_threshold, limit=None):
    """Selected box indices, in order, by Switchyard's rules in float64."""
    d = decoded[order]
    alive = np.ones(len(order), bool)
    keep = []
    for i in range(len(order)):
        if not alive[i]:
            continue
        keep.append(int(order[i]))
        if limit is not None and len(keep) == limit:
            break
        if d[i, 4] == 0:
            continue
        r = d[i + 1:]
        w = np.maximum(0.0, np.minimum(d[i, 2], r[:, 2]) - np.maximum(d[i, 0], r[:, 0]))
        h = np.maximum(0.0, np.minimum(d[i, 3], r[:, 3]) - np.maximum(d[i, 1], r[:, 1]))
        inter = w * h
        with np.errstate(invalid="ignore"):
            iou = inter / ((d[i, 4] + r[:, 4]) - inter)
        alive[i + 1:] &= ~(iou > iou_threshold)
    return np.array(keep, dtype=np.int64)


def ours_nms(boxes, scores, iou):
    return greedy(decode_torchvision_boxes(boxes), candidate_order(scores), iou)


def ours_batched(boxes, scores, idxs, iou):
    decoded = decode_torchvision_boxes(boxes)
    keep = []
    for c in np.unique(idxs):
        members = np.nonzero(idxs == c)[0]
        order = members[candidate_order(scores[members])]
        keep.extend(greedy(decoded, order, iou).tolist())
    keep = np.array(keep, dtype=np.int64)
    return canonical(keep, scores)


def canonical(keep, scores):
    """Score descending, index ascending."""
    keep = np.asarray(keep, dtype=np.int64)
    return keep[np.lexsort((keep, -scores[keep].astype(np.float64)))]


# ------------------------------------------------------------ torchvision
def tv_nms(boxes, scores, iou):
    """torchvision on the boxes with a number for a score (NaN: see above)."""
    finite = np.nonzero(~np.isnan(scores))[0]
    keep = nms(torch.from_numpy(boxes[finite]), torch.from_numpy(scores[finite]),
               float(iou)).numpy()
    return finite[keep].astype(np.int64)


def tv_batched(boxes, scores, idxs, iou):
    keep = batched_nms(torch.from_numpy(boxes), torch.from_numpy(scores),
                       torch.from_numpy(idxs), float(iou)).numpy()
    return canonical(keep, scores)


def tv_op(boxes, scores, attrs):
    """ONNX NonMaxSuppression through torchvision.ops.nms per (batch, class)."""
    n_batches, n_classes, _ = scores.shape
    limit = attrs.get("max_output_boxes_per_class", 0)
    threshold = attrs.get("score_threshold")
    center = attrs.get("center_point_box", 0)
    rows = []
    for n in range(n_batches):
        b = boxes[n]
        if center == 0:
            xyxy = np.stack([np.minimum(b[:, 1], b[:, 3]), np.minimum(b[:, 0], b[:, 2]),
                             np.maximum(b[:, 1], b[:, 3]), np.maximum(b[:, 0], b[:, 2])],
                            axis=1)
        else:  # exact by construction (integer centers, even sizes)
            xyxy = np.stack([b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2,
                             b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2], axis=1)
        xyxy = xyxy.astype(np.float32)
        for c in range(n_classes):
            s = scores[n, c]
            ok = ~np.isnan(s)
            if threshold is not None:  # float64, not float32(threshold)
                ok &= s.astype(np.float64) > threshold
            idx = np.nonzero(ok)[0]
            keep = nms(torch.from_numpy(xyxy[idx]), torch.from_numpy(s[idx]),
                       float(attrs.get("iou_threshold", 0.0))).numpy()
            for k in idx[keep][:limit]:
                rows.append((n, c, int(k)))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def ours_op(boxes, scores, attrs):
    n_batches, n_classes, _ = scores.shape
    rows = []
    for n in range(n_batches):
        decoded = decode_op_boxes(boxes[n], attrs.get("center_point_box", 0))
        for c in range(n_classes):
            order = candidate_order(scores[n, c], attrs.get("score_threshold"))
            for k in greedy(decoded, order, attrs.get("iou_threshold", 0.0),
                            attrs.get("max_output_boxes_per_class", 0)):
                rows.append((n, c, int(k)))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


# ------------------------------------------------------------- box makers
def random_boxes(rng, count, width=800, height=600, min_size=8, max_size=200):
    x1 = rng.uniform(0, width, count)
    y1 = rng.uniform(0, height, count)
    w = rng.uniform(min_size, max_size, count)
    h = rng.uniform(min_size, max_size, count)
    return np.stack([x1, y1, x1 + w, y1 + h], axis=1).astype(np.float32)


def rpn_boxes(rng, count, objects=8, width=1000, height=800):
    """Proposals as a region proposal network makes them: most around a few
    objects (jittered centers, sizes and aspect ratios), some background; the
    score falls with the distance to the object."""
    cx = rng.uniform(100, width - 100, objects)
    cy = rng.uniform(100, height - 100, objects)
    size = rng.uniform(40, 250, objects)
    obj = rng.integers(0, objects, count)
    background = rng.random(count) < 0.15
    jitter = rng.normal(0, 0.15, (count, 2)) * size[obj, None]
    x = np.where(background, rng.uniform(0, width, count), cx[obj] + jitter[:, 0])
    y = np.where(background, rng.uniform(0, height, count), cy[obj] + jitter[:, 1])
    scale = size[obj] * np.exp(rng.normal(0, 0.25, count))
    aspect = np.exp(rng.normal(0, 0.3, count))
    w, h = scale * np.sqrt(aspect), scale / np.sqrt(aspect)
    boxes = np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=1)
    dist = np.hypot(jitter[:, 0], jitter[:, 1]) / size[obj]
    scores = np.where(background, rng.uniform(0, 0.3, count),
                      np.exp(-2 * dist) * rng.uniform(0.7, 1.0, count))
    return boxes.astype(np.float32), scores.astype(np.float32)


# ------------------------------------------------------------------ cases
def functional_case(w, name, make, iou, designed=False, batched=False):
    for attempt in range(1 if designed else MAX_TRIES):
        rng = rng_for(name, attempt)
        made = make(rng)
        boxes, scores = made[0], made[1]
        if batched:
            idxs = made[2]
            want = tv_batched(boxes, scores, idxs, iou)
            mine = ours_batched(boxes, scores, idxs, iou)
        else:
            want = tv_nms(boxes, scores, iou)
            mine = ours_nms(boxes, scores, iou)
        if np.array_equal(want, mine):
            break
        assert not designed, (name, want, mine)
        print("  %s: seed attempt %d has a pair on the edge of the threshold "
              "(torchvision and float64 differ); drawing again" % (name, attempt))
    else:
        raise SystemExit("%s: no agreeing draw in %d tries" % (name, MAX_TRIES))
    tensors = {"boxes": boxes, "scores": scores, "keep": want}
    if batched:
        tensors["idxs"] = idxs
    w.write(name, tensors, {"kind": "batched_nms" if batched else "nms",
                            "iou_threshold": repr(float(iou)),
                            "selected": str(len(want))})


def op_case(w, name, make, attrs):
    for attempt in range(MAX_TRIES):
        boxes, scores = make(rng_for(name, attempt))
        want = tv_op(boxes, scores, attrs)
        if np.array_equal(want, ours_op(boxes, scores, attrs)):
            break
        print("  %s: attempt %d on the edge; drawing again" % (name, attempt))
    else:
        raise SystemExit("%s: no agreeing draw" % name)
    w.write(name, {"boxes": boxes, "scores": scores, "selected": want},
            {"kind": "op", "attrs": json.dumps(attrs, sort_keys=True),
             "selected": str(len(want))})


def gen_functional(w):
    functional_case(w, "nms_random_500", lambda r: (
        random_boxes(r, 500), r.random(500).astype(np.float32)), 0.5)
    functional_case(w, "nms_rpn_2000_iou07", lambda r: rpn_boxes(r, 2000), 0.7)
    functional_case(w, "nms_rpn_3000_iou05", lambda r: rpn_boxes(r, 3000, objects=20), 0.5)

    def ties(r):
        boxes, _ = rpn_boxes(r, 800, objects=6)
        # Five score values for 800 boxes, and exact duplicates of boxes.
        scores = (r.integers(0, 5, 800) / 4).astype(np.float32)
        boxes[1::7] = boxes[0::7][:len(boxes[1::7])]
        return boxes, scores
    functional_case(w, "nms_ties", ties, 0.5)

    def all_tied(r):
        return random_boxes(r, 300, width=300, height=300), np.full(300, 0.5, np.float32)
    functional_case(w, "nms_all_scores_equal", all_tied, 0.3)

    def degenerate(r):
        boxes = random_boxes(r, 400, width=300, height=300)
        kind = r.integers(0, 5, 400)
        boxes[kind == 0, 2] = boxes[kind == 0, 0]          # zero width
        boxes[kind == 1, 3] = boxes[kind == 1, 1]          # zero height
        boxes[kind == 2, 2:] = boxes[kind == 2, :2]        # a point
        return boxes, r.random(400).astype(np.float32)
    functional_case(w, "nms_degenerate", degenerate, 0.3)

    def inverted(r):
        boxes = random_boxes(r, 400, width=300, height=300)
        kind = r.integers(0, 4, 400)
        boxes[kind == 0] = boxes[kind == 0][:, [2, 1, 0, 3]]  # x1 > x2
        boxes[kind == 1] = boxes[kind == 1][:, [0, 3, 2, 1]]  # y1 > y2
        boxes[kind == 2] = boxes[kind == 2][:, [2, 3, 0, 1]]  # both
        return boxes, r.random(400).astype(np.float32)
    functional_case(w, "nms_inverted", inverted, 0.3)

    def nan_scores(r):
        boxes, scores = rpn_boxes(r, 600, objects=5)
        scores[r.random(600) < 0.1] = np.nan
        scores[r.random(600) < 0.05] = -np.inf
        return boxes, scores
    functional_case(w, "nms_nan_and_inf_scores", nan_scores, 0.5)

    # IoU exactly at the threshold (exact in float32 and double): kept.
    def at_threshold(r):
        boxes = np.array([
            [0, 0, 2, 1], [0, 0, 1, 1],        # IoU 1/2: kept
            [10, 0, 14, 1], [11, 0, 14, 1],    # IoU 3/4: suppressed
            [20, 0, 23, 1], [21, 0, 24, 1],    # IoU 2/4: kept
            [30, 0, 34, 4], [30, 0, 34, 2],    # IoU 1/2: kept
            [40, 0, 44, 4], [41, 0, 45, 4],    # IoU 3/5: suppressed
        ], dtype=np.float32)
        scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25],
                          dtype=np.float32)
        return boxes, scores
    functional_case(w, "nms_iou_at_threshold", at_threshold, 0.5, designed=True)

    def touching(r):
        # A grid of unit squares that share edges and corners, and some that
        # overlap a little: with threshold 0 only overlap suppresses.
        g = np.array([[x, y, x + 1, y + 1] for x in range(6) for y in range(6)],
                     dtype=np.float32)
        extra = g[:12] + np.float32(0.5)
        boxes = np.concatenate([g, extra])
        return boxes, r.permutation(len(boxes)).astype(np.float32) / len(boxes)
    functional_case(w, "nms_iou_zero_touching", touching, 0.0)

    def batched_random(r):
        boxes = random_boxes(r, 1000)
        return boxes, r.random(1000).astype(np.float32), r.integers(0, 10, 1000)
    functional_case(w, "batched_nms_random_10_categories", batched_random, 0.5,
                    batched=True)

    def batched_rpn(r):
        boxes, scores = rpn_boxes(r, 3000, objects=30)
        # 80 categories of very uneven size (most boxes in a few), arbitrary
        # category values.
        cat = np.minimum(r.geometric(0.08, 3000) - 1, 79)
        return boxes, scores, (cat * 7 - 100).astype(np.int64)
    functional_case(w, "batched_nms_rpn_80_categories", batched_rpn, 0.7,
                    batched=True)

    def batched_ties(r):
        boxes, _ = rpn_boxes(r, 400, objects=4)
        return (boxes, (r.integers(0, 4, 400) / 3).astype(np.float32),
                r.integers(0, 3, 400).astype(np.int64))
    functional_case(w, "batched_nms_ties", batched_ties, 0.5, batched=True)


def gen_op(w):
    def onnx_layout(boxes):
        """(x1, y1, x2, y2) -> [y1, x1, y2, x2], each box's corners in a random
        order of the two diagonals."""
        return boxes[:, [1, 0, 3, 2]]

    def batches_classes(r):
        n, c, b = 2, 3, 300
        boxes = np.stack([onnx_layout(rpn_boxes(r, b, objects=6)[0]) for _ in range(n)])
        flip = r.integers(0, 4, (n, b))
        boxes[flip == 1] = boxes[flip == 1][:, [2, 3, 0, 1]]  # other diagonal order
        boxes[flip == 2] = boxes[flip == 2][:, [2, 1, 0, 3]]
        scores = r.random((n, c, b)).astype(np.float32)
        return boxes.astype(np.float32), scores
    op_case(w, "op_batches_classes_threshold_max", batches_classes,
            {"max_output_boxes_per_class": 20, "iou_threshold": 0.5,
             "score_threshold": 0.3})

    def center(r):
        n, c, b = 1, 2, 400
        xc = r.integers(0, 800, (n, b))
        yc = r.integers(0, 600, (n, b))
        ww = 2 * r.integers(1, 100, (n, b))
        hh = 2 * r.integers(1, 100, (n, b))
        boxes = np.stack([xc, yc, ww, hh], axis=2).astype(np.float32)
        return boxes, r.random((n, c, b)).astype(np.float32)
    op_case(w, "op_center_point_box", center,
            {"max_output_boxes_per_class": 1000, "iou_threshold": 0.4,
             "center_point_box": 1})

    def rpn(r):
        boxes, scores = rpn_boxes(r, 6000, objects=25)
        return onnx_layout(boxes)[None].copy(), scores[None, None].copy()
    op_case(w, "op_rpn_6000_post_nms_300", rpn,
            {"max_output_boxes_per_class": 300, "iou_threshold": 0.7})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("torch %s, torchvision %s, numpy %s" % (torch.__version__,
                                                   torchvision.__version__,
                                                   np.__version__))
    torch.set_num_threads(1)
    w = Writer(args.out)
    gen_functional(w)
    gen_op(w)
    total = sum(size for _, size in w.written)
    print("%d files, %d bytes" % (len(w.written), total))
    assert total <= MAX_TOTAL_BYTES, "goldens too large: %d bytes" % total


if __name__ == "__main__":
    main()
