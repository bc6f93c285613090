"""cudaccl.label: one image, on engines cached per thread, backend and device."""
import ctypes
import math
import numbers
import struct
import threading
import weakref

from . import _arrays, _lib, _table
from ._errors import UnsupportedError

_label = _lib.lib.ccl_engine_label
# Queues a device frame without waiting for it (None with an older libccl).
_submit = getattr(_lib.lib, "ccl_engine_submit", None)
_wait = getattr(_lib.lib, "ccl_engine_wait", None)
_COUNT_PENDING = 0xFFFFFFFF  # CCL_COUNT_PENDING: a count not known yet
_options_cache = {}
_plans = {}  # label()'s settings (and memory kind) -> _plan()
_algorithm_index = {name: i for i, name in enumerate(_lib.algorithms())}
_usable = {}
_profiling = [False]


class _Engines(dict):
    """A thread's cached engines: destroyed when the thread's state goes (thread exit).
    `submitted`: the table (weakly) of the frame label() left in flight, made before
    its engine goes, since the table may live on in another thread."""
    submitted = None

    def __del__(self):
        table = self.submitted() if self.submitted is not None else None
        if table is not None:
            try:
                table._settle()
            except Exception:  # noqa: BLE001 - its reads raise the same error later
                pass
        destroy = _lib.lib.ccl_engine_destroy
        for handle in self.values():
            destroy(handle)


class _ThreadState(threading.local):
    def __init__(self):
        self.engines = _Engines()
        self.image = _lib.Image(size=ctypes.sizeof(_lib.Image))
        self.labels = _lib.Labels(size=ctypes.sizeof(_lib.Labels))
        self.result = _lib.Result(size=ctypes.sizeof(_lib.Result))
        self.image_at = ctypes.addressof(self.image)
        self.labels_at = ctypes.addressof(self.labels)
        self.image_bytes = memoryview(self.image).cast("B")
        self.labels_bytes = memoryview(self.labels).cast("B")
        self.result_at = ctypes.addressof(self.result)
        self.called = False
        self.pool = []  # host buffers of returned arrays (_pool.py)
        # The lock that settling a table of a frame label() did not wait for takes
        # (_table.submitted_table; the table itself: engines.submitted).
        self.lock = threading.Lock()


_state = _ThreadState()


def create_engine(backend, device):
    handle = ctypes.c_void_p()
    _lib.check(_lib.lib.ccl_engine_create(backend, device, ctypes.byref(handle)))
    if _profiling[0]:
        _lib.check(_lib.lib.ccl_engine_set_profiling(handle, 1))
    return handle.value


def cuda_usable(device=-1):
    """True when the CUDA backend can run on `device` (-1: the current one)."""
    if device not in _usable:
        why = ctypes.create_string_buffer(512)
        ok = bool(_lib.lib.ccl_cuda_device_usable(device, why, len(why)))
        _usable[device] = (ok, why.value.decode("utf-8", "replace"))
    return _usable[device][0]


def cuda_unusable_reason(device=-1):
    cuda_usable(device)
    return _usable[device][1]


def set_profiling(on):
    """Times the engine's GPU work of every following call (last_call_info()['gpu_ms']);
    costs a few CUDA events per frame."""
    _profiling[0] = bool(on)
    for handle in _state.engines.values():
        _lib.check(_lib.lib.ccl_engine_set_profiling(handle, int(bool(on))))


def choose_backend(backend, memory, device):
    """The ccl_backend a call runs on: ValueError for a name outside auto/cuda/cpu,
    TypeError for device memory on the CPU backend."""
    if backend == "auto":
        if memory == _lib.MEMORY_DEVICE:
            return _lib.BACKEND_CUDA
        return _lib.BACKEND_CUDA if cuda_usable(-1) else _lib.BACKEND_CPU
    if backend == "cuda":
        return _lib.BACKEND_CUDA
    if backend == "cpu":
        if memory == _lib.MEMORY_DEVICE:
            raise TypeError("backend='cpu' reads host arrays only: this image is in CUDA "
                            "device memory (use backend='cuda' or 'auto', or copy it to "
                            "the host first)")
        return _lib.BACKEND_CPU
    raise ValueError(f"backend must be 'auto', 'cuda' or 'cpu', not {backend!r}")


