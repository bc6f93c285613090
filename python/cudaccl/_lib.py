"""Loads libccl and declares its C interface (ccl/ccl.h) for ctypes, once per process.

Where the library comes from, first found wins: the environment variable
CUDACCL_LIBRARY (a path), the path the build or the install wrote into _paths.py (a
relative one, as the pip-installed wheel has, is the library inside this package's
directory), then the system's search (ctypes.util.find_library("ccl"))."""
import ctypes
import ctypes.util
import os

from ._errors import CclError, CudaError, UnsupportedError

try:
    from ._paths import LIBRARY as _CONFIGURED
except ImportError:  # a copy of the sources without the generated file
    _CONFIGURED = ""
if _CONFIGURED and not os.path.isabs(_CONFIGURED):  # the wheel's own libccl, beside us
    _CONFIGURED = os.path.join(os.path.dirname(os.path.abspath(__file__)), _CONFIGURED)

ABI_VERSION = 1

BACKEND_CPU, BACKEND_CUDA = 0, 1
MEMORY_HOST, MEMORY_DEVICE = 0, 1
FORMAT_GRAY8, FORMAT_GRAY16LE, FORMAT_RGB, FORMAT_RGBA = 0, 1, 2, 3
MODES = {"above": 0, "below": 1, "otsu": 2}
FOREGROUNDS = {"threshold": 0, "background": 1, "local": 2, "color": 3}

INT_COLUMNS = ["label", "bbox-0", "bbox-1", "bbox-2", "bbox-3", "area",
               "moments_image-1-0", "moments_image-0-1", "moments_image-2-0",
               "moments_image-1-1", "moments_image-0-2"]
FLOAT_COLUMNS = ["centroid-0", "centroid-1", "moments-0-0", "moments-1-0", "moments-0-1",
                 "moments-2-0", "moments-1-1", "moments-0-2"]

# Blob analysis: the property bits of ccl_options.properties, and the columns
# ccl_engine_blob_columns writes (the CCL_BLOB_COL_* order of ccl.h) with the bit each
# needs (0: from the moments, always there).
PROPERTY_INTENSITY, PROPERTY_COLOR, PROPERTY_PERIMETER, PROPERTY_EULER = 1, 2, 4, 8
BLOB_COLUMNS = [
    ("intensity_mean", PROPERTY_INTENSITY), ("intensity_std", PROPERTY_INTENSITY),
    ("intensity_min", PROPERTY_INTENSITY), ("intensity_max", PROPERTY_INTENSITY),
    ("color_mean-0", PROPERTY_COLOR), ("color_mean-1", PROPERTY_COLOR),
    ("color_mean-2", PROPERTY_COLOR),
    ("perimeter", PROPERTY_PERIMETER), ("circularity", PROPERTY_PERIMETER),
    ("euler_number", PROPERTY_EULER),
    ("orientation", 0), ("axis_major_length", 0), ("axis_minor_length", 0),
    ("eccentricity", 0), ("inertia_ratio", 0)]

_u32, _i32, _i64, _u64 = ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
_f64, _ptr = ctypes.c_double, ctypes.c_void_p


class Image(ctypes.Structure):
    _fields_ = [("size", _u32), ("width", _i32), ("height", _i32), ("format", _i32),
                ("memory", _i32), ("data", _ptr), ("stride", _i64), ("stream", ctypes.c_size_t)]


class Options(ctypes.Structure):
    _fields_ = [("size", _u32), ("threshold", _i32), ("mode", _i32), ("connectivity", _i32),
                ("algorithm", _i32), ("write_labels", _i32), ("max_components", _u32),
                ("min_area", _u64), ("max_area", _u64), ("foreground", _i32),
                ("history", _i32), ("learning_rate", _f64), ("variance_threshold", _f64),
                ("detect_shadows", _i32), ("block_size", _i32), ("offset", _f64),
                ("color_low", _i32 * 3), ("color_high", _i32 * 3),
                ("open_radius", _i32), ("close_radius", _i32),
                ("compensate_light", _i32), ("group_gap", _i32),
                ("properties", _u32), ("min_circularity", _f64), ("max_circularity", _f64),
                ("min_intensity", _f64), ("max_intensity", _f64),
                ("min_eccentricity", _f64), ("max_eccentricity", _f64)]


