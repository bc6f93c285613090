#!/usr/bin/env python3
"""What a call of cudaccl.label / Labeler costs beyond the engine's own work.

    PYTHONPATH=<dir holding cudaccl> [CCL_LIBRARY=<libccl.so>] python3 python_call_bench.py \
        [--repeat 2000] [--csv out.csv] [--testdata DIR] [--max-pixels 1000000] [--no-gpu]

CCL_LIBRARY (or the package's own CUDACCL_LIBRARY) names the library to load.
Images: random ones of the YACCLAB recipe (tests/common/yacclab_random.cpp) at 16x16,
64x64, 256x256, 612x459 and 1920x1080, and the real images of the test cache
(DIR/gray/*.pgm, tests/common/fetch-testdata.sh; --testdata or CCL_TESTDATA_DIR) of at
most --max-pixels pixels. Threshold 128 above, 8-connected, labels and table.

Each number is the median over --repeat calls (at least 2000) after a warm-up, in
microseconds:
  CPU (NumPy arrays, backend="cpu"):
    label        wall time of cudaccl.label(image, backend="cpu")
    labeler      wall time of a Labeler(backend="cpu") call (tracking on, its default)
    read         wall time of the call and reading every column of its table
    engine       the engine's own time: ccl_engine_label (labels into a buffer) and
                 ccl_engine_columns (the table) called through ctypes on structs made
                 once (no Python layer)
    own          label - engine: the Python call's own cost
  GPU (CuPy arrays, backend="cuda"), when CuPy and a usable device are there:
    wall         wall time of cudaccl.label(image) called back to back; the call
                 queues the frame and returns without waiting for it (the table waits
                 when first read), so each call waits for the previous frame's end
    host         the call's own host time on an idle GPU (each call timed alone, the
                 stream synchronized between calls, outside the timing): what the
                 caller's thread pays, the GPU work running behind it
    events       CUDA-event time around the call on the current stream (what the
                 caller's stream sees, as for cupyx)
    gpu          the engine's GPU time of the same call (cudaccl.set_profiling,
                 last_call_info()["gpu_ms"], CUDA events inside the engine)
    own          the median over calls of (wall - gpu) with profiling on (then the call
                 waits for the frame, as before calls were left in flight): the host
                 work the GPU does not hide
    labeler      wall time of a Labeler(backend="cuda", track=False) call
    cupyx        CUDA-event time of cupyx.scipy.ndimage.label(image > 128,
                 structure=ones((3, 3))): labels only, no table
    ratio        cupyx / events
Targets: the call's own cost (host; own for calls that wait) <= 20 us for every case; ratio >= 10 in geometric mean over the GPU cases."""
import argparse
import csv
import ctypes
import math
import os
import platform
import statistics
import sys
import time

if os.environ.get("CCL_LIBRARY") and not os.environ.get("CUDACCL_LIBRARY"):
    os.environ["CUDACCL_LIBRARY"] = os.environ["CCL_LIBRARY"]

import numpy as np  # noqa: E402

import cudaccl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "tests", "python")]
from peer_util import cpu_name  # noqa: E402
from cudaccl_support import read_pgm, yacclab_random  # noqa: E402

RANDOM_SIZES = ((16, 16), (64, 64), (256, 256), (612, 459), (1920, 1080))
STRUCTURE = np.ones((3, 3), bool)
_ns = time.perf_counter_ns


def images(args):
    out = []
    for w, h in RANDOM_SIZES:
        out.append((f"random {w}x{h} d=0.5 g=4",
                    yacclab_random(h, w, 0.5, 4, seed=w + h) * np.uint8(255)))
    testdata = args.testdata
    manifest = os.path.join(testdata or "", "gray", "MANIFEST")
    if testdata and os.path.isfile(manifest):
        with open(manifest) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 2:
                    continue
                img = read_pgm(os.path.join(testdata, "gray", parts[1]))
                if img.size <= args.max_pixels and min(img.shape) >= 16:
                    out.append((parts[0], img))
    return out