def _int_in(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            import numpy as np
            if isinstance(value, np.integer):
                value = int(value)
            else:
                raise TypeError
        except TypeError:
            raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be within {lo}..{hi}, not {value}")
    return value


# What properties= takes: the blob columns by name, "color_mean" for its three columns,
# "all" for every one; and the names of the columns every table has (skimage's
# property names), accepted with nothing to add.
_BLOB_BITS = dict(_lib.BLOB_COLUMNS)
_BLOB_NAMES = [name for name, _ in _lib.BLOB_COLUMNS]
_ALWAYS = ("label", "bbox", "area", "centroid", "moments", "moments_image")
FILTERS = ("min_circularity", "max_circularity", "min_intensity", "max_intensity",
           "min_eccentricity", "max_eccentricity")


def has_blobs():
    """True when the loaded libccl has blob analysis (ccl_engine_blob_columns)."""
    return hasattr(_lib.lib, "ccl_engine_blob_columns")


def parse_properties(properties):
    """(ccl_options.properties bits, blob column names in the order asked) of a
    properties= value: None, "all", one name, or a sequence of names."""
    if properties is None:
        return 0, ()
    if isinstance(properties, str):
        properties = (properties,)
    try:
        asked = list(properties)
    except TypeError:
        raise TypeError("properties must be a list of property names or 'all', not "
                        f"{type(properties).__name__}") from None
    names = []
    for name in asked:
        if not isinstance(name, str):
            raise TypeError(f"properties holds {name!r}: property names are strings")
        if name == "all":
            expanded = _BLOB_NAMES
        elif name == "color_mean":
            expanded = ["color_mean-0", "color_mean-1", "color_mean-2"]
        elif name in _BLOB_BITS:
            expanded = [name]
        elif name in _ALWAYS:
            expanded = []
        else:
            raise ValueError(f"unknown property {name!r}: properties are 'all' or any of "
                             f"{', '.join(_BLOB_NAMES)} (and color_mean for its three)")
        names += [n for n in expanded if n not in names]
    if names and not has_blobs():
        raise UnsupportedError(f"properties: {_lib.path} has no blob analysis "
                               "(ccl_engine_blob_columns): a libccl older than this package")
    bits = 0
    for name in names:
        bits |= _BLOB_BITS[name]
    return bits, tuple(names)


def _bound(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0 (a max of 0: no limit), "
                         f"not {value}")
    return value


def make_options(connectivity=8, threshold=128, mode="above", algorithm=None, min_area=0,
                 max_components=None, write_labels=True, foreground="threshold", **model):
    """A filled ccl_options, or ValueError/TypeError naming the bad setting."""
    o = _lib.default_options()
    if connectivity not in (4, 8) or isinstance(connectivity, bool):
        raise ValueError(f"connectivity must be 4 or 8, not {connectivity!r}")
    o.connectivity = int(connectivity)
    o.threshold = _int_in("threshold", threshold, 0, 255)
    if mode not in _lib.MODES:
        raise ValueError(f"mode must be 'above', 'below' or 'otsu', not {mode!r}")
    o.mode = _lib.MODES[mode]
    if algorithm is not None:
        if algorithm not in _algorithm_index:
            raise ValueError(f"algorithm must be one of {', '.join(_algorithm_index)}, "
                             f"not {algorithm!r}")
        o.algorithm = _algorithm_index[algorithm]
    o.min_area = _int_in("min_area", min_area, 0, (1 << 63) - 1)
    if max_components is not None:
        o.max_components = _int_in("max_components", max_components, 1, (1 << 32) - 1)
    o.write_labels = int(bool(write_labels))
    if foreground not in _lib.FOREGROUNDS:
        raise ValueError(f"foreground must be one of {', '.join(_lib.FOREGROUNDS)}, "
                         f"not {foreground!r}")
    o.foreground = _lib.FOREGROUNDS[foreground]
    for name, value in model.items():
        if name in ("color_low", "color_high"):
            if len(value) != 3:
                raise ValueError(f"{name} is (H, S, V), not {value!r}")
            getattr(o, name)[:] = [_int_in(name, v, 0, 255) for v in value]
        elif name in ("learning_rate", "variance_threshold", "offset"):
            setattr(o, name, float(value))
        elif name in ("detect_shadows", "compensate_light"):
            setattr(o, name, int(bool(value)))
        elif name == "group_gap":
            o.group_gap = _int_in(name, value, -1, 1024)
        elif name == "properties":
            o.properties = parse_properties(value)[0]
        elif name in FILTERS:
            setattr(o, name, _bound(name, value))
        elif name in ("history", "block_size", "open_radius", "close_radius"):
            setattr(o, name, _int_in(name, value, -(1 << 31), (1 << 31) - 1))
        else:
            raise TypeError(f"unknown setting {name!r}")
    for what in ("circularity", "intensity", "eccentricity"):
        lo, hi = getattr(o, "min_" + what), getattr(o, "max_" + what)
        if hi and hi < lo:
            raise ValueError(f"max_{what} {hi} is below min_{what} {lo} "
                             "(a max of 0: no limit)")
    if any(getattr(o, name) for name in FILTERS) and not has_blobs():
        raise UnsupportedError(f"blob filters: {_lib.path} has no blob analysis: a libccl "
                               "older than this package")
    return o


def _options(key, kinds=()):
    """(address of the ccl_options, blob column names, the ccl_options) of label()'s
    settings. kinds: the settings' types, part of the cache key (128.0 == 128 as a key,
    yet only one of them is a valid threshold)."""
    entry = _options_cache.get((key, kinds))
    if entry is None:
        (connectivity, threshold, mode, algorithm, min_area, max_components, write, none,
         blob, filters) = key
        names = blob[1] if blob else ()
        o = make_options(connectivity, threshold, mode, algorithm, min_area, max_components,
                         write, properties=names, **dict(zip(FILTERS, filters)))
        if none:
            o.max_components = 0  # the table stays on the device (label())
        entry = (o, ctypes.addressof(o), names)
        if len(_options_cache) > 256:  # settings that change every call: keep it bounded
            _options_cache.clear()
        _options_cache[(key, kinds)] = entry
    return entry[1], entry[2], entry[0]


def engine_for(backend, device):
    engines = _state.engines
    handle = engines.get((backend, device))
    if handle is None:
        handle = engines[(backend, device)] = create_engine(backend, device)
    return handle


# The image and labels structs filled with one pack_into each (setting seven ctypes
# fields one by one costs several times as much): the members after `size`.
_IMAGE_FIELDS = struct.Struct("=iiiixxxxQqQ")  # width .. stream, from offset 4
_LABELS_FIELDS = struct.Struct("=Qqi")           # data, stride, memory, from offset 8
assert (_lib.Image.width.offset, _lib.Image.data.offset, _lib.Image.stream.offset,
        _lib.Labels.data.offset, _lib.Labels.memory.offset) == (4, 24, 40, 8, 24)


def settle_submitted(state, counts):
    """Waits for the frame label() left in flight on this thread and queues the columns
    of its table, if the table is still held: the engine's next frame would overwrite
    what they are made from. With `counts`, state.result gets the frame's counts even
    when nobody holds the table (last_call_info); otherwise the engine's next call
    waits for the frame itself."""
    engines = state.engines
    table = engines.submitted()
    if table is not None:
        table._settle()
    elif counts:
        with state.lock:
            _lib.check(_wait(state.submitted_engine, state.result_at))
    engines.submitted = None


def run(engine, foreground, x, options_at, want_labels, state, call=_label):
    """Labels Input x on `engine`; returns (labels or None, reported count)."""
    _IMAGE_FIELDS.pack_into(state.image_bytes, 4, x.width, x.height, x.format, x.memory,
                            x.pointer, x.stride, x.stream)
    labels = None
    labels_at = None
    if want_labels:
        labels, pointer, memory = _arrays.labels_for(x, state.pool)
        _LABELS_FIELDS.pack_into(state.labels_bytes, 8, pointer, x.width * 4, memory)
        labels_at = state.labels_at
    status = call(engine, foreground, state.image_at, options_at, labels_at, state.result_at)
    if status:
        raise _lib.error(status)
    state.called = True
    return labels, state.result.num_reported


def _kinds(connectivity, threshold, min_area, max_components, return_labels, filters):
    return (type(connectivity), type(threshold), type(min_area), type(max_components),
            type(return_labels), tuple(map(type, filters)))


def _plan(key, x, connectivity, threshold, mode, algorithm, min_area, max_components,
          return_labels, backend, properties, filters):
    """What a call with these settings on an input like x does, checked once:
    (backend, ccl_options address, blob names, device table?, device image?, the
    ccl_options). Raises for bad settings."""
    b = choose_backend(backend, x.memory, x.device)
    blob = None if properties is None else parse_properties(properties)
    # A device image's table stays on the device when every component is reported and
    # no blob property is asked for: the engine reports none to the host
    # (max_components 0) and a kernel writes the columns into arrays of the image's
    # kind. With a selection (min_area, max_components, blob filters) or blob columns
    # the reported rows come through the host and go back up.
    on_device = x.memory == _lib.MEMORY_DEVICE
    everything = (on_device and max_components is None and min_area in (0, 1) and
                  not (blob and blob[1]) and not any(filters))
    options_at, names, options = _options((connectivity, threshold, mode, algorithm,
                                           min_area, max_components, bool(return_labels),
                                           everything, blob, filters),
                                          key[-6:] if key is not None else
                                          _kinds(connectivity, threshold, min_area,
                                                 max_components, return_labels, filters))
    # The plan holds the ccl_options itself, not only its address: _options_cache may
    # drop it while the plan lives on.
    plan = (b, options_at, names, everything, on_device, options)
    if key is not None:
        if len(_plans) > 256:  # settings that change every call: keep it bounded
            _plans.clear()
        _plans[key] = plan
    return plan


def label(image, connectivity=8, threshold=128, mode="above", algorithm=None, min_area=0,
          max_components=None, return_labels=True, backend="auto", properties=None,
          min_circularity=0.0, max_circularity=0.0, min_intensity=0.0, max_intensity=0.0,
          min_eccentricity=0.0, max_eccentricity=0.0):
    x = _arrays.adapt(image)
    filters = (min_circularity, max_circularity, min_intensity, max_intensity,
               min_eccentricity, max_eccentricity)
    # The settings' checked form, looked up by the settings themselves. Their types
    # are part of the key: 128.0 equals 128 (and True equals 1) as a dict key, yet one
    # is refused where the other is accepted.
    key = (x.memory, connectivity, threshold, mode, algorithm, min_area, max_components,
           return_labels, backend, properties, filters, type(connectivity), type(threshold),
           type(min_area), type(max_components), type(return_labels),
           tuple(map(type, filters)))  # the last six: _kinds()
    try:
        plan = _plans.get(key)
    except TypeError:  # unhashable settings (properties as a list): checked each call
        plan = key = None
    if plan is None:
        plan = _plan(key, x, connectivity, threshold, mode, algorithm, min_area,
                     max_components, return_labels, backend, properties, filters)
    b, options_at, names, everything, on_device, _ = plan
    state = _state
    device = x.device if b else -1  # BACKEND_CUDA is 1, BACKEND_CPU 0
    engine = state.engines.get((b, device)) or engine_for(b, device)
    if state.engines.submitted is not None:
        settle_submitted(state, False)
    if everything and _submit is not None and x.kind == "cupy" and not _profiling[0]:
        # Nothing of the result is needed on the host now: the call queues the frame
        # and returns, and the table waits for it when first read.
        labels, _ = run(engine, None, x, options_at, return_labels, state, _submit)
        if state.result.num_components != _COUNT_PENDING:  # labeled all the same
            return labels, _table.device_table(engine, state.result.num_components, x)
        table = _table.submitted_table(engine, x, state.lock, state.result, state.result_at)
        state.engines.submitted = weakref.ref(table)
        state.submitted_engine = engine
        return labels, table
    labels, n = run(engine, None, x, options_at, return_labels, state)
    if everything:
        return labels, _table.device_table(engine, state.result.num_components, x)
    table = _table.engine_table(engine, n, state.pool, names)
    return labels, _table.to_device(table, x) if on_device else table


def last_call_info():
    """What this thread's last label() or Labeler call did (dict), None before any."""
    if not _state.called:
        return None
    if _state.engines.submitted is not None:  # its counts are known once waited for
        settle_submitted(_state, True)
    r = _state.result
    return {"backend": "cuda" if r.backend == _lib.BACKEND_CUDA else "cpu",
            "device": r.device, "width": r.width, "height": r.height,
            "threshold_used": r.threshold_used, "num_components": r.num_components,
            "num_reported": r.num_reported, "read_pointer": r.read_pointer,
            "read_memory": "device" if r.read_memory == _lib.MEMORY_DEVICE else "host",
            "stream": r.stream, "gpu_ms": r.gpu_ms}
