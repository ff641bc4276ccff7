#!/usr/bin/python3
"""Generates the golden test fixtures for Switchyard's C++ op and model tests.

How to run (from the repository root):

    /usr/bin/python3 tools/make_goldens.py [--out tests/golden/data]

Needs Debian's python3 with torch (1.13, CPU) and numpy. The `python3` on
PATH may be a pyenv shim without torch, hence the explicit interpreter.

What it writes (into tests/golden/data/, created if missing, files
overwritten):

  * one safetensors file per single-op case, named `<op>__<case>.safetensors`,
    holding the float32 tensors
        `input`            (for `add`: `input0` and `input1`),
        `weight`, `bias`   (only where the op/case has them),
        `running_mean`, `running_var`  (batch_norm),
        `output`           (what PyTorch computes),
    and the metadata {"op": "<op>", "attrs": "<JSON object of attributes>"}.
    Ops: linear, conv2d, max_pool2d, adaptive_avg_pool2d, relu, flatten,
    dropout (eval mode, output == input), softmax, add, batch_norm
    (F.batch_norm with training=False).
  * `vgg_small.safetensors`: a reduced VGG with torchvision's exact module
    layout and parameter names (features.N.weight/bias, classifier.N.*),
    cfg [8,M,16,M,16,16,M,32,32,M,32,32,M], AdaptiveAvgPool2d((7,7)),
    classifier 32*7*7 -> 64 -> 64 -> 10, in eval mode; plus `input`
    [2,3,32,32] and `output` (logits [2,10]). Metadata (all strings):
    cfg (JSON list), hidden, num_classes, avgpool ("[7,7]"), input_size.
  * `conv_bn_small.safetensors`: Conv2d + BatchNorm2d + ReLU twice, laid out
    as torchvision's vgg*_bn `features` (nn.Sequential: features.0 conv
    3->8 3x3 pad 1 without bias, features.1 BatchNorm2d(8), features.2
    ReLU, features.3 conv 8->16 3x3 stride 2 pad 1 with bias, features.4
    BatchNorm2d(16, eps=1e-3), features.5 ReLU), its state_dict exactly as
    torchvision saves it: running statistics from 3 training steps and
    `features.N.num_batches_tracked` as I64 scalars (3); plus `input`
    [2,3,16,16] and `output` [2,16,8,8] in eval mode. Metadata: layers (a
    description), eps ("[1e-05,0.001]").
Everything is deterministic: torch.manual_seed(0) at start, and each case
re-seeds from a CRC32 of its file name so that adding or reordering cases
does not change the data of the others; deterministic algorithms; one
thread; float32 throughout. The script prints each file it writes and the
total size, and reads every file back to check it round-trips.

CI never needs PyTorch: the generated files are committed to the
repository, and the C++ tests only read them. Re-run this script only when
a case is added or changed, and commit the result.

Tolerance policy used by the C++ golden tests (a = Switchyard, b = golden):
  * single ops: per element  abs(a - b) <= 1e-5 + 1e-4 * abs(b);
  * the vgg_small model: per element  abs(a - b) <= 1e-4 * max|output|
    (max over the whole golden logits tensor).
Exact ops (relu, flatten, dropout, max_pool2d, add) are expected to match
bit for bit in practice, but share the same tolerance.
"""

import argparse
import json
import os
import sys
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_io import load_safetensors, save_safetensors  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO_ROOT, "tests", "golden", "data")

MAX_OP_FILE_BYTES = 200 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024


class Writer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.written = []  # (path, bytes)

    def seed(self, file_name):
        torch.manual_seed(zlib.crc32(file_name.encode("utf-8")))

    def write(self, file_name, tensors, metadata):
        path = os.path.join(self.out_dir, file_name)
        # Floating-point tensors as float32; others (num_batches_tracked,
        # int64) as they are.
        tensors = {k: (v.detach().contiguous().to(torch.float32)
                       if v.is_floating_point() else v.detach().contiguous())
                   for k, v in tensors.items()}
        save_safetensors(path, tensors, metadata)
        # Round-trip check.
        back, meta_back = load_safetensors(path)
        assert meta_back == metadata, (path, meta_back, metadata)
        assert set(back) == set(tensors), path
        for k, v in tensors.items():
            assert np.array_equal(back[k], v.numpy()), (path, k)
        size = os.path.getsize(path)
        self.written.append((path, size))
        shapes = ", ".join("%s%s" % (k, list(v.shape)) for k, v in sorted(tensors.items()))
        print("wrote %s (%d bytes): %s" % (os.path.relpath(path, REPO_ROOT), size, shapes))


def op_case(w, op, case, attrs, make):
    """Seeds, calls make() -> dict of tensors, and writes the case file."""
    name = "%s__%s.safetensors" % (op, case)
    w.seed(name)
    with torch.no_grad():
        tensors = make()
    w.write(name, tensors, {"op": op, "attrs": json.dumps(attrs)})


