"""The result of switchyard.diagnose: a read-only record with attribute
access over the keys of `switchyard run --images --report=r.json`."""

__all__ = ["Diagnosis"]


class _Record:
    """A dict with attribute access (``r.mean_ms`` is ``r["mean_ms"]``);
    nested dicts are records too. ``as_dict()`` gives plain dicts."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        if name.startswith("__") or name == "_data":
            raise AttributeError(name)
        try:
            return _wrap(self._data[name])
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r}; fields: "
                f"{', '.join(self._data)}") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, key):
        return _wrap(self._data[key])

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def keys(self):
        return self._data.keys()

    def items(self):
        return [(k, _wrap(v)) for k, v in self._data.items()]

    def get(self, key, default=None):
        return _wrap(self._data.get(key, default))

    def as_dict(self):
        """The record as plain dicts and lists (JSON-ready but for
        ``profile`` on a Diagnosis, which is left out)."""
        return _plain(self._data)

    def __dir__(self):
        return list(self._data) + ["as_dict", "keys", "items", "get"]

    def __eq__(self, other):
        if isinstance(other, _Record):
            other = other._data
        return self._data == other

    def __repr__(self):
        return f"{type(self).__name__}({self._data!r})"


def _wrap(value):
    if isinstance(value, dict):
        return _Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _plain(value):
    if isinstance(value, _Record):
        value = value._data
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "profile"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class Diagnosis(_Record):
    """What switchyard.diagnose found: the verdict (``verdict``: "starved",
    "host_bound", "one_op", "copies" or "balanced", or "too_short" for a
    stream of fewer than 8 batches, which carries none; ``diagnosis``: the
    one-line finding with its advice), per-phase times (``phases.load``, ``.wait``, ``.h2d``,
    ``.forward``, ``.d2h``), the device's busy share, the input waits, the
    slowest op (``top_node``), the loader stages (``images.stages.decode``,
    ...), the bad files skipped, the report's text (``str(d)``) and the
    stream's ``profile`` (a Profile: ``profile.save_chrome_trace(path)``).
    For a model that takes one image at its own size (``mode`` "own_size"),
    the fields of ``switchyard run --images --report`` instead: ``verdict``
    "input_bound", "compile_bound" or "model_bound", per-image ``images``
    with their detections, ``median_ms``, ``compile_ms``."""

    __slots__ = ()

    def __str__(self):
        return self._data["text"]

    def __repr__(self):
        return (f"Diagnosis(verdict={self._data['verdict']!r}, "
                f"diagnosis={self._data['diagnosis']!r})")
