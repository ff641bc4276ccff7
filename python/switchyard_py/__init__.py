"""Switchyard from Python: run ONNX models and the built-in models on any
device Switchyard has, on numpy arrays or torch tensors.

    import switchyard
    session = switchyard.Session("resnet18.onnx")  # the fastest device here
    session.device, session.device_reason     # which, and why
    logits, = session.run(x)                  # x: a numpy array or a torch.Tensor

See docs/python.md for the whole API.
"""

import os as _os

import numpy as _np

from ._errors import *  # noqa: F401,F403  (Error and one subclass per status code)
from ._errors import Error  # noqa: F401
from ._diagnosis import Diagnosis  # noqa: F401
from ._device import Device, device_string as _device_string  # noqa: F401
from . import _feeds
from ._switchyard import (  # noqa: F401
    MpiWorld,
    Profile,
    ValueInfo,
    backend_options,
    backends,
    choose_device,
    device_count,
    devices,
    discovered_plugins,
    get_device_name,
    get_device_properties,
    get_option,
    is_available,
    load_plugin,
    mem_get_info,
    set_option,
    unavailable_reason,
)
from . import _switchyard

__version__ = _switchyard.__version__

# Plugins named by SWITCHYARD_PLUGIN_PATH, then the ones beside the module
# (the oneDNN plugin the build ships), as the command line loads them.
_switchyard._load_plugins_from_env()
_switchyard._discover_plugins()

__all__ = [
    "Session", "Profile", "ValueInfo", "Error", "devices", "backends", "device_count",
    "is_available", "unavailable_reason", "get_device_name", "get_device_properties",
    "mem_get_info", "load_plugin", "get_option", "set_option", "backend_options", "diagnose",
    "Diagnosis", "choose_device", "discovered_plugins", "Device", "mpi_world", "MpiWorld",
    "bench",
] + list(_errors.__all__)  # noqa: F405


def bench(model, devices=None, batch=(1, 8), warmup=2, iterations=10, seed=0,
          placement="auto", input_shape=None):
    """What ``switchyard bench`` measures, as a dict with the fields of its
    ``--json`` (schema "switchyard.bench/1": "devices", "results" with
    forward/h2d/d2h/end-to-end medians, p95s and samples per device and
    batch, "speedup_vs_cpu", ...) and "table", the table it prints.

    ``model``: an .onnx path or a built-in model's name (seeded weights).
    ``devices``: None for the device a Session takes without one, "all" for
    every device (unavailable ones listed with the reason), or a list of
    device strings, ``switchyard.Device``s or ``torch.device``s. ``batch``:
    an int or a list of them. ``input_shape``: the one input's shape as a
    tuple, or {input name: shape} (dimension 0 is each batch size).
    ``placement``: "auto" (as the command: nodes a device lacks run on the
    CPU) or "strict"."""
    if devices is None:
        names = []
    elif isinstance(devices, str):
        names = [d.strip() for d in devices.split(",") if d.strip()]
    else:
        names = [_device_string(d) for d in devices]
    batches = [batch] if isinstance(batch, int) else list(batch)

    def dims(shape):
        return "x".join(str(int(d)) for d in shape)

    if input_shape is None:
        shapes = []
    elif isinstance(input_shape, dict):
        shapes = [f"{name}:{dims(shape)}" for name, shape in input_shape.items()]
    else:
        shapes = [dims(input_shape)]
    return _switchyard._bench(_os.fspath(model), names, batches, warmup, iterations, seed,
                              placement, shapes)


def mpi_world():
    """The MPI job this process is a rank of when ``mpirun -np N python3
    script.py`` started it, else None (a plain process). The MpiWorld has
    ``rank``, ``size``, ``local_rank`` (its number among the ranks on its
    host: ``f"cuda:{w.local_rank}"`` picks a GPU each), ``local_size``,
    ``host``; ``share(items)``, this rank's contiguous share of a list (as
    ``switchyard run --images`` splits files); ``gather(bytes)``, every
    rank's bytes at rank 0 (``[]`` elsewhere); ``broadcast(bytes)``, rank
    0's bytes everywhere; ``barrier()``. Every wait has a deadline
    (``timeout_s``, 600 by default): a rank that hangs ends in
    DeadlineExceededError naming it. The job is joined once, at the first
    call, and left at exit. FailedPreconditionError when mpirun started the
    process but this build has no MPI."""
    world = _switchyard._join_mpi()
    if world is not None and not getattr(mpi_world, "_leaves_at_exit", False):
        import atexit
        atexit.register(_switchyard._leave_mpi)
        mpi_world._leaves_at_exit = True
    return world


