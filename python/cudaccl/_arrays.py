"""What an input array is: host or device memory, its pixels' layout and the stream its
producer works on; and labels allocated as the same kind of array.

Device arrays are read where they are, through __cuda_array_interface__ (version 3:
CuPy, PyTorch, Numba, ...); host arrays through NumPy (PyTorch CPU tensors as NumPy
views of their own memory). NumPy and CuPy arrays, the common case, are read from
their attributes instead: the interface dicts cost microseconds to build, more than
the rest of a small frame's call."""
import ctypes

import numpy as np

from . import _lib, _pool

_MAX_PIXELS = (1 << 31) - 1
_TYPESTRS = {"|u1": 1, "<u2": 2, "=u2": 2}
_NUMPY_ITEMS = {np.dtype(np.uint8): 1, np.dtype("<u2"): 2}
_INT32 = np.dtype(np.int32)
_ndarray = np.ndarray



def _data_offset():
    """Where an ndarray object keeps its data pointer (PyArrayObject's first member,
    right after the object header), or None when that does not hold here."""
    offset = object.__basicsize__
    probes = [np.zeros((3, 5), np.uint8), np.zeros((4, 4), np.int32)[1:, 2:]]
    read = ctypes.c_void_p.from_address
    for a in probes:
        if read(id(a) + offset).value != a.__array_interface__["data"][0]:
            return None
    return offset


# The data pointer read straight from the array object: __array_interface__ builds a
# dict of eight entries (0.8 us) and .ctypes an object (0.7 us) where this takes
# 0.15 us. Checked at import against __array_interface__, which stays the fallback
# (a NumPy or a Python build that lays the object out otherwise).
_OFFSET = _data_offset()
_read_pointer = ctypes.c_void_p.from_address


def data_pointer(array):
    """The address of a NumPy array's first element."""
    if _OFFSET is None:
        return array.__array_interface__["data"][0]
    return _read_pointer(id(array) + _OFFSET).value or 0


class Input:
    """One frame as the C interface takes it; kind says how to make its labels."""
    __slots__ = ("kind", "memory", "width", "height", "format", "stride", "pointer",
                 "stream", "device", "owner")


def _layout(shape, itemsize, strides, what):
    """(height, width, format, row stride) of a 2-D gray or (H, W, 3|4) uint8 array;
    strides in bytes (None: C-contiguous). Raises ValueError or TypeError."""
    ndim = len(shape)
    if ndim == 2:  # the common case first
        height, width = shape
        fmt = _lib.FORMAT_GRAY8 if itemsize == 1 else _lib.FORMAT_GRAY16LE
        pixel_bytes = itemsize
    elif ndim == 3:
        if itemsize != 1:
            raise TypeError(f"{what}: a color image must be uint8, not {itemsize * 8}-bit")
        height, width, channels = shape
        if channels not in (3, 4):
            raise ValueError(f"{what}: a 3-D image is (height, width, 3) RGB or "
                             f"(height, width, 4) RGBA, not {tuple(shape)}")
        fmt = _lib.FORMAT_RGB if channels == 3 else _lib.FORMAT_RGBA
        pixel_bytes = channels
    else:
        raise ValueError(f"{what}: expected a 2-D gray image or a (height, width, 3) RGB "
                         f"image, got {ndim} dimension(s) {tuple(shape)}")
    height, width = int(height), int(width)
    if height < 1 or width < 1:
        raise ValueError(f"{what}: the image is empty ({height}x{width})")
    if height * width > _MAX_PIXELS:
        raise ValueError(f"{what}: {height}x{width} pixels is more than 2^31-1")
    row_bytes = width * pixel_bytes
    if strides is None:
        return height, width, fmt, row_bytes
    if ndim == 2:
        if width > 1 and strides[1] != itemsize:
            raise ValueError(f"{what}: the inner dimension must be contiguous (strides "
                             f"{tuple(strides)} bytes, column stride must be {itemsize})")
    elif strides[2] != 1 or (width > 1 and strides[1] != pixel_bytes):
        raise ValueError(f"{what}: the pixels of each row must be contiguous (strides "
                         f"{tuple(strides)} bytes; expected (any, {pixel_bytes}, 1))")
    row = int(strides[0])
    if height > 1 and row < row_bytes:
        raise ValueError(f"{what}: row stride {row} bytes is negative or smaller than a row "
                         f"({row_bytes} bytes)")
    if height == 1:
        row = max(row, row_bytes)
    return height, width, fmt, row


def _shaped(array, dtype_text):
    """An Input holding the layout of a NumPy-like array of uint8 or uint16 pixels;
    dtype_text names the dtype in the error."""
    itemsize = _NUMPY_ITEMS.get(array.dtype)
    if itemsize is None:
        raise TypeError(f"image dtype must be uint8 or uint16 (little-endian), "
                        f"not {dtype_text}")
    x = Input()
    x.height, x.width, x.format, x.stride = _layout(array.shape, itemsize, array.strides,
                                                    "image")
    return x


def _host(array, kind, owner, pointer=None):
    x = _shaped(array, array.dtype)
    x.kind = kind
    x.memory = _lib.MEMORY_HOST
    x.pointer = data_pointer(array) if pointer is None else pointer
    x.stream = 0
    x.device = -1
    x.owner = owner
    return x


def _current_stream(kind):
    """The stream a framework's next work goes to, for CAI producers that name none."""
    if kind == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    if kind == "torch":
        import torch
        return torch.cuda.current_stream().cuda_stream
    return 0


