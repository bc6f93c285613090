"""The component table as columns named as skimage.measure.regionprops_table names them."""
import numpy as np

from . import _arrays, _lib, _pool, _track

_INTS = len(_lib.INT_COLUMNS)
_FLOATS = len(_lib.FLOAT_COLUMNS)
_BLOBS = len(_lib.BLOB_COLUMNS)
_BLOB_ROW = {name: i for i, (name, _) in enumerate(_lib.BLOB_COLUMNS)}
_INT_BLOB_COLUMNS = ("euler_number",)  # integers in skimage's tables too
_columns = _lib.lib.ccl_engine_columns
_device_columns = _lib.lib.ccl_engine_device_columns
_wait = getattr(_lib.lib, "ccl_engine_wait", None)
_device_columns_on = getattr(_lib.lib, "ccl_engine_device_columns_on", None)
_NAMES = _lib.INT_COLUMNS + _lib.FLOAT_COLUMNS
_ROWS = _INTS + _FLOATS
_FLOAT64 = np.dtype(np.float64)
_INT64 = np.dtype(np.int64)


def engine_table(engine, n, pool, blob_names=(), kind=dict):
    """The columns of the engine's last frame (n reported components), arrays that no
    later call touches: one buffer (from `pool`, _pool.py), each column a row of it;
    then the blob columns `blob_names` (ccl_engine_blob_columns), in that order. `kind`:
    the mapping returned (dict, or LazyTable to join columns made later)."""
    block = _pool.empty(pool, (_INTS + _FLOATS, n), _FLOAT64, (_INTS + _FLOATS) * n * 8)
    if n:
        base = _arrays.data_pointer(block)
        status = _columns(engine, base, base + _INTS * n * 8)
        if status:
            raise _lib.error(status)
    # Iterating a 2-D array yields its rows as views at C speed: all 19 columns cost
    # about what making them one by one on first read would cost for two of them.
    table = kind(zip(_lib.INT_COLUMNS, block[:_INTS].view(_INT64)))
    dict.update(table, zip(_lib.FLOAT_COLUMNS, block[_INTS:]))
    if blob_names:
        blobs = _pool.empty(pool, (_BLOBS, n), _FLOAT64, _BLOBS * n * 8)
        if n:
            _lib.check(_lib.lib.ccl_engine_blob_columns(engine, _arrays.data_pointer(blobs)))
        for name in blob_names:
            row = blobs[_BLOB_ROW[name]]
            dict.__setitem__(table, name,
                             row.astype(np.int64) if name in _INT_BLOB_COLUMNS else row)
    return table


class _Pending:
    """What a LazyTable holds for a column not made yet."""
    __slots__ = ()

    def __repr__(self):
        return "<column not made yet>"


_PENDING = _Pending()