def _model_argument(model):
    """``model`` as the extension takes it: a path or a built-in model's
    name (str), or the serialized model (bytes)."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if type(model).__name__ == "ModelProto" and hasattr(model, "SerializeToString"):
        return model.SerializeToString()
    try:
        return _os.fspath(model)
    except TypeError:
        raise TypeError(
            f"model is a {type(model).__module__}.{type(model).__qualname__}; give a path "
            "to an .onnx file, a built-in model's name ('vgg11'), the model's bytes or an "
            "onnx.ModelProto") from None


class Session:
    """A model on a device, run on numpy arrays or torch tensors.

    ``model`` is a path to an .onnx file, the file's bytes, an
    ``onnx.ModelProto`` (external data files are then read from the working
    directory, as ONNX Runtime does), or the name of a built-in model
    ("vgg11", "vgg13", "vgg16", "vgg19": seeded weights, or ``weights=`` a
    .safetensors file with torchvision's names). A model file takes
    ``weights=`` too: values over its initializers of the same names (as
    ``switchyard run --weights``). ``device`` is "cpu:0",
    "dnnl:0", "cuda:0", or any device ``switchyard.devices()`` lists, as a
    string, a ``switchyard.Device`` or a ``torch.device``; without
    it ``device_policy`` chooses (``switchyard.choose_device``): "fastest"
    (a GPU, else oneDNN, else the Eigen backend), "cpu", "gpu",
    "low-power" (one thread), or a function taking the available devices
    (["cpu:0", "dnnl:0", ...]) and returning one of them. ``device_reason`` says which and why.
    ``options`` sets backend options first ({"cpu.threads": 2}); they apply
    process-wide, to every session. ``placement`` is "strict" (every operand
    of a node on one device, else an error naming it) or "auto" (copies
    inserted, unsupported nodes fall back to the CPU); by default auto when
    the policy chose the device, strict when ``device`` names it.
    """

    def __init__(self, model, device=None, options=None, placement=None,
                 weights=None, seed=0, device_policy="fastest"):
        model = _model_argument(model)
        options = dict(options or {})
        chosen = device is None
        if device is not None:
            device = _device_string(device)
            self.device_reason = "named by device="
        elif callable(device_policy):
            available = [d["device"] for d in devices() if d["available"]]
            device = _device_string(device_policy(available))
            self.device_reason = f"{device}, chosen by the device_policy function"
        else:
            choice = choose_device(str(device_policy))
            device = choice["device"]
            self.device_reason = choice["reason"]
            threads_option = device.split(":")[0] + ".threads"
            if choice["threads"] and threads_option not in options:
                options[threads_option] = choice["threads"]
        if placement is None:
            placement = "auto" if chosen else "strict"
        self._session = _switchyard._Session(
            model, device, options, placement,
            _os.fspath(weights) if weights is not None else "", seed)

    @property
    def inputs(self):
        """The model's inputs: ValueInfo(name, dtype, shape), in order. A
        shape lists ints, dimension names (str) for symbolic dimensions, None
        for unnamed ones; it is None when the model declares no shape."""
        return self._session.inputs

    @property
    def outputs(self):
        """The model's outputs, as ``inputs``."""
        return self._session.outputs

    # onnxruntime's spelling.
    def get_inputs(self):
        return self.inputs

    def get_outputs(self):
        return self.outputs

    @property
    def device(self):
        """The device the model runs on ("cpu:0")."""
        return self._session.device

    @property
    def model(self):
        return self._session.model

    @property
    def placement(self):
        return self._session.placement

    @placement.setter
    def placement(self, policy):
        self._session.set_placement(policy)

    def to(self, device):
        """Moves the model to ``device`` and returns the session. Raises
        UnavailableError, with the backend's reason, when the device is not
        there. ``device`` as in ``Session``."""
        self._session.to(_device_string(device))
        return self

    def run(self, *args, output_names=None, profile=False, as_dict=False):
        """Runs the model.

        ``run(feeds)`` or onnxruntime's ``run(output_names, feeds)``. ``feeds``
        is {input name: array} or a list of arrays in input order; a model
        with one input also takes the array alone, or a nested list
        (``x.tolist()``). An array is a numpy array or a torch.Tensor (any
        dtype numpy has, bfloat16, any strides; shared without a copy where
        it is on the CPU and laid out as the model needs; a tensor on a CUDA
        GPU is read where it is, without a trip through the host). Returns the outputs as numpy arrays (``torch.from_numpy``
        shares them without a copy), in
        output order (or those named by ``output_names``), as a list, or as
        {name: array} with ``as_dict=True``. With ``profile=True`` it returns
        ``(outputs, Profile)``: every node timed on its device's own clock.

        The GIL is released while the model runs; threads may share a session.
        """
        if len(args) == 1:
            feeds = args[0]
        elif len(args) == 2:
            if output_names is not None:
                raise TypeError("output_names given twice (positionally and by keyword)")
            output_names, feeds = args
        else:
            raise TypeError("run(feeds) or run(output_names, feeds); got "
                            f"{len(args)} positional arguments")
        feeds = _feeds.normalize(feeds, len(self.inputs))
        outputs, prof = self._session.run(feeds, output_names, profile)
        if as_dict:
            names = (list(output_names) if output_names is not None
                     else [o.name for o in self.outputs])
            outputs = dict(zip(names, outputs))
        return (outputs, prof) if profile else outputs

    def __call__(self, *args, **kwargs):
        return self.run(*args, **kwargs)

    def precompile(self, shapes):
        """Compiles ahead what runs of the given input shapes need, so that
        the first real run of each is as fast as the rest: one run per
        shape on zeros of the declared dtypes, outputs dropped. ``shapes``:
        one shape or a list of them for a model with one input
        (``[(1, 3, 224, 224), (8, 3, 224, 224)]``), or {input name: shape}
        or a list of such dicts. A model whose later shapes depend on its
        data (a detector's NMS) compiles those segments for the zeros' data;
        others compile on first use. ``run_stats()`` says what a model
        file compiled."""
        def is_shape(value):
            return isinstance(value, (tuple, list)) and all(
                isinstance(d, int) and not isinstance(d, bool) for d in value)

        if isinstance(shapes, dict) or is_shape(shapes):
            shapes = [shapes]
        if not isinstance(shapes, (list, tuple)) or not shapes:
            raise InvalidArgumentError(  # noqa: F405
                "precompile takes a shape, {input name: shape}, or a list of them; got "
                f"{shapes!r}")
        inputs = self.inputs
        names = ", ".join(i.name for i in inputs)
        # Every entry checked before anything runs.
        wanted = []
        for entry in shapes:
            if is_shape(entry):
                if len(inputs) != 1:
                    raise InvalidArgumentError(  # noqa: F405
                        f"{self.model} takes {len(inputs)} inputs ({names}); give "
                        "{input name: shape}")
                entry = {inputs[0].name: entry}
            if not isinstance(entry, dict):
                raise InvalidArgumentError(  # noqa: F405
                    f"precompile: {entry!r} is neither a shape nor {{input name: shape}}")
            unknown = set(entry) - {i.name for i in inputs}
            if unknown:
                raise InvalidArgumentError(  # noqa: F405
                    f"precompile: {self.model} has no input {sorted(unknown)[0]!r}; its "
                    f"inputs: {names}")
            for info in inputs:
                shape = entry.get(info.name)
                if shape is None:
                    raise InvalidArgumentError(  # noqa: F405
                        f"precompile: no shape for input '{info.name}' of {self.model}")
                if not is_shape(shape) or any(d < 0 for d in shape):
                    raise InvalidArgumentError(  # noqa: F405
                        f"precompile: input '{info.name}' shape {shape!r} is not a list of "
                        "sizes (ints, 0 or more)")
            wanted.append(entry)
        for entry in wanted:
            self.run({info.name: _np.zeros(entry[info.name], dtype="float32" if
                                           info.dtype == "bfloat16" else info.dtype)
                      for info in inputs})

    def replicate(self, devices):
        """Data-parallel replicas, as ``switchyard run --replicas``: one copy
        of the model per device of ``devices`` (``["cpu:0", "dnnl:0"]`` or
        ``"cpu:0,dnnl:0"``, each named once), and every ``run`` splits its batch along
        dimension 0 over them, runs the slices at the same time and joins
        the outputs in input order. This session's model serves the first
        device (the session moves there); the others load the same file (a
        built-in model's copies take its weights). ``None`` goes back to
        one device. Returns the session."""
        if isinstance(devices, str):  # "cpu:0,dnnl:0", as the command line takes it
            devices = [d.strip() for d in devices.split(",")]
        self._session.replicate(None if devices is None else list(devices))
        return self

    @property
    def replica_devices(self):
        """The replicas' devices ([] without replicas)."""
        return self._session.replica_devices

    def replica_summary(self):
        """What the replicas did over the runs since ``replicate``: per
        device its samples and busy time per run, busy share and images/s,
        and ``table`` as ``switchyard run --replicas`` prints it; None
        without replicas."""
        return self._session.replica_summary()

    def graph(self, batch=None, input_shape=None, seed=0):
        """What ``switchyard graph`` shows for this model on this session's
        device and placement, as a dict: "text" (the placed graph), "dot"
        (Graphviz), "placement" (auto placement's report), "fused" and
        "fused_groups" (what each backend runs as one kernel), "buffer_plan"
        ({"slots", "planned_bytes", "unplanned_bytes"}), "kernels" (what each
        kernel chose). Shapes: the declared ones with dimension 0 ``batch``
        (a symbolic one otherwise 1), or ``input_shape`` (a tuple for the
        only input, or {input name: shape}). A model whose shapes are decided
        while it runs has no one graph: {"staged": True, "steps": [...]},
        the steps of one run on inputs seeded from ``seed``."""
        if input_shape is None:
            shapes = {}
        elif isinstance(input_shape, dict):
            shapes = {name: [int(d) for d in shape] for name, shape in input_shape.items()}
        else:
            shapes = {"": [int(d) for d in input_shape]}
        return self._session.graph(batch, shapes, seed)

    def run_stats(self):
        """What an ONNX model's runs compiled and reused (plans_compiled,
        compile_ms, plan_cache_hits, host_steps, run_time_copies, ...)."""
        return self._session.run_stats()

    def set_max_loop_iterations(self, n):
        """Iterations one ONNX Loop node may run per run (default 100000)."""
        self._session.set_max_loop_iterations(n)

    def __repr__(self):
        return (f"switchyard.Session({self.model!r}, device={self.device!r}, "
                f"inputs={[i.name for i in self.inputs]}, "
                f"outputs={[o.name for o in self.outputs]})")


def diagnose(session, images=None, batch=8, image_size=224, batches=0,
             loader_threads=1, prefetch=2, resize=0, augment="eval",
             skip_bad=True, loader_cost_ms=0.0, loader_work="busy", warmup=1,
             seed=0, verbose=False):
    """Streams image batches through the input pipeline into ``session``'s
    model on its device and diagnoses the stream, as ``switchyard run
    --images=DIR --batches=N --report=r.json`` does. Returns a Diagnosis.

    ``images``: a folder (its files), a pattern ("photos/*.jpg") or a file;
    JPEG and PNG. ``None`` streams synthetic batches (``batches`` required),
    as ``switchyard run --batches=N``. The model must take one float32 input
    ``[batch, 3, image_size, image_size]``. ``batches=0`` is one pass over
    the files. ``loader_threads`` threads prepare batches; ``prefetch``
    ready batches wait for the device. ``augment``: "eval" (resize to
    ``resize``, 0 meaning image_size * 256 / 224, then center crop) or
    "train" (random resized crop and flip, seeded by ``seed``). A file that
    cannot be read or decoded is skipped and listed in
    ``images.bad_files`` (``skip_bad=True``, also printed on stderr with
    ``verbose=True``) or raises its error (``skip_bad=False``).
    ``loader_cost_ms`` adds that much work to every batch on its loader
    thread ("busy": CPU time; "sleep": waiting), to see what a slower loader
    would do. ``warmup`` untimed forwards run first.

    A model that takes one image ``[3, H, W]`` at its own size (a detector
    exported from torchvision) runs each image of ``images`` at its own
    size, one per run, as ``switchyard run --images=DIR`` does; the
    Diagnosis then has that command's ``--report`` fields: ``mode`` is
    "own_size", ``verdict`` "input_bound", "compile_bound" or "model_bound",
    ``diagnosis`` the sentence with its advice, ``images`` each image's
    size, times and ``detections``, ``bad_files``, ``median_ms``,
    ``compile_ms``. ``batch``, ``image_size``, ``resize``, ``augment``,
    ``batches``, the loader options and ``warmup`` do not apply to it.

    Raises NotFoundError when ``images`` matches no file.
    """
    s = session._session if isinstance(session, Session) else session
    if images is not None:
        images = _os.fspath(images)
        if images == "":
            raise InvalidArgumentError(  # noqa: F405
                "images='' names no folder; give a folder, a pattern or a file, "
                "or images=None for synthetic batches")
    return Diagnosis(s.diagnose(
        images or "", int(batch), int(image_size), int(resize), str(augment),
        int(batches), int(loader_threads), int(prefetch), float(loader_cost_ms),
        str(loader_work), bool(skip_bad), bool(verbose), int(warmup), int(seed)))