def _device(cai_owner, kind, pointer):
    if kind == "cupy":
        return cai_owner.device.id
    if kind == "torch":
        return cai_owner.device.index
    d = ctypes.c_int(-1)
    _lib.check(_lib.lib.ccl_cuda_pointer_device(pointer, ctypes.byref(d)))
    return d.value


class _CupyFast:
    """CuPy's own functions for the stream its __cuda_array_interface__ names, looked
    up once; None where this CuPy lacks them (then the interface is read)."""
    resolved = False
    ndarray = None
    stream_ptr = None
    ptds = None


def _resolve_cupy():
    _CupyFast.resolved = True
    try:
        import cupy
        from cupy.cuda import stream as stream_module
        _CupyFast.stream_ptr = stream_module.get_current_stream_ptr
        _CupyFast.ptds = stream_module.is_ptds_enabled
        _CupyFast.ndarray = cupy.ndarray
    except (ImportError, AttributeError):
        _CupyFast.ndarray = None


def cupy_stream():
    """The stream CuPy's next work goes to, named as its __cuda_array_interface__ names
    it (the legacy (1) or per-thread (2) default stream for 0)."""
    if _CupyFast.stream_ptr is None:  # a CuPy without the fast lookup
        return _current_stream("cupy") or 1
    stream = _CupyFast.stream_ptr()
    if not stream:
        stream = 2 if _CupyFast.ptds() else 1
    return stream


def _cupy(image):
    """Input of a CuPy array from its attributes, naming the stream as CuPy's own
    __cuda_array_interface__ (v3) does: the current stream, the legacy (1) or
    per-thread (2) default stream for 0."""
    x = _shaped(image, image.dtype.str)
    memptr = image.data
    x.pointer = memptr.ptr
    x.stream = cupy_stream()
    x.kind, x.memory, x.owner = "cupy", _lib.MEMORY_DEVICE, image
    x.device = memptr.device_id
    return x


def adapt(image):
    """The Input for `image`; TypeError or ValueError naming what is wrong with it."""
    cls = type(image)
    if cls is np.ndarray:
        return _host(image, "numpy", image)
    if not _CupyFast.resolved and cls.__module__.startswith("cupy"):
        _resolve_cupy()
    if cls is _CupyFast.ndarray:
        return _cupy(image)
    module = cls.__module__
    kind = "cupy" if module.startswith("cupy") else "torch" if module.startswith("torch") else "cai"
    if kind == "torch":
        if image.device.type != "cuda":
            if image.device.type != "cpu":
                raise TypeError(f"image: a torch tensor on {image.device} (CPU or CUDA only)")
            return _host(image.detach().numpy(), "torch-cpu", image)
        image = image.detach()
    cai = getattr(image, "__cuda_array_interface__", None)
    if cai is None:
        if isinstance(image, np.ndarray) or hasattr(image, "__array_interface__"):
            return _host(np.asarray(image), "numpy", image)
        if hasattr(image, "__dlpack_device__"):
            raise TypeError(f"image: a {type(image).__name__} exposes DLPack only: pass it "
                            "through cupy.from_dlpack() or torch.from_dlpack() first")
        raise TypeError(f"image must be a NumPy, CuPy or PyTorch array (or expose "
                        f"__cuda_array_interface__), not {type(image).__name__}")
    typestr = cai["typestr"]
    itemsize = _TYPESTRS.get(typestr)
    if itemsize is None:
        raise TypeError(f"image dtype must be uint8 or uint16 (little-endian), not {typestr}")
    x = Input()
    x.height, x.width, x.format, x.stride = _layout(cai["shape"], itemsize, cai.get("strides"),
                                                    "image")
    x.pointer = cai["data"][0]
    stream = cai.get("stream")
    x.stream = stream if stream is not None else _current_stream(kind)
    x.kind, x.memory, x.owner = kind, _lib.MEMORY_DEVICE, image
    x.device = _device(image, kind, x.pointer)
    return x


def cupy_empty(shape, dtype, device):
    """An uninitialized CuPy array on `device` (cupy.ndarray directly: cupy.empty's
    wrapper and a device switch that is not needed cost as much as the allocation)."""
    import cupy
    if cupy.cuda.runtime.getDevice() == device:
        return cupy.ndarray(shape, dtype)
    with cupy.cuda.Device(device):
        return cupy.ndarray(shape, dtype)


def labels_for(x, pool):
    """(array, pointer, memory) of an empty int32 label image of x's kind and device;
    NumPy ones from `pool` (_pool.py)."""
    kind = x.kind
    if kind == "numpy":
        a = _pool.empty(pool, (x.height, x.width), _INT32, x.height * x.width * 4)
        return a, data_pointer(a), _lib.MEMORY_HOST
    if kind == "cupy":
        a = cupy_empty((x.height, x.width), _INT32, x.device)
        return a, a.data.ptr, _lib.MEMORY_DEVICE
    if kind == "torch":
        import torch
        a = torch.empty((x.height, x.width), dtype=torch.int32, device=x.owner.device)
        return a, a.data_ptr(), _lib.MEMORY_DEVICE
    if kind == "torch-cpu":
        import torch
        a = torch.empty((x.height, x.width), dtype=torch.int32)
        return a, a.data_ptr(), _lib.MEMORY_HOST
    # Another CAI producer: CuPy holds its labels when it is there.
    try:
        import cupy  # noqa: F401
    except ImportError:
        raise TypeError(f"labels of a {type(x.owner).__name__} device array are made as CuPy "
                        "arrays, and CuPy is not installed: install it, or pass "
                        "return_labels=False") from None
    a = cupy_empty((x.height, x.width), _INT32, x.device)
    return a, a.data.ptr, _lib.MEMORY_DEVICE