class LazyTable(dict):
    """A table whose columns are made when first read: a device image's 19 columns,
    CuPy views of the rows of one allocation (a CuPy array object costs about a
    microsecond and a half to make, so making them all was most of a small frame's
    call whether or not the caller read them), and a Labeler's track columns (ten
    conversions of a ccl_track array, made together). The keys are there from the
    start; every way of reading a value (indexing, get, values, items, iteration into
    another dict, copy, comparison, repr, pickling) makes what it reads first, so the
    table behaves as a dict of arrays. What a column holds does not depend on when it
    is made: device columns are written by work queued on the image's stream before
    the call returns (or, for a frame the call did not wait for, before the first read
    or the engine's next frame: submitted_table), the tracks before it returns."""
    __slots__ = ("_block", "_n", "_tracks", "_frame", "__weakref__")

    def __getitem__(self, key):
        value = dict.__getitem__(self, key)
        if value is _PENDING:
            value = self._make(key)
        return value

    def _make(self, key):
        if key in _TRACK_KEYS:
            # The track columns come from one ccl_track array, all at once.
            for name, value in _track.track_columns(self._tracks).items():
                dict.__setitem__(self, name, value)
            return dict.__getitem__(self, key)
        if self._block is None:  # a submitted frame's: not made yet
            self._settle()
        i, n = _ROW[key], self._n
        value = _CUPY_NDARRAY[0]((n,), _INT64 if i < _INTS else _FLOAT64,
                                 self._block.data + 8 * n * i)
        dict.__setitem__(self, key, value)
        return value

    def _settle(self):
        """A submitted frame's table (submitted_table): waits for the frame, then
        queues its columns, as device_table does in the call itself. A GPU error of the
        frame is raised here (and by every later read)."""
        frame = self._frame
        if frame is None:
            return
        engine, x, lock, result, result_at = frame
        with lock:
            if self._frame is None:  # settled meanwhile, on another thread
                return
            status = _wait(engine, result_at)
            if status:
                raise _lib.error(status)
            n = result.num_components
            # On the stream current now: the frame's own may be gone, and this is
            # where the reader's next work goes (ordered after the frame by the engine).
            self._block = _device_block(engine, n, x, _arrays.cupy_stream())
            self._n = n
            self._frame = None

    def _fill(self):
        for key in [k for k, v in dict.items(self) if v is _PENDING]:
            if dict.__getitem__(self, key) is _PENDING:  # a track key may have made it
                self._make(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    # A dict subclass that defines __iter__ is merged (dict(t), {**t}, d.update(t))
    # through keys() and __getitem__ rather than by reading its storage.
    def __iter__(self):
        return dict.__iter__(self)

    def values(self):
        self._fill()
        return dict.values(self)

    def items(self):
        self._fill()
        return dict.items(self)

    def copy(self):
        self._fill()
        return dict(dict.items(self))

    def pop(self, key, *default):
        if key in self:
            self[key]
        return dict.pop(self, key, *default)

    def popitem(self):
        self._fill()
        return dict.popitem(self)

    def setdefault(self, key, default=None):
        if key in self:
            return self[key]
        return dict.setdefault(self, key, default)

    def __eq__(self, other):
        self._fill()
        if isinstance(other, LazyTable):
            other._fill()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __or__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        out = dict(other)
        out.update(self.items())
        return out

    def __repr__(self):
        self._fill()
        return dict.__repr__(self)

    def __reduce__(self):
        return dict, (self.copy(),)


_ROW = {name: i for i, name in enumerate(_NAMES)}
_TRACK_KEYS = frozenset(_track.TRACK_COLUMNS)
_PENDING_TRACKS = dict.fromkeys(_track.TRACK_COLUMNS, _PENDING)


def add_tracks(table, tracks):
    """The track columns of `tracks` (a ccl_track array, one per row) joined to a
    LazyTable, made when first read."""
    table._tracks = tracks
    dict.update(table, _PENDING_TRACKS)


_CUPY_NDARRAY = [None]
_PENDING_ROW = dict.fromkeys(_NAMES, _PENDING)


def _device_block(engine, n, x, stream=None):
    """One CuPy allocation holding the n rows of every column, written on the device (on
    `stream` when given, else on the frame's own stream)."""
    block = _arrays.cupy_empty((_ROWS * n,), _FLOAT64, x.device)
    if n:
        base = block.data.ptr
        if stream is None:
            status = _device_columns(engine, base, base + _INTS * n * 8)
        else:
            status = _device_columns_on(engine, base, base + _INTS * n * 8, stream)
        if status:
            raise _lib.error(status)
    if _CUPY_NDARRAY[0] is None:
        _CUPY_NDARRAY[0] = type(block)
    return block


def submitted_table(engine, x, lock, result, result_at):
    """device_table for a frame that ccl_engine_submit left in flight (CuPy input): the
    call did not wait for the GPU, so neither the component count nor the columns exist
    yet. The first read of any column waits for the frame (ccl_engine_wait) and makes
    them, on the stream current then; so does the thread's next label() call
    (settle_submitted), which would otherwise overwrite the frame's table. `lock` serializes the two, as the table may be read on
    another thread; `result` (at `result_at`) receives the frame's counts."""
    table = LazyTable(_PENDING_ROW)
    table._block = None
    table._frame = (engine, x, lock, result, result_at)
    return table


def device_table(engine, n, x):
    """The columns of the engine's last frame (all n components), computed on the device
    into arrays of the input's kind (CuPy, or torch for torch tensors): the table never
    crosses the bus. One allocation; each column a view of one of its rows (CuPy: made
    when first read, LazyTable)."""
    if x.kind == "torch":
        import torch
        block = torch.empty((_ROWS, n), dtype=torch.float64, device=x.owner.device)
        if n:
            base = block.data_ptr()
            status = _device_columns(engine, base, base + _INTS * n * 8)
            if status:
                raise _lib.error(status)
        columns = block[:_INTS].view(torch.int64).unbind(0) + block[_INTS:].unbind(0)
        return dict(zip(_NAMES, columns))
    block = _device_block(engine, n, x)
    if n == 0:
        empty_int, empty_float = block.view(_INT64), block
        return dict(zip(_NAMES, [empty_int] * _INTS + [empty_float] * _FLOATS))
    table = LazyTable(_PENDING_ROW)
    table._block = block
    table._n = n
    return table


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
