"""Feeds as PyTorch and ONNX Runtime users pass them, turned into what the
extension module takes: {name: array} or [array, ...] in input order.

A torch.Tensor becomes a numpy array without a copy where one can share its
memory (a CPU tensor, detached from autograd; a strided view stays strided
and the extension copies it); bfloat16 tensors, which numpy lacks, become
float32 exactly. A tensor on a CUDA GPU stays there: made contiguous (on
the GPU) and with its stream's queued work finished, it goes to the
extension as it is, which reads its __cuda_array_interface__ and runs on that
memory without a trip through the host. A tensor on any other device comes
to the host. torch is never imported here: a tensor can only exist if the
user imported it.
"""

import sys as _sys

import numpy as _np


def _torch_tensor_class():
    torch = _sys.modules.get("torch")
    return None if torch is None else torch.Tensor


def is_array(value):
    """A numpy array or scalar, a torch.Tensor, or GPU memory that describes
    itself (``__cuda_array_interface__``): one feed, never a list of them."""
    tensor = _torch_tensor_class()
    return (isinstance(value, (_np.ndarray, _np.generic))
            or (tensor is not None and isinstance(value, tensor))
            or hasattr(value, "__cuda_array_interface__"))


def as_array(value):
    """``value`` with a torch.Tensor replaced by a numpy array."""
    tensor = _torch_tensor_class()
    if tensor is None or not isinstance(value, tensor):
        return value
    import torch  # already loaded: the value is one of its tensors
    t = value.detach()
    if t.device.type not in ("cpu", "cuda"):
        t = t.cpu()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    if t.dtype == torch.bfloat16:
        t = t.float()
    if t.device.type == "cuda":
        t = t.contiguous()
        # Switchyard's kernels run on streams of their own: what torch queued
        # to make this tensor must be done before they read it.
        torch.cuda.current_stream(t.device).synchronize()
        return t
    return t.numpy()


def normalize(feeds, input_count):
    """``feeds`` as a dict or a list the extension takes. A single array or
    tensor is the only input's feed; a list of arrays or tensors is one per
    input; a list of numbers or nested lists (``x.tolist()``) given to a
    model with one input is that input's value."""
    if isinstance(feeds, dict):
        return {name: as_array(value) for name, value in feeds.items()}
    if is_array(feeds):
        return [as_array(feeds)]
    if isinstance(feeds, (list, tuple)):
        if input_count == 1 and feeds and not all(is_array(v) for v in feeds):
            return [feeds]
        return [as_array(v) for v in feeds]
    return feeds
