"""Tracks: cudaccl.Tracker on component tables from anywhere, and the track columns."""
import ctypes

import numpy as np

from . import _arrays, _lib

TRACK_DTYPE = np.dtype([("id", "<u8"), ("parent_id", "<u8"), ("age", "<u4"),
                        ("frames_unseen", "<u4"), ("velocity_x", "<f8"), ("velocity_y", "<f8"),
                        ("predicted_x", "<i4"), ("predicted_y", "<i4"),
                        ("predicted_width", "<i4"), ("predicted_height", "<i4")], align=True)
COMPONENT_DTYPE = np.dtype([("label", "<u4"), ("x", "<i4"), ("y", "<i4"), ("width", "<i4"),
                            ("height", "<i4"), ("area", "<u8"), ("sum_x", "<u8"),
                            ("sum_y", "<u8"), ("sum_xx", "<u8"), ("sum_xy", "<u8"),
                            ("sum_yy", "<u8")], align=True)
assert TRACK_DTYPE.itemsize == 56 and COMPONENT_DTYPE.itemsize == 72

TRACK_COLUMNS = ["track_id", "parent_id", "age", "frames_unseen", "velocity-0", "velocity-1",
                 "predicted_bbox-0", "predicted_bbox-1", "predicted_bbox-2", "predicted_bbox-3"]


def track_columns(tracks):
    """Columns of a ccl_track array: velocity and predicted box in (row, column) order."""
    y, x = tracks["predicted_y"].astype(np.int64), tracks["predicted_x"].astype(np.int64)
    return {
        "track_id": tracks["id"].astype(np.int64),
        "parent_id": tracks["parent_id"].astype(np.int64),
        "age": tracks["age"].astype(np.int64),
        "frames_unseen": tracks["frames_unseen"].astype(np.int64),
        "velocity-0": tracks["velocity_y"].copy(),
        "velocity-1": tracks["velocity_x"].copy(),
        "predicted_bbox-0": y,
        "predicted_bbox-1": x,
        "predicted_bbox-2": y + tracks["predicted_height"],
        "predicted_bbox-3": x + tracks["predicted_width"],
    }


def create_tracker(max_lost):
    if isinstance(max_lost, bool) or not isinstance(max_lost, (int, np.integer)):
        raise TypeError(f"max_lost must be an integer, not {type(max_lost).__name__}")
    if not 0 <= max_lost <= (1 << 31) - 1:
        raise ValueError(f"max_lost must be within 0..2^31-1, not {max_lost}")
    o = _lib.TrackerOptions()
    _lib.lib.ccl_tracker_options_init(ctypes.addressof(o))
    o.max_lost = int(max_lost)
    handle = ctypes.c_void_p()
    _lib.check(_lib.lib.ccl_tracker_create(ctypes.addressof(o), ctypes.byref(handle)))
    return handle.value


def _column(table, name, n):
    try:
        values = np.asarray(table[name])
    except KeyError:
        return None
    if values.ndim != 1 or len(values) != n:
        raise ValueError(f"table column {name!r} has shape {values.shape}, the table {n} rows")
    if values.dtype.kind == "f" and not np.all(np.isfinite(values)):
        raise ValueError(f"table column {name!r} holds NaN or infinity")
    return values


def components_from_table(table):
    """A ccl_component array from columns as regionprops_table names them: bbox-0..3 and
    area are needed; the centroid comes from centroid-0/1, or from the moments
    (moments_image-1-0/0-1, or skimage's moments-1-0/0-1 about the box's corner);
    label defaults to 1..n."""
    if not hasattr(table, "keys"):
        raise TypeError(f"table must be a dict of columns, not {type(table).__name__}")
    if "area" not in table:
        raise ValueError("table has no 'area' column")
    area = np.asarray(table["area"])
    if area.ndim != 1:
        raise ValueError(f"table column 'area' has shape {area.shape}: columns are 1-D")
    n = len(area)
    bbox = []
    for i in range(4):
        col = _column(table, f"bbox-{i}", n)
        if col is None:
            raise ValueError(f"table has no 'bbox-{i}' column (skimage's bbox: min_row, "
                             "min_col, max_row, max_col)")
        bbox.append(col.astype(np.int64))
    area = _column(table, "area", n).astype(np.float64)
    if n and (np.any(area < 1) or np.any(bbox[2] <= bbox[0]) or np.any(bbox[3] <= bbox[1])
              or np.any(bbox[0] < 0) or np.any(bbox[1] < 0)):
        raise ValueError("table rows need an area of at least 1 and a non-empty box at "
                         "non-negative coordinates")
    out = np.zeros(n, COMPONENT_DTYPE)
    label = _column(table, "label", n)
    out["label"] = np.arange(1, n + 1) if label is None else label
    out["y"], out["x"] = bbox[0], bbox[1]
    out["height"], out["width"] = bbox[2] - bbox[0], bbox[3] - bbox[1]
    out["area"] = np.rint(area).astype(np.uint64)
    rows, cols = _column(table, "centroid-0", n), _column(table, "centroid-1", n)
    if rows is not None and cols is not None:
        sum_r, sum_c = np.rint(rows * area), np.rint(cols * area)
    elif "moments_image-1-0" in table and "moments_image-0-1" in table:
        sum_r = _column(table, "moments_image-1-0", n).astype(np.float64)
        sum_c = _column(table, "moments_image-0-1", n).astype(np.float64)
    elif "moments-1-0" in table and "moments-0-1" in table:
        sum_r = _column(table, "moments-1-0", n) + bbox[0] * area
        sum_c = _column(table, "moments-0-1", n) + bbox[1] * area
    else:
        raise ValueError("table has no centroid: give 'centroid-0' and 'centroid-1' (or the "
                         "moments 'moments-1-0' and 'moments-0-1')")
    out["sum_y"], out["sum_x"] = np.rint(sum_r).astype(np.uint64), np.rint(sum_c).astype(np.uint64)
    return out


class Tracker:
    """Identities of components across frames, on tables from anywhere (a dict of columns
    as skimage.measure.regionprops_table or cudaccl.label make them).

        tracker = cudaccl.Tracker(max_lost=15)
        for frame in clip:
            table = skimage.measure.regionprops_table(skimage.measure.label(frame > 128),
                                                      properties=("label", "bbox", "area", "centroid"))
            table = tracker.update(table, frame.shape)   # + track_id, parent_id, ...
    """

    def __init__(self, max_lost=15):
        self._handle = None
        self._handle = create_tracker(max_lost)

    def update(self, table, shape):
        """The table's columns plus the track columns of its rows (a new dict). `shape`
        is the frame's (height, width): a change of size starts afresh."""
        if self._handle is None:
            raise ValueError("the tracker is closed")
        try:
            height, width = (int(v) for v in tuple(shape)[:2])
        except (TypeError, ValueError):
            raise TypeError(f"shape must be the frame's (height, width), not {shape!r}") from None
        if height < 1 or width < 1:
            raise ValueError(f"shape {shape!r} is empty")
        comps = components_from_table(table)
        tracks = np.zeros(len(comps), TRACK_DTYPE)
        _lib.check(_lib.lib.ccl_tracker_update(
            self._handle, width, height, _arrays.data_pointer(comps), len(comps),
            _arrays.data_pointer(tracks)))
        out = dict(table)
        out.update(track_columns(tracks))
        return out

    def reset(self, reset_ids=False):
        """Ends every track; with reset_ids the ids start again at 1."""
        _lib.check(_lib.lib.ccl_tracker_reset(self._handle, int(bool(reset_ids))))

    def close(self):
        if self._handle is not None:
            _lib.lib.ccl_tracker_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()
