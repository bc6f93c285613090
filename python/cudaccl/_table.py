"""The component table as columns named as skimage.measure.regionprops_table names them."""
import numpy as np

from . import _lib, _pool

_INTS = len(_lib.INT_COLUMNS)
_FLOATS = len(_lib.FLOAT_COLUMNS)
_columns = _lib.lib.ccl_engine_columns
_device_columns = _lib.lib.ccl_engine_device_columns


def engine_table(engine, n, pool):
    """The columns of the engine's last frame (n reported components), arrays that no
    later call touches: one buffer (from `pool`, _pool.py), each column a row of it."""
    block = _pool.empty(pool, (_INTS + _FLOATS, n), np.float64, (_INTS + _FLOATS) * n * 8)
    ints = block[:_INTS].view(np.int64)
    floats = block[_INTS:]
    if n:
        base = block.__array_interface__["data"][0]
        _lib.check(_columns(engine, base, base + _INTS * n * 8))
    # Iterating a 2-D array yields its rows as views, at C speed.
    table = dict(zip(_lib.INT_COLUMNS, ints))
    table.update(zip(_lib.FLOAT_COLUMNS, floats))
    return table


def _device_block(x, rows, n):
    """An uninitialized float64 (rows, n) array of x's kind on x's device, and its pointer."""
    if x.kind == "torch":
        import torch
        a = torch.empty((rows, n), dtype=torch.float64, device=x.owner.device)
        return a, a.data_ptr()
    import cupy
    with cupy.cuda.Device(x.device):
        a = cupy.empty((rows, n), cupy.float64)
    return a, a.data.ptr


def device_table(engine, n, x):
    """The columns of the engine's last frame (all n components), computed on the device
    into arrays of the input's kind (CuPy, or torch for torch tensors): the table never
    crosses the bus."""
    block, base = _device_block(x, _INTS + _FLOATS, n)
    if n:
        _lib.check(_device_columns(engine, base, base + _INTS * n * 8))
    if x.kind == "torch":
        import torch
        ints = block[:_INTS].view(torch.int64)
    else:
        ints = block[:_INTS].view(np.int64)
    table = dict(zip(_lib.INT_COLUMNS, ints))
    table.update(zip(_lib.FLOAT_COLUMNS, block[_INTS:]))
    return table


def to_device(table, x):
    """A host table (dict of NumPy columns) as arrays of x's kind on x's device."""
    if x.kind == "torch":
        import torch
        return {k: torch.as_tensor(v, device=x.owner.device) for k, v in table.items()}
    import cupy
    with cupy.cuda.Device(x.device):
        return {k: cupy.asarray(v) for k, v in table.items()}