# ----------------------------------------------------------------- linear
def gen_linear(w):
    def case(in_shape, out_features, bias):
        def make():
            x = torch.randn(*in_shape)
            weight = torch.randn(out_features, in_shape[-1]) * (1.0 / in_shape[-1] ** 0.5)
            b = torch.randn(out_features) * 0.1 if bias else None
            y = F.linear(x, weight, b)
            t = {"input": x, "weight": weight, "output": y}
            if b is not None:
                t["bias"] = b
            return t
        return make

    op_case(w, "linear", "basic", {}, case((4, 16), 8, True))
    op_case(w, "linear", "no_bias", {}, case((3, 12), 5, False))
    op_case(w, "linear", "rank3", {}, case((2, 3, 10), 6, True))


# ----------------------------------------------------------------- conv2d
def gen_conv2d(w):
    def case(n, c, h, wd, o, k, stride=(1, 1), padding=(0, 0), dilation=(1, 1),
             groups=1, bias=True):
        kh, kw = k
        attrs = {"stride": list(stride), "padding": list(padding),
                 "dilation": list(dilation), "groups": groups}

        def make():
            x = torch.randn(n, c, h, wd)
            fan_in = (c // groups) * kh * kw
            weight = torch.randn(o, c // groups, kh, kw) * (1.0 / fan_in ** 0.5)
            b = torch.randn(o) * 0.1 if bias else None
            y = F.conv2d(x, weight, b, stride=stride, padding=padding,
                         dilation=dilation, groups=groups)
            t = {"input": x, "weight": weight, "output": y}
            if b is not None:
                t["bias"] = b
            return t
        return attrs, make

    cases = [
        ("k3_pad1", case(1, 3, 8, 8, 4, (3, 3), padding=(1, 1))),
        ("stride2", case(1, 4, 9, 9, 6, (3, 3), stride=(2, 2), padding=(1, 1))),
        ("k1x3_pad0_1", case(1, 3, 6, 7, 5, (1, 3), padding=(0, 1))),
        ("dilation2", case(1, 3, 10, 10, 4, (3, 3), padding=(2, 2), dilation=(2, 2))),
        ("groups2", case(1, 4, 7, 7, 6, (3, 3), padding=(1, 1), groups=2)),
        ("depthwise", case(1, 6, 8, 8, 6, (3, 3), padding=(1, 1), groups=6)),
        ("depthwise_mult2", case(1, 4, 6, 6, 8, (3, 3), stride=(2, 2), padding=(1, 1),
                                 groups=4)),
        ("k1x1", case(1, 8, 5, 6, 4, (1, 1))),
        ("no_bias", case(1, 3, 8, 8, 4, (3, 3), padding=(1, 1), bias=False)),
        ("k5_stride2_1_pad2_0", case(1, 3, 11, 12, 4, (5, 5), stride=(2, 1),
                                     padding=(2, 0))),
        ("batch2", case(2, 3, 8, 8, 4, (3, 3), padding=(1, 1))),
        ("no_pad_valid", case(1, 2, 7, 9, 3, (3, 3))),
    ]
    for name, (attrs, make) in cases:
        op_case(w, "conv2d", name, attrs, make)


# ------------------------------------------------------------- max_pool2d
def pool_out_size(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling output size, including the ceil_mode rule that the
    last window must start inside the input or the left padding."""
    eff = size + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-eff // s) + 1
        if (out - 1) * s >= size + p:
            out -= 1
    else:
        out = eff // s + 1
    return out


def gen_max_pool2d(w):
    def case(shape, k, s, p=(0, 0), d=(1, 1), ceil_mode=False):
        attrs = {"kernel_size": list(k), "stride": list(s), "padding": list(p),
                 "dilation": list(d), "ceil_mode": ceil_mode}

        def make():
            x = torch.randn(*shape)
            y = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil_mode)
            expect = tuple(pool_out_size(shape[2 + i], k[i], s[i], p[i], d[i], ceil_mode)
                           for i in range(2))
            assert tuple(y.shape[2:]) == expect, (shape, attrs, y.shape, expect)
            return {"input": x, "output": y}
        return attrs, make

    cases = [
        ("k2_s2", case((1, 3, 8, 8), (2, 2), (2, 2))),
        ("k3_s2_p1", case((1, 3, 9, 9), (3, 3), (2, 2), (1, 1))),
        # 7 -> floor 3, ceil 4: the partial last window is kept.
        ("ceil_mode_odd", case((1, 2, 7, 7), (2, 2), (2, 2), ceil_mode=True)),
        # 5 with pad 1, k2 s2: ceil gives 4 but the 4th window would start at
        # padded index 6 >= 5 + 1 (in the right padding), so PyTorch drops it -> 3.
        # Width 6 with pad 1, k3 s2: ceil gives 4 (floor 3); the 4th window
        # starts at 6 < 6 + 1, so it is kept.
        ("ceil_mode_last_window_rule", case((1, 2, 5, 6), (2, 3), (2, 2), (1, 1),
                                            ceil_mode=True)),
        ("dilation2", case((1, 2, 10, 10), (3, 3), (1, 1), d=(2, 2))),
        ("dilation2_s2_ceil", case((1, 2, 10, 9), (2, 2), (2, 2), d=(2, 2), ceil_mode=True)),
        ("non_square", case((2, 3, 7, 9), (2, 3), (2, 1), (1, 1))),
    ]
    for name, (attrs, make) in cases:
        op_case(w, "max_pool2d", name, attrs, make)


# ---------------------------------------------------- adaptive_avg_pool2d
def gen_adaptive_avg_pool2d(w):
    def case(shape, out_hw):
        attrs = {"output_size": list(out_hw)}

        def make():
            x = torch.randn(*shape)
            y = F.adaptive_avg_pool2d(x, out_hw)
            return {"input": x, "output": y}
        return attrs, make

    cases = [
        ("7x7_from_14x14", case((1, 4, 14, 14), (7, 7))),
        ("7x7_from_1x1", case((2, 8, 1, 1), (7, 7))),
        ("7x7_from_2x2", case((1, 4, 2, 2), (7, 7))),
        ("3x2_from_7x5", case((1, 3, 7, 5), (3, 2))),
        ("1x1", case((2, 4, 5, 6), (1, 1))),
    ]
    for name, (attrs, make) in cases:
        op_case(w, "adaptive_avg_pool2d", name, attrs, make)


# ------------------------------------------------------- elementwise etc.
def gen_misc(w):
    def relu():
        x = torch.randn(2, 3, 4, 5)
        return {"input": x, "output": F.relu(x)}
    op_case(w, "relu", "rank4", {}, relu)

    def flatten(start, end):
        def make():
            x = torch.randn(2, 3, 4, 5)
            return {"input": x, "output": torch.flatten(x, start, end)}
        return make
    op_case(w, "flatten", "start1", {"start_dim": 1, "end_dim": -1}, flatten(1, -1))
    op_case(w, "flatten", "start0", {"start_dim": 0, "end_dim": -1}, flatten(0, -1))

    def dropout():
        m = nn.Dropout(p=0.5).eval()
        x = torch.randn(2, 3, 4, 4)
        y = m(x)
        assert torch.equal(x, y)
        return {"input": x, "output": y}
    op_case(w, "dropout", "eval", {"p": 0.5}, dropout)

    def softmax_large():
        x = torch.randn(4, 10) * 50.0
        return {"input": x, "output": F.softmax(x, dim=1)}
    op_case(w, "softmax", "dim1_large", {"dim": 1}, softmax_large)

    def softmax_rank3():
        x = torch.randn(2, 3, 7)
        return {"input": x, "output": F.softmax(x, dim=-1)}
    op_case(w, "softmax", "rank3_last", {"dim": -1}, softmax_rank3)

    def add():
        a = torch.randn(2, 3, 4, 5)
        b = torch.randn(2, 3, 4, 5)
        return {"input0": a, "input1": b, "output": a + b}
    op_case(w, "add", "same_shape", {}, add)


# ------------------------------------------------------------- batch_norm
def gen_batch_norm(w):
    def case(shape, eps):
        attrs = {"epsilon": eps}

        def make():
            c = shape[1]
            x = torch.randn(*shape) * 2.0 + 0.5
            mean = torch.randn(c) * 0.5
            var = torch.rand(c) * 2.0 + 0.1  # positive, some small
            weight = torch.randn(c)
            bias = torch.randn(c) * 0.1
            y = F.batch_norm(x, mean, var, weight, bias, training=False, eps=eps)
            return {"input": x, "weight": weight, "bias": bias,
                    "running_mean": mean, "running_var": var, "output": y}
        return attrs, make

    cases = [
        ("rank4", case((2, 3, 4, 5), 1e-5)),
        ("rank2", case((4, 6), 1e-5)),
        ("rank3_eps0_1", case((2, 4, 7), 0.1)),
    ]
    for name, (attrs, make) in cases:
        op_case(w, "batch_norm", name, attrs, make)


# --------------------------------------------------------------- vgg_small
VGG_SMALL_CFG = [8, "M", 16, "M", 16, 16, "M", 32, 32, "M", 32, 32, "M"]
VGG_SMALL_HIDDEN = 64
VGG_SMALL_CLASSES = 10
VGG_SMALL_INPUT = 32


class VGGSmall(nn.Module):
    """Same layout and parameter names as torchvision.models.VGG."""

    def __init__(self, cfg, hidden, num_classes):
        super().__init__()
        layers = []
        in_ch = 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            else:
                layers.append(nn.Conv2d(in_ch, v, kernel_size=3, padding=1))
                layers.append(nn.ReLU(inplace=False))
                in_ch = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(in_ch * 7 * 7, hidden),
            nn.ReLU(inplace=False),
            nn.Dropout(p=0.5),
            nn.Linear(hidden, hidden),
            nn.ReLU(inplace=False),
            nn.Dropout(p=0.5),
            nn.Linear(hidden, num_classes),
        )
        # torchvision's VGG initialisation ...
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.constant_(m.bias, 0)
        # ... then non-zero biases (so bias handling is tested) and linear
        # weights scaled from std 0.01 to std 0.05 (so logits are not tiny).
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    m.bias.uniform_(-0.1, 0.1)
                if isinstance(m, nn.Linear):
                    m.weight.mul_(5.0)

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def gen_vgg_small(w):
    name = "vgg_small.safetensors"
    w.seed(name)
    model = VGGSmall(VGG_SMALL_CFG, VGG_SMALL_HIDDEN, VGG_SMALL_CLASSES).eval()
    x = torch.randn(2, 3, VGG_SMALL_INPUT, VGG_SMALL_INPUT)
    with torch.no_grad():
        y = model(x)
        # Sanity: the float32 result is close to a float64 evaluation.
        y64 = model.double()(x.double())
        model.float()
    rel = (y.double() - y64).abs().max().item() / y64.abs().max().item()
    print("vgg_small: logits max|y| = %.4f, float32 vs float64 max diff / max|y| = %.2e"
          % (y.abs().max().item(), rel))
    assert rel < 1e-5, rel
    tensors = {k: v for k, v in model.state_dict().items()}
    assert "input" not in tensors and "output" not in tensors
    tensors["input"] = x
    tensors["output"] = y
    metadata = {
        "cfg": json.dumps(VGG_SMALL_CFG),
        "hidden": str(VGG_SMALL_HIDDEN),
        "num_classes": str(VGG_SMALL_CLASSES),
        "avgpool": "[7,7]",
        "input_size": str(VGG_SMALL_INPUT),
    }
    w.write(name, tensors, metadata)


# ------------------------------------------------------------ conv_bn_small
CONV_BN_EPS = [1e-5, 1e-3]


def gen_conv_bn_small(w):
    name = "conv_bn_small.safetensors"
    w.seed(name)
    features = nn.Sequential(
        nn.Conv2d(3, 8, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(8, eps=CONV_BN_EPS[0]),
        nn.ReLU(inplace=False),
        nn.Conv2d(8, 16, kernel_size=3, stride=2, padding=1),
        nn.BatchNorm2d(16, eps=CONV_BN_EPS[1]),
        nn.ReLU(inplace=False),
    )
    model = nn.Module()
    model.features = features
    # Running statistics as training leaves them (momentum 0.1, 3 steps on
    # shifted data, so mean and var are far from 0 and 1), and affine
    # parameters away from 1 and 0.
    features.train()
    with torch.no_grad():
        for _ in range(3):
            features(torch.randn(4, 3, 16, 16) * 3.0 + 1.0)
        for m in features:
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    features.eval()
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad():
        y = features(x)
    tensors = dict(model.state_dict())
    for i in (1, 4):
        tracked = tensors["features.%d.num_batches_tracked" % i]
        assert tracked.dtype == torch.int64 and tracked.item() == 3, tracked
    assert "input" not in tensors and "output" not in tensors
    tensors["input"] = x
    tensors["output"] = y
    metadata = {
        "layers": "conv3x3(3->8, no bias) bn relu conv3x3(8->16, stride 2) bn relu",
        "eps": json.dumps(CONV_BN_EPS),
    }
    w.write(name, tensors, metadata)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float32)
    os.makedirs(args.out, exist_ok=True)

    w = Writer(args.out)
    gen_linear(w)
    gen_conv2d(w)
    gen_max_pool2d(w)
    gen_adaptive_avg_pool2d(w)
    gen_misc(w)
    gen_batch_norm(w)
    gen_vgg_small(w)
    gen_conv_bn_small(w)

    total = sum(size for _, size in w.written)
    print("%d files, %d bytes total (%.1f KiB)" % (len(w.written), total, total / 1024.0))
    too_big = [(p, s) for p, s in w.written
               if s > MAX_OP_FILE_BYTES and "__" in os.path.basename(p)]
    if too_big:
        sys.exit("files over %d bytes: %r" % (MAX_OP_FILE_BYTES, too_big))
    if total > MAX_TOTAL_BYTES:
        sys.exit("total size %d exceeds %d bytes" % (total, MAX_TOTAL_BYTES))


if __name__ == "__main__":
    main()