assert ctypes.sizeof(Options) == 184, "Options mirrors ccl_options"


class Labels(ctypes.Structure):
    _fields_ = [("size", _u32), ("data", _ptr), ("stride", _i64), ("memory", _i32)]


class Result(ctypes.Structure):
    _fields_ = [("size", _u32), ("width", _i32), ("height", _i32), ("threshold_used", _i32),
                ("num_components", _u32), ("num_reported", _u32), ("backend", _i32),
                ("device", _i32), ("read_pointer", ctypes.c_size_t), ("read_memory", _i32),
                ("stream", ctypes.c_size_t), ("gpu_ms", ctypes.c_float)]


class TrackerOptions(ctypes.Structure):
    _fields_ = [("size", _u32), ("max_lost", _i32)]


# Counting lines and zones (ccl_events_*): the kinds' names, as docs/EVENTS.md names them,
# in the order of the CCL_EVENT_* values.
EVENT_KINDS = ("line-forward", "line-backward", "zone-enter", "zone-exit", "zone-max")
MAX_EVENT_LINES = MAX_EVENT_ZONES = 64


class EventsConfig(ctypes.Structure):
    _fields_ = [("size", _u32), ("n_lines", _u32), ("n_zones", _u32), ("forget_after", _u32),
                ("lines", _ptr), ("zone_points", _ptr), ("zone_xy", _ptr), ("zone_max", _ptr),
                ("width", _i32), ("height", _i32)]


class Event(ctypes.Structure):
    _fields_ = [("kind", _u32), ("index", _u32), ("track_id", _u32), ("count", _u32),
                ("x", _f64), ("y", _f64), ("frame", _u64), ("running_time", _i64),
                ("entry_time", _i64)]


assert ctypes.sizeof(Event) == 56, "Event mirrors ccl_event"


class ZoneDwell(ctypes.Structure):
    _fields_ = [("size", _u32), ("frames", _u32), ("entry_frame", _u64), ("entry_time", _i64)]


def _find():
    path = os.environ.get("CUDACCL_LIBRARY")
    if path:
        return path, "CUDACCL_LIBRARY"
    if _CONFIGURED and os.path.exists(_CONFIGURED):
        return _CONFIGURED, "the configured path"
    found = ctypes.util.find_library("ccl")
    if found:
        return found, "the system's library search"
    return "libccl.so.0", "the dynamic loader's search"


