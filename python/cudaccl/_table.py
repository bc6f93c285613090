"""The component table as columns named as skimage.measure.regionprops_table names them."""
import numpy as np

from . import _lib, _pool

_INTS = len(_lib.INT_COLUMNS)
_FLOATS = len(_lib.FLOAT_COLUMNS)
_BLOBS = len(_lib.BLOB_COLUMNS)
_BLOB_ROW = {name: i for i, (name, _) in enumerate(_lib.BLOB_COLUMNS)}
_INT_BLOB_COLUMNS = ("euler_number",)  # integers in skimage's tables too
_columns = _lib.lib.ccl_engine_columns
_device_columns = _lib.lib.ccl_engine_device_columns


def engine_table(engine, n, pool, blob_names=()):
    """The columns of the engine's last frame (n reported components), arrays that no
    later call touches: one buffer (from `pool`, _pool.py), each column a row of it;
    then the blob columns `blob_names` (ccl_engine_blob_columns), in that order."""
    block = _pool.empty(pool, (_INTS + _FLOATS, n), np.float64, (_INTS + _FLOATS) * n * 8)
    ints = block[:_INTS].view(np.int64)
    floats = block[_INTS:]
    if n:
        base = block.__array_interface__["data"][0]
        _lib.check(_columns(engine, base, base + _INTS * n * 8))
    # Iterating a 2-D array yields its rows as views, at C speed.
    table = dict(zip(_lib.INT_COLUMNS, ints))
    table.update(zip(_lib.FLOAT_COLUMNS, floats))
    if blob_names:
        blobs = _pool.empty(pool, (_BLOBS, n), np.float64, _BLOBS * n * 8)
        if n:
            _lib.check(_lib.lib.ccl_engine_blob_columns(
                engine, blobs.__array_interface__["data"][0]))
        for name in blob_names:
            row = blobs[_BLOB_ROW[name]]
            table[name] = row.astype(np.int64) if name in _INT_BLOB_COLUMNS else row
    return table


def device_table(engine, n, x):
    """The columns of the engine's last frame (all n components), computed on the device
    into arrays of the input's kind (CuPy, or torch for torch tensors): the table never
    crosses the bus. One allocation; each column a view of one of its rows."""
    rows = _INTS + _FLOATS
    if x.kind == "torch":
        import torch
        block = torch.empty((rows, n), dtype=torch.float64, device=x.owner.device)
        base = block.data_ptr()
    else:
        import cupy
        with cupy.cuda.Device(x.device):
            block = cupy.empty((rows, n), cupy.float64)
        base = block.data.ptr
    if n:
        _lib.check(_device_columns(engine, base, base + _INTS * n * 8))
    if x.kind == "torch":
        columns = block[:_INTS].view(torch.int64).unbind(0) + block[_INTS:].unbind(0)
    elif n == 0:
        columns = [block[0].view(np.int64)] * _INTS + [block[0]] * _FLOATS
    else:
        # Made from the allocation directly: a CuPy array's indexing costs about half
        # again as much per column, and a frame's 19 columns are most of the call.
        memptr, ndarray = block.data, cupy.ndarray
        columns = [ndarray((n,), np.int64, memptr + 8 * n * i) for i in range(_INTS)]
        columns += [ndarray((n,), np.float64, memptr + 8 * n * i) for i in range(_INTS, rows)]
    return dict(zip(_lib.INT_COLUMNS + _lib.FLOAT_COLUMNS, columns))


def to_device(table, x):
    """A host table (dict of NumPy columns) as arrays of x's kind on x's device: the
    columns of each dtype stacked into one block and uploaded with one copy, each column
    a view of its row (a copy per column cost tens of microseconds each)."""
    by_dtype = {}
    for k, v in table.items():
        by_dtype.setdefault(np.asarray(v).dtype, []).append(k)
    out = {}
    for dtype, names in by_dtype.items():
        block = np.stack([np.asarray(table[k]) for k in names])
        if x.kind == "torch":
            import torch
            device_block = torch.as_tensor(block, device=x.owner.device)
        else:
            import cupy
            with cupy.cuda.Device(x.device):
                device_block = cupy.asarray(block)
        out.update(zip(names, device_block))
    return {k: out[k] for k in table}