def wall_us(fn, repeat):
    """Median wall microseconds of fn()."""
    for _ in range(max(50, repeat // 20)):
        fn()
    times = []
    for _ in range(repeat):
        t0 = _ns()
        fn()
        times.append(_ns() - t0)
    return statistics.median(times) / 1e3


def engine_us(image, repeat):
    """The CPU engine's own time on `image`: ccl_engine_label (labels into a buffer) and
    ccl_engine_columns (the table's columns) called through ctypes on structs made
    once, as the C interface's declarations in cudaccl._lib give them: what a call
    costs with no Python layer at all. None when the package lacks them."""
    try:
        from cudaccl import _lib
        lib = _lib.lib
        handle = ctypes.c_void_p()
        _lib.check(lib.ccl_engine_create(_lib.BACKEND_CPU, -1, ctypes.byref(handle)))
    except (ImportError, AttributeError):
        return None
    try:
        h, w = image.shape
        img = _lib.Image(size=ctypes.sizeof(_lib.Image), width=w, height=h,
                         format=_lib.FORMAT_GRAY8, memory=_lib.MEMORY_HOST,
                         data=image.ctypes.data, stride=image.strides[0])
        options = _lib.default_options()
        labels = np.empty((h, w), np.int32)
        out = _lib.Labels(size=ctypes.sizeof(_lib.Labels), data=labels.ctypes.data,
                          stride=w * 4, memory=_lib.MEMORY_HOST)
        result = _lib.Result(size=ctypes.sizeof(_lib.Result))
        label, columns = lib.ccl_engine_label, lib.ccl_engine_columns
        args = (handle.value, None, ctypes.addressof(img), ctypes.addressof(options),
                ctypes.addressof(out), ctypes.addressof(result))
        _lib.check(label(*args))
        n = result.num_reported
        block = np.empty((19, max(n, 1)), np.float64)
        ints, floats = block.ctypes.data, block.ctypes.data + 11 * n * 8

        def call():
            label(*args)
            columns(handle.value, ints, floats)
        return wall_us(call, repeat)
    finally:
        lib.ccl_engine_destroy(handle.value)


def read_all(table):
    for k in table:
        table[k]


def cpu_rows(cases, repeat):
    rows = []
    print(f"\nCPU backend, NumPy arrays (us, median of {repeat})")
    print(f"{'image':<30} {'size':>10} {'comps':>7} {'label':>9} {'labeler':>9} {'read':>9} "
          f"{'engine':>9} {'own':>7}")
    for name, img in cases:
        _, table = cudaccl.label(img, backend="cpu")
        n = len(table["label"])
        label = wall_us(lambda: cudaccl.label(img, backend="cpu"), repeat)
        lab = cudaccl.Labeler(backend="cpu")
        labeler = wall_us(lambda: lab(img), repeat)
        lab.close()
        read = wall_us(lambda: read_all(cudaccl.label(img, backend="cpu")[1]), repeat)
        engine = engine_us(img, repeat)
        own = label - engine if engine is not None else float("nan")
        rows.append(dict(backend="cpu", image=name, width=img.shape[1], height=img.shape[0],
                         components=n, label_us=label, labeler_us=labeler, read_us=read,
                         engine_us=engine, own_us=own))
        print(f"{name:<30} {img.shape[1]:>4}x{img.shape[0]:<5} {n:>7} {label:>9.1f} "
              f"{labeler:>9.1f} {read:>9.1f} {engine if engine is not None else float('nan'):>9.1f} "
              f"{own:>7.1f}", flush=True)
    return rows


def gpu_rows(cases, repeat, cupy, ndimage):
    rows = []
    stream = cupy.cuda.get_current_stream()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()

    def events_us(fn):
        for _ in range(max(50, repeat // 20)):
            fn()
        stream.synchronize()
        times = []
        for _ in range(repeat):
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end) * 1e3)
        return statistics.median(times)

    def host_us(fn):
        for _ in range(max(50, repeat // 20)):
            fn()
        stream.synchronize()
        times = []
        for _ in range(repeat):
            t0 = _ns()
            fn()
            times.append((_ns() - t0) / 1e3)
            stream.synchronize()
        return statistics.median(times)

    def profiled(fn):
        """Medians of the engine's GPU time and of (wall - GPU time), per call."""
        cudaccl.set_profiling(True)
        try:
            for _ in range(max(50, repeat // 20)):
                fn()
            gpu, own = [], []
            for _ in range(repeat):
                t0 = _ns()
                fn()
                wall = (_ns() - t0) / 1e3
                g = cudaccl.last_call_info()["gpu_ms"] * 1e3
                gpu.append(g)
                own.append(wall - g)
            stream.synchronize()
            return statistics.median(gpu), statistics.median(own)
        finally:
            cudaccl.set_profiling(False)

    print(f"\nCUDA backend, CuPy arrays (us, median of {repeat})")
    print(f"{'image':<30} {'size':>10} {'comps':>7} {'wall':>8} {'host':>7} {'events':>8} "
          f"{'gpu':>8} {'own':>7} {'labeler':>8} {'cupyx':>8} {'ratio':>7}")
    for name, image in cases:
        img = cupy.asarray(image)
        _, table = cudaccl.label(img, backend="cuda")
        n = len(table["label"])
        _, n_cupyx = ndimage.label(img > 128, structure=STRUCTURE)
        if n != int(n_cupyx):
            raise SystemExit(f"{name}: cudaccl finds {n} components, cupyx {int(n_cupyx)}")
        call = lambda: cudaccl.label(img, backend="cuda")  # noqa: E731
        wall = wall_us(call, repeat)
        host = host_us(call)
        events = events_us(call)
        gpu, own = profiled(call)
        lab = cudaccl.Labeler(backend="cuda", track=False)
        labeler = wall_us(lambda: lab(img), repeat)
        lab.close()
        theirs = events_us(lambda: ndimage.label(img > 128, structure=STRUCTURE))
        stream.synchronize()
        ratio = theirs / events if events > 0 else float("inf")
        rows.append(dict(backend="cuda", image=name, width=image.shape[1], height=image.shape[0],
                         components=n, label_us=wall, host_us=host, events_us=events, gpu_us=gpu,
                         own_us=own, labeler_us=labeler, cupyx_us=theirs, ratio=ratio))
        print(f"{name:<30} {image.shape[1]:>4}x{image.shape[0]:<5} {n:>7} {wall:>8.1f} "
              f"{host:>7.1f} {events:>8.1f} {gpu:>8.1f} {own:>7.1f} {labeler:>8.1f} {theirs:>8.1f} "
              f"{ratio:>6.1f}x", flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=2000)
    p.add_argument("--csv", default="python_call_bench.csv")
    p.add_argument("--testdata", default=os.environ.get("CCL_TESTDATA_DIR"))
    p.add_argument("--max-pixels", type=int, default=1_000_000)
    p.add_argument("--no-gpu", action="store_true", help="the CPU backend's cases only")
    args = p.parse_args()
    if args.repeat < 2000:
        print(f"python_call_bench: --repeat {args.repeat} is below 2000: medians are noisy")
    cases = images(args)
    print(f"CPU: {cpu_name()} ({os.cpu_count()} logical CPUs); Python {platform.python_version()}; "
          f"NumPy {np.__version__}; cudaccl {cudaccl.__version__} ({cudaccl.library_path})")
    rows = cpu_rows(cases, args.repeat)

    device = ""
    if not args.no_gpu:
        try:
            import cupy
            import cupyx.scipy.ndimage as ndimage
        except ImportError as e:
            print(f"\nno CuPy ({e}): the GPU cases are skipped")
            cupy = None
        if cupy is not None and not cudaccl.cuda_usable():
            print("\nno usable CUDA device: the GPU cases are skipped")
            cupy = None
        if cupy is not None:
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
            device = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            print(f"\ndevice: {device}; CuPy {cupy.__version__}")
            rows += gpu_rows(cases, args.repeat, cupy, ndimage)

    cpu = cpu_name()
    for r in rows:
        r["cpu"], r["device"] = cpu, device if r["backend"] == "cuda" else ""
    fields = ["backend", "cpu", "device", "image", "width", "height", "components",
              "label_us", "labeler_us", "read_us", "engine_us", "host_us", "events_us", "gpu_us",
              "own_us", "cupyx_us", "ratio"]
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)

    cpu_own = [r["own_us"] for r in rows if r["backend"] == "cpu" and not math.isnan(r["own_us"])]
    print()
    if cpu_own:
        print(f"CPU: own cost median {statistics.median(cpu_own):.1f} us, max {max(cpu_own):.1f} us")
    gpu = [r for r in rows if r["backend"] == "cuda"]
    if gpu:
        geomean = math.exp(sum(math.log(r["ratio"]) for r in gpu) / len(gpu))
        worst = max(r["host_us"] for r in gpu)
        print(f"GPU: host cost of a call median {statistics.median(r['host_us'] for r in gpu):.1f} us, "
              f"max {worst:.1f} us (calls that wait: own median "
              f"{statistics.median(r['own_us'] for r in gpu):.1f} us); "
              f"ratio to cupyx geomean {geomean:.2f}x, "
              f"min {min(r['ratio'] for r in gpu):.2f}x")
        met = worst <= 20 and geomean >= 10
        print(f"targets (own <= 20 us every case, ratio >= 10x geomean): "
              f"{'met' if met else 'NOT met'}")
    print(f"CSV: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
