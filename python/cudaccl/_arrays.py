"""What an input array is: host or device memory, its pixels' layout and the stream its
producer works on; and labels allocated as the same kind of array.

Device arrays are read where they are, through __cuda_array_interface__ (version 3:
CuPy, PyTorch, Numba, ...); host arrays through NumPy (PyTorch CPU tensors as NumPy
views of their own memory)."""
import numpy as np

from . import _lib, _pool

_MAX_PIXELS = (1 << 31) - 1
_TYPESTRS = {"|u1": 1, "<u2": 2, "=u2": 2}
_NUMPY_ITEMS = {np.dtype(np.uint8): 1, np.dtype("<u2"): 2}


class Input:
    """One frame as the C interface takes it; kind says how to make its labels."""
    __slots__ = ("kind", "memory", "width", "height", "format", "stride", "pointer",
                 "stream", "device", "owner")


def _layout(shape, itemsize, strides, what):
    """(height, width, format, row stride) of a 2-D gray or (H, W, 3|4) uint8 array;
    strides in bytes (None: C-contiguous). Raises ValueError or TypeError."""
    ndim = len(shape)
    if ndim == 3:
        if itemsize != 1:
            raise TypeError(f"{what}: a color image must be uint8, not {itemsize * 8}-bit")
        if shape[2] not in (3, 4):
            raise ValueError(f"{what}: a 3-D image is (height, width, 3) RGB or "
                             f"(height, width, 4) RGBA, not {tuple(shape)}")
        channels = shape[2]
        fmt = _lib.FORMAT_RGB if channels == 3 else _lib.FORMAT_RGBA
        pixel_bytes = channels
    elif ndim == 2:
        fmt = _lib.FORMAT_GRAY8 if itemsize == 1 else _lib.FORMAT_GRAY16LE
        pixel_bytes = itemsize
    else:
        raise ValueError(f"{what}: expected a 2-D gray image or a (height, width, 3) RGB "
                         f"image, got {ndim} dimension(s) {tuple(shape)}")
    height, width = int(shape[0]), int(shape[1])
    if height < 1 or width < 1:
        raise ValueError(f"{what}: the image is empty ({height}x{width})")
    if height * width > _MAX_PIXELS:
        raise ValueError(f"{what}: {height}x{width} pixels is more than 2^31-1")
    if strides is None:
        return height, width, fmt, width * pixel_bytes
    if ndim == 3 and (strides[2] != 1 or (width > 1 and strides[1] != pixel_bytes)):
        raise ValueError(f"{what}: the pixels of each row must be contiguous (strides "
                         f"{tuple(strides)} bytes; expected (any, {pixel_bytes}, 1))")
    if ndim == 2 and width > 1 and strides[1] != itemsize:
        raise ValueError(f"{what}: the inner dimension must be contiguous (strides "
                         f"{tuple(strides)} bytes, column stride must be {itemsize})")
    row = int(strides[0])
    if height > 1 and row < width * pixel_bytes:
        raise ValueError(f"{what}: row stride {row} bytes is negative or smaller than a row "
                         f"({width * pixel_bytes} bytes)")
    if height == 1:
        row = max(row, width * pixel_bytes)
    return height, width, fmt, row


def _host(array, kind, owner):
    dtype = array.dtype
    itemsize = _NUMPY_ITEMS.get(dtype)
    if itemsize is None:
        raise TypeError(f"image dtype must be uint8 or uint16 (little-endian), not {dtype}")
    x = Input()
    x.height, x.width, x.format, x.stride = _layout(array.shape, itemsize, array.strides,
                                                    "image")
    x.kind, x.memory, x.pointer = kind, _lib.MEMORY_HOST, array.__array_interface__["data"][0]
    x.stream, x.device, x.owner = 0, -1, owner
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
    import ctypes
    d = ctypes.c_int(-1)
    _lib.check(_lib.lib.ccl_cuda_pointer_device(pointer, ctypes.byref(d)))
    return d.value


def adapt(image):
    """The Input for `image`; TypeError or ValueError naming what is wrong with it."""
    if type(image) is np.ndarray:
        return _host(image, "numpy", image)
    module = type(image).__module__
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


def _cupy_labels(x):
    import cupy
    if cupy.cuda.runtime.getDevice() == x.device:
        return cupy.empty((x.height, x.width), cupy.int32)
    with cupy.cuda.Device(x.device):
        return cupy.empty((x.height, x.width), cupy.int32)


def labels_for(x, pool):
    """(array, pointer, memory) of an empty int32 label image of x's kind and device;
    NumPy ones from `pool` (_pool.py)."""
    kind = x.kind
    if kind == "numpy":
        a = _pool.empty(pool, (x.height, x.width), np.int32, x.height * x.width * 4)
        return a, a.__array_interface__["data"][0], _lib.MEMORY_HOST
    if kind == "cupy":
        a = _cupy_labels(x)
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
    a = _cupy_labels(x)
    return a, a.data.ptr, _lib.MEMORY_DEVICE