def _load():
    path, source = _find()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"cudaccl: cannot load libccl from {path} ({source}): {e}; "
                          "set CUDACCL_LIBRARY to the path of libccl.so") from e
    try:
        abi = lib.ccl_abi_version
    except AttributeError as e:
        raise ImportError(f"cudaccl: {path} has no C interface (ccl_abi_version): "
                          "a libccl older than this package") from e
    abi.restype = ctypes.c_int
    if abi() != ABI_VERSION:
        raise ImportError(f"cudaccl: {path} has C interface version {abi()}, "
                          f"this package needs {ABI_VERSION}")

    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)
        return f

    c = ctypes.c_char_p
    fn("ccl_version", c)
    fn("ccl_last_error", c)
    fn("ccl_last_cuda_error", ctypes.c_int)
    fn("ccl_last_cuda_error_name", c)
    fn("ccl_cuda_compiled", ctypes.c_int)
    fn("ccl_cuda_device_usable", ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
    fn("ccl_cuda_pointer_device", ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int))
    fn("ccl_algorithm_count", ctypes.c_int)
    fn("ccl_algorithm_name", c, ctypes.c_int)
    fn("ccl_options_init", None, _ptr)
    fn("ccl_tracker_options_init", None, _ptr)
    fn("ccl_engine_create", ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_ptr))
    fn("ccl_engine_destroy", None, _ptr)
    fn("ccl_engine_set_profiling", ctypes.c_int, _ptr, ctypes.c_int)
    # Pointers travel as plain integers: no ctypes objects are made per call.
    fn("ccl_engine_label", ctypes.c_int, _ptr, _ptr, _ptr, _ptr, _ptr, _ptr)
    if hasattr(lib, "ccl_engine_submit"):  # absent from an older libccl
        fn("ccl_engine_submit", ctypes.c_int, _ptr, _ptr, _ptr, _ptr, _ptr, _ptr)
        fn("ccl_engine_wait", ctypes.c_int, _ptr, _ptr)
        fn("ccl_engine_device_columns_on", ctypes.c_int, _ptr, _ptr, _ptr, ctypes.c_size_t)
    fn("ccl_engine_components", ctypes.c_int, _ptr, ctypes.POINTER(_ptr), ctypes.POINTER(_u32))
    fn("ccl_engine_columns", ctypes.c_int, _ptr, _ptr, _ptr)
    fn("ccl_engine_device_columns", ctypes.c_int, _ptr, _ptr, _ptr)
    if hasattr(lib, "ccl_engine_blob_columns"):  # absent from a libccl without blobs
        fn("ccl_engine_blobs", ctypes.c_int, _ptr, ctypes.POINTER(_ptr), ctypes.POINTER(_u32))
        fn("ccl_engine_blob_columns", ctypes.c_int, _ptr, _ptr)
    fn("ccl_foreground_create", ctypes.c_int, _ptr, ctypes.POINTER(_ptr))
    fn("ccl_foreground_destroy", None, _ptr)
    fn("ccl_foreground_reset", ctypes.c_int, _ptr)
    fn("ccl_tracker_create", ctypes.c_int, _ptr, ctypes.POINTER(_ptr))
    fn("ccl_tracker_destroy", None, _ptr)
    fn("ccl_tracker_reset", ctypes.c_int, _ptr, ctypes.c_int)
    fn("ccl_tracker_update", ctypes.c_int, _ptr, ctypes.c_int, ctypes.c_int, _ptr,
       ctypes.c_size_t, _ptr)
    fn("ccl_tracker_update_engine", ctypes.c_int, _ptr, _ptr, _ptr)
    if hasattr(lib, "ccl_events_create"):  # absent from a libccl without lines and zones
        fn("ccl_events_config_init", None, _ptr)
        fn("ccl_events_create", ctypes.c_int, ctypes.POINTER(_ptr))
        fn("ccl_events_destroy", None, _ptr)
        fn("ccl_events_configure", ctypes.c_int, _ptr, _ptr)
        fn("ccl_events_reset", ctypes.c_int, _ptr)
        fn("ccl_events_update", ctypes.c_int, _ptr, _ptr, _ptr, _ptr, _u32, _u64, _i64)
        fn("ccl_events_update_engine", ctypes.c_int, _ptr, _ptr, _ptr, _u64, _i64)
        fn("ccl_events_line_counts", ctypes.c_int, _ptr, _ptr, _ptr)
        fn("ccl_events_zone_counts", ctypes.c_int, _ptr, _ptr, _ptr, _ptr)
        fn("ccl_events_events", ctypes.c_int, _ptr, ctypes.POINTER(_ptr), ctypes.POINTER(_u32))
        fn("ccl_events_dwell", ctypes.c_int, _ptr, _u32, _u32, _ptr)
    return lib, path


lib, path = _load()

STATUS_NAMES = {1: "invalid argument", 2: "CUDA error", 3: "out of memory", 4: "unsupported",
                5: "internal error"}


def error(status):
    """The exception for a failed call's status, with this thread's message."""
    message = lib.ccl_last_error().decode("utf-8", "replace")
    if status == 1:
        return ValueError(message)
    if status in (2, 3) and lib.ccl_last_cuda_error():
        name = lib.ccl_last_cuda_error_name().decode()
        return CudaError(message, name, lib.ccl_last_cuda_error())
    if status == 3:
        return MemoryError(message)
    if status == 4:
        return UnsupportedError(message)
    return CclError(f"{STATUS_NAMES.get(status, status)}: {message}")


def check(status):
    if status:
        raise error(status)


def algorithms():
    return [lib.ccl_algorithm_name(i).decode() for i in range(lib.ccl_algorithm_count())]


def default_options():
    o = Options()
    lib.ccl_options_init(ctypes.addressof(o))
    return o
