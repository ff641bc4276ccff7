#!/usr/bin/python3
"""Exports two small sequence models to ONNX once, with a symbolic batch and
sequence length, and records PyTorch's outputs at several lengths, for
tests/onnx_sequence_test.cc: one loaded OnnxModel must serve every length.

Usage:
    /usr/bin/python3 tools/export_sequence_models.py [--out=DIR] [--seed=0]

Models (seeded random weights, eval mode, opset 14):
  recurrent_narrow: a 2-layer bidirectional nn.LSTM (batch_first), an
      nn.GRU and a tanh nn.RNN over its output, and a torch.einsum head
      ("bsh,hk->bsk"): ONNX LSTM, GRU, RNN and Einsum. Input [batch, seq, 6]
      float32; output [batch, seq, 5].
  transformer_encoder_narrow: token ids through nn.Embedding and a 2-layer
      nn.TransformerEncoder (d_model 16, 2 heads) with a key padding mask,
      then a linear head. Inputs ids [batch, seq] int64 and mask
      [batch, seq] bool (True: padding); output [batch, seq, 7].
Each gets DIR/<name>/: model.onnx, and per length L in LENGTHS
input_L.npy (and mask_L.npy) and output_L.npy (PyTorch's), info.json.
"""

import argparse
import json
import os

import numpy as np
import onnx
import torch
from torch import nn

LENGTHS = [7, 3, 12]  # the export's first
BATCH = 2
OPSET = 14


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(16, 8, batch_first=True)
        self.rnn = nn.RNN(8, 4, nonlinearity="tanh", batch_first=True)
        self.head = nn.Parameter(torch.randn(4, 5))

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        y, _ = self.rnn(y)
        return torch.einsum("bsh,hk->bsk", y, self.head)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(16, 7)

    def forward(self, ids, mask):
        return self.head(self.encoder(self.embed(ids), src_key_padding_mask=mask))


def mask_for(length, rng):
    """Row 0 full, row 1 padded after a random point (at least one token)."""
    mask = np.zeros((BATCH, length), dtype=np.bool_)
    mask[1, rng.integers(1, length + 1):] = True
    return mask


def export(model, name, out, seed):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    rng = np.random.default_rng(seed)
    transformer = isinstance(model, Encoder)
    cases = []
    for length in LENGTHS:
        if transformer:
            ids = rng.integers(0, 50, size=(BATCH, length)).astype(np.int64)
            cases.append((length, [ids, mask_for(length, rng)]))
        else:
            cases.append((length, [rng.standard_normal((BATCH, length, 6)).astype(np.float32)]))
    names = ["ids", "mask"] if transformer else ["x"]
    dynamic = {n: {0: "batch", 1: "seq"} for n in names}
    dynamic["y"] = {0: "batch", 1: "seq"}
    # Gradients stay on: with them, nn.TransformerEncoderLayer takes its
    # exportable path (its inference fast path, one fused kernel, has no
    # ONNX export); PyTorch's outputs below are computed the same way.
    model.eval()
    example = tuple(torch.from_numpy(a) for a in cases[0][1])
    torch.onnx.export(model, example, path, input_names=names, output_names=["y"],
                      dynamic_axes=dynamic, opset_version=OPSET)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    for length, arrays in cases:
        y = model(*(torch.from_numpy(a) for a in arrays)).detach().numpy()
        np.save(os.path.join(folder, f"input_{length}.npy"), arrays[0])
        if transformer:
            np.save(os.path.join(folder, f"mask_{length}.npy"), arrays[1])
        np.save(os.path.join(folder, f"output_{length}.npy"), y)
    proto = onnx.load(path)
    info = {
        "name": name,
        "lengths": LENGTHS,
        "batch": BATCH,
        "opset": OPSET,
        "inputs": names,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "nodes": len(proto.graph.node),
        "op_types": sorted({n.op_type for n in proto.graph.node}),
        "onnx_bytes": os.path.getsize(path),
    }
    with open(os.path.join(folder, "info.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    print(f"{name}: {info['nodes']} nodes, {info['parameters']} parameters, "
          f"ops {', '.join(info['op_types'])}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/onnx_models")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    export(Recurrent(), "recurrent_narrow", args.out, args.seed)
    export(Encoder(), "transformer_encoder_narrow", args.out, args.seed)


if __name__ == "__main__":
    main()
