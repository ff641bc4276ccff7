"""Devices as a PyTorch user names them: "cuda:0", switchyard.Device("cuda", 0),
torch.device("cuda:0"), or an int for a GPU's index, as torch takes them."""

import sys as _sys


class Device:
    """A device: ``type`` ("cpu", "dnnl", "cuda", a plugin's type) and
    ``index``. ``Device("cuda:1")``, ``Device("cuda", 1)`` and
    ``Device("cuda")`` (index 0) name the same kind of thing as
    ``torch.device``; ``str(d)`` is what every switchyard call takes, and a
    Device equals its string ("cuda:0")."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002  (torch's name)
        if isinstance(type, Device):
            type, index = type.type, type.index if index is None else index
        if not isinstance(type, str):
            raise TypeError(f"Device(type, index): type is a {_type_name(type)}, "
                            "give a string such as 'cpu', 'dnnl' or 'cuda:0'")
        if ":" in type:
            if index is not None:
                raise ValueError(f"Device({type!r}, {index!r}): the string already has "
                                 "an index; give Device('cuda', 1) or Device('cuda:1')")
            type, _, text = type.partition(":")
            if not text.isdigit():
                raise ValueError(f"Device: '{type}:{text}' has no device index after ':' "
                                 f"(write '{type}:0')")
            index = int(text)
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)
                                  or index < 0):
            raise ValueError(f"Device({type!r}, {index!r}): the index is a number, 0 or more")
        self.type = type
        self.index = 0 if index is None else int(index)

    def __str__(self):
        return f"{self.type}:{self.index}"

    def __repr__(self):
        return f"switchyard.Device({str(self)!r})"

    def __eq__(self, other):
        if isinstance(other, (Device, str)):
            try:
                other = Device(other)
            except (TypeError, ValueError):
                return False
            return (self.type, self.index) == (other.type, other.index)
        return NotImplemented

    def __hash__(self):
        return hash(str(self))


def _type_name(value):
    return type(value).__module__ + "." + type(value).__qualname__


def _is_torch_device(value):
    torch = _sys.modules.get("torch")  # never imported here: loaded only if the user did
    return torch is not None and isinstance(value, torch.device)


def device_string(device):
    """``device`` as the "type:index" string the C++ side takes. Strings pass
    as they are (so a near miss such as "cuda0" gets its "did you mean");
    torch.device("cuda") is "cuda:0", torch's "cpu" is "cpu:0"; an int n is
    "cuda:n", as ``torch.device(n)``."""
    if isinstance(device, str):
        return device
    if isinstance(device, Device):
        return str(device)
    if _is_torch_device(device):
        return f"{device.type}:{device.index or 0}"
    if isinstance(device, int) and not isinstance(device, bool):
        return str(Device("cuda", device))
    raise TypeError(f"device is a {_type_name(device)}; give a string ('cpu:0', 'dnnl:0', "
                    "'cuda:0'), a switchyard.Device or a torch.device")
