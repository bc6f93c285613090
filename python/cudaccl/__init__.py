"""cudaccl: connected-component labeling, measurement and tracking of NumPy, CuPy and
PyTorch arrays with the cudaccl engine (docs/PYTHON.md).

    labels, table = cudaccl.label(image)          # table: regionprops_table's columns
"""
from ._errors import CclError, CudaError, UnsupportedError
from . import _lib
from ._label import last_call_info, set_profiling, cuda_usable
from ._label import label as _label_impl
from ._events import Event
from ._labeler import Labeler
from ._track import Tracker

__all__ = ["label", "Labeler", "Tracker", "Event", "CclError", "CudaError",
           "UnsupportedError", "algorithms", "cuda_usable", "last_call_info", "set_profiling",
           "library_path", "__version__"]

__version__ = _lib.lib.ccl_version().decode()
library_path = _lib.path


def algorithms():
    """The CUDA labeling algorithms' names (any gives the same labels and table)."""
    return _lib.algorithms()


# label() is the implementation itself, not a wrapper around it: a call layer with
# sixteen arguments costs about a microsecond, a noticeable part of a small frame's call.
label = _label_impl
label.__module__ = __name__
label.__doc__ = """Labels the connected components of `image`'s foreground and measures them.

image: 2-D uint8 or uint16 (gray), or (H, W, 3) uint8 RGB / (H, W, 4) uint8 RGBA
(luma = BT.601 of R, G, B), in host memory (NumPy, CPU tensor) or CUDA device memory
(CuPy, CUDA tensor, anything with __cuda_array_interface__); rows may be padded or
sliced (any row stride), the pixels of a row must be contiguous.
Foreground: value > threshold (mode "above"), <= threshold ("below"), or above Otsu's
level ("otsu"); uint16 values compare with threshold * 257.
connectivity: 8 or 4. min_area / max_components: which components the table reports
(at least min_area pixels; with more than max_components, the largest, largest first).
backend: "auto" (CUDA when a device is usable), "cuda" or "cpu".

Returns (labels, table). labels: int32 (H, W), 0 for background and 1..N in raster
order of each component's first pixel, an array of the input's kind on its device
(None with return_labels=False); a device input's labels are written on the
producer's stream. table: dict of columns (NumPy for host images; for device images
arrays of the image's kind on its device, written on the producer's stream) named as
skimage.measure.regionprops_table names them: label, bbox-0..3, area, centroid-0/1,
moments-p-q (p + q <= 2, about the box's corner as skimage's) and
moments_image-p-q (about the image's corner, exact integers).

properties: blob columns to add, "all" or a list of scikit-image's names:
intensity_mean, intensity_std, intensity_min, intensity_max (of the luma: the
value for gray images, BT.601 of R, G, B for color), color_mean-0/1/2 (each
channel's mean; "color_mean" for the three), perimeter, circularity (4 pi area /
perimeter^2), euler_number (with the labeling's connectivity), orientation,
axis_major_length, axis_minor_length, eccentricity, inertia_ratio.
min_/max_circularity, min_/max_intensity (the luma's mean), min_/max_eccentricity:
report only the components within these inclusive bounds (a max of 0: no limit).

Streams and waiting: host results (NumPy images, or the CPU backend) are complete when
the call returns. For a device image the call waits on the host for one thing only,
the engine's count of components (it sizes the table); the copy of the labels into
the returned array and the kernel that writes the table's columns are queued after
it on the producer's stream (the one its __cuda_array_interface__ names, for CuPy
and PyTorch the current stream) and are not waited for. Work queued later on that
stream, CuPy's and PyTorch's own host reads (.get(), .cpu(), asnumpy) included, is
ordered after them; reading the results from another stream needs that stream to wait
for the producer's (an event, or a synchronize) first.

The table is a dict whose column arrays are made when first read: the numbers are
written by the call, each array object on first access (then kept)."""
