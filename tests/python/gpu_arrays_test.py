#!/usr/bin/env python3
"""cudaccl on CuPy arrays and CUDA PyTorch tensors, on a machine with a CUDA device:
labels and tables equal to the CPU backend's on the same pixels (NumPy), the array read
in place (no host copy), the work on the producer's stream, the stateful Labeler, and
CUDA failures as cudaccl.CudaError. Prints TAP; skips, saying why, without a usable
device or without both CuPy and PyTorch.

    PYTHONPATH=<build>/python [CUDACCL_LIBRARY=<libccl.so>] python3 gpu_arrays_test.py [TESTDATA_DIR]

TESTDATA_DIR: the real-image cache (its gray/ PGMs), optional."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cudaccl_support import import_cudaccl, raises, real_images, yacclab_random  # noqa: E402
from tap import Tap  # noqa: E402

cudaccl = import_cudaccl()
if not cudaccl.cuda_usable():
    from cudaccl import _label
    Tap.skip_all(f"no usable CUDA device: {_label.cuda_unusable_reason()}")

frameworks = {}
try:
    import cupy
    frameworks["cupy"] = cupy
except ImportError as e:
    print(f"# CuPy is not installed ({e}): its cases are skipped", flush=True)
try:
    import torch
    if torch.cuda.is_available():
        frameworks["torch"] = torch
    else:
        print("# PyTorch sees no CUDA device: its cases are skipped", flush=True)
except ImportError as e:
    print(f"# PyTorch is not installed ({e}): its cases are skipped", flush=True)
if not frameworks:
    Tap.skip_all("neither CuPy nor a CUDA-enabled PyTorch is installed")

tap = Tap()


def to_device(fw, host):
    if fw == "cupy":
        return cupy.asarray(host)
    return torch.from_numpy(np.array(host, order="C")).cuda()  # a writable copy


def to_host(fw, array):
    if fw == "cupy":
        return cupy.asnumpy(array)
    return array.cpu().numpy()


def pointer(fw, array):
    return array.data.ptr if fw == "cupy" else array.data_ptr()


def synchronize(fw):
    if fw == "cupy":
        cupy.cuda.Device().synchronize()
    else:
        torch.cuda.synchronize()


def host_column(v):
    """A column as NumPy: device tables come as arrays of the image's kind."""
    if isinstance(v, np.ndarray):
        return v
    if type(v).__module__.startswith("cupy"):
        return v.get()
    return v.cpu().numpy()


def same_table(got, want):
    assert got.keys() == want.keys(), f"columns {sorted(got)} != {sorted(want)}"
    for k in want:
        g = host_column(got[k])
        assert g.dtype == want[k].dtype, f"{k}: dtype {g.dtype} != {want[k].dtype}"
        assert np.array_equal(g, want[k]), f"{k}: {g[:5]} != {want[k][:5]}"


def device_columns(table, fw, device):
    """Every column of a device image's table is an array of its framework on its device."""
    for k, v in table.items():
        if fw == "cupy":
            assert type(v).__module__.startswith("cupy"), f"{k}: {type(v)} is not a CuPy array"
            assert v.device.id == device, f"{k}: on device {v.device.id}, not {device}"
        else:
            assert isinstance(v, torch.Tensor) and v.is_cuda, f"{k}: {type(v)} not a CUDA tensor"
            assert v.device.index == device, f"{k}: on device {v.device.index}, not {device}"


def images():
    """(name, host array, view of it on which to label): sizes, densities, granularities,
    uint16, RGB, and row strides from slicing."""
    out = []
    for h, w, d, g in [(1, 1, 0.9, 1), (1, 300, 0.5, 1), (257, 1, 0.5, 2), (480, 640, 0.5, 1),
                       (1080, 1920, 0.1, 4), (1080, 1920, 0.9, 16), (333, 517, 0.5, 1)]:
        img = yacclab_random(h, w, d, g, seed=h * 31 + w) * np.uint8(200)
        out.append((f"{w}x{h} d={d} g={g}", img, lambda a: a))
    wide = yacclab_random(300, 700, 0.5, 2, seed=5) * np.uint8(255)
    out.append(("700x300 sliced to rows 2..298 step 2, columns 5..600", wide,
                lambda a: a[2:298:2, 5:600]))
    deep = (yacclab_random(200, 300, 0.5, 1, seed=6).astype(np.uint16) * 60000
            + np.uint16(100))
    out.append(("300x200 uint16", deep, lambda a: a))
    rng = np.random.default_rng(9)
    rgb = rng.integers(0, 256, size=(240, 320, 3), dtype=np.uint8)
    out.append(("320x240 RGB", rgb, lambda a: a))
    out.append(("320x240 RGB sliced (padded rows)", rgb, lambda a: a[:, 7:300]))
    rgb_odd = rng.integers(0, 256, size=(64, 100, 4), dtype=np.uint8)  # 400-byte rows
    out.append(("98x64 RGB, row stride not a multiple of 3", rgb_odd,
                lambda a: a.reshape(64, -1)[:, 3:297].reshape(64, 98, 3)))
    return out


def equal_to_cpu(fw):
    for name, host, view in images():
        def run(host=host, view=view):
            dev = to_device(fw, host)
            x = view(dev)
            labels, table = cudaccl.label(x)
            info = cudaccl.last_call_info()
            assert info["backend"] == "cuda" and info["read_memory"] == "device", info
            want_labels, want_table = cudaccl.label(np.ascontiguousarray(view(host)),
                                                    backend="cpu")
            assert type(labels) is type(dev), f"labels are {type(labels)}"
            got = to_host(fw, labels)
            assert got.dtype == np.int32 and np.array_equal(got, want_labels), "labels differ"
            same_table(table, want_table)
            device_columns(table, fw, info["device"])
            # Every component reported: the table never came to the host.
            assert info["num_reported"] == 0, info
        tap.check(f"{fw}: {name}: labels and table equal the CPU backend's", run)

    img = yacclab_random(600, 800, 0.5, 1, seed=3) * np.uint8(255)
    dev = to_device(fw, img)

    def settings():
        for kw in [dict(connectivity=4), dict(mode="below", threshold=100), dict(mode="otsu"),
                   dict(min_area=3), dict(max_components=25), dict(return_labels=False)] + \
                  [dict(algorithm=a) for a in cudaccl.algorithms()]:
            labels, table = cudaccl.label(dev, **kw)
            device = cudaccl.last_call_info()["device"]
            want_labels, want_table = cudaccl.label(img, backend="cpu", **kw)
            if want_labels is None:
                assert labels is None
            else:
                assert np.array_equal(to_host(fw, labels), want_labels), f"{kw}: labels"
            same_table(table, want_table)
            device_columns(table, fw, device)
    tap.check(f"{fw}: every setting and algorithm equals the CPU backend", settings)

    def numpy_on_cuda():
        labels, table = cudaccl.label(img, backend="cuda")
        assert isinstance(labels, np.ndarray) and cudaccl.last_call_info()["backend"] == "cuda"
        want_labels, want_table = cudaccl.label(img, backend="cpu")
        assert np.array_equal(labels, want_labels)
        same_table(table, want_table)
    tap.check(f"{fw}: a NumPy array on backend='cuda' (upload, label, download)", numpy_on_cuda)


def in_place(fw):
    host = yacclab_random(512, 512, 0.5, 2, seed=11) * np.uint8(255)
    dev = to_device(fw, host)

    def run():
        # Whatever copies a device array to the host, made to fail for the call.
        saved = []
        if fw == "cupy":
            saved.append((cupy, "asnumpy", cupy.asnumpy))
        else:
            saved += [(torch.Tensor, "cpu", torch.Tensor.cpu),
                      (torch.Tensor, "numpy", torch.Tensor.numpy)]
        for owner, attr, _ in saved:
            setattr(owner, attr, lambda *a, **k: (_ for _ in ()).throw(
                AssertionError("a host copy of the image was made")))
        try:
            labels, _ = cudaccl.label(dev)
        finally:
            for owner, attr, fn in saved:
                setattr(owner, attr, fn)
        info = cudaccl.last_call_info()
        assert info["read_pointer"] == pointer(fw, dev), \
            f"the engine read {info['read_pointer']:#x}, the array is at {pointer(fw, dev):#x}"
        assert info["read_memory"] == "device"
        if fw == "torch":
            assert labels.device == dev.device and labels.is_cuda
        else:
            assert labels.device.id == dev.device.id
    tap.check(f"{fw}: the engine reads the array's own device memory, no host copy", run)


# Spins a thread for about `cycles` clocks: keeps a stream busy while later work on it
# (the image being written) waits.
SPIN = r"""
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
"""


def producer_stream(fw):
    host = yacclab_random(720, 1280, 0.5, 4, seed=12) * np.uint8(255)
    want_labels, want_table = cudaccl.label(host, backend="cpu")
    clocks = 200_000_000  # about 0.1 s at 2 GHz: far longer than labeling takes

    def run():
        src = to_device(fw, host)
        synchronize(fw)
        if fw == "cupy":
            spin = cupy.RawKernel(SPIN, "spin")
            stream = cupy.cuda.Stream(non_blocking=True)
            with stream:
                img = cupy.zeros_like(src)
                spin((1,), (1,), (np.int64(clocks),))
                img[...] = src  # written only once the spin ends, on this stream
                labels, table = cudaccl.label(img)
            handle = stream.ptr
        else:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                img = torch.zeros_like(src)
                torch.cuda._sleep(clocks)
                img.copy_(src)
                labels, table = cudaccl.label(img)
            handle = stream.cuda_stream
        assert cudaccl.last_call_info()["stream"] == handle, "the work went to another stream"
        stream.synchronize()
        # Run on any stream not ordered after the producer's, the engine would have read
        # the zeros (the image is written 0.1 s later).
        same_table(table, want_table)
        assert np.array_equal(to_host(fw, labels), want_labels), "labels differ"
    tap.check(f"{fw}: the work runs on the producer's (non-default) stream", run)

    def two_streams():
        # The same cached engine on two streams in turn: each frame waits for the last.
        a, b = (to_device(fw, host), to_device(fw, 255 - host))
        synchronize(fw)
        wa, wt = cudaccl.label(host, backend="cpu")
        wb, _ = cudaccl.label(255 - host, backend="cpu")
        streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)] if fw == "cupy" \
            else [torch.cuda.Stream() for _ in range(2)]
        results = []
        for i in range(6):
            s = streams[i % 2]
            ctx = s if fw == "cupy" else torch.cuda.stream(s)
            with ctx:
                results.append(cudaccl.label(a if i % 2 == 0 else b)[0])
        synchronize(fw)
        for i, r in enumerate(results):
            assert np.array_equal(to_host(fw, r), wa if i % 2 == 0 else wb), f"call {i}"
    tap.check(f"{fw}: alternating streams keep every call's labels", two_streams)


def labeler(fw):
    rng = np.random.default_rng(4)
    frames = []
    base = rng.integers(30, 60, size=(240, 320), dtype=np.uint8)
    for t in range(12):
        f = base.copy()
        f[50:80, 10 + 8 * t:40 + 8 * t] = 220
        f[150:170, 300 - 9 * t:318 - 9 * t] = 250
        frames.append(f)

    def run():
        for kw in [dict(foreground="background", history=50), dict(threshold=128, min_area=4)]:
            gpu = cudaccl.Labeler(**kw)
            cpu = cudaccl.Labeler(backend="cpu", **kw)
            for t, f in enumerate(frames):
                gl, gt = gpu(to_device(fw, f))
                cl, ct = cpu(f)
                assert np.array_equal(to_host(fw, gl), cl), f"{kw} frame {t}: labels"
                same_table(gt, ct)
            assert gpu.backend == "cuda" and len(gt["track_id"]) == 2
            gpu.close()
            cpu.close()
    tap.check(f"{fw}: Labeler (background model, tracks) equals the CPU backend's", run)


def errors(fw):
    dev = to_device(fw, np.zeros((64, 64), np.uint8))

    cases = [
        ("device array on backend='cpu'", TypeError, lambda: cudaccl.label(dev, backend="cpu"),
         "device memory"),
        ("float device array", TypeError,
         lambda: cudaccl.label(dev.astype(cupy.float32) if fw == "cupy"
                               else dev.to(torch.float32)),
         "uint8 or uint16"),
        ("inner dimension not contiguous", ValueError, lambda: cudaccl.label(dev[:, ::2]),
         "contiguous"),
        ("3-D with 5 channels", ValueError,
         lambda: cudaccl.label(to_device(fw, np.zeros((4, 4, 5), np.uint8))), "3-D"),
    ]
    for name, exc, fn, word in cases:
        tap.check(f"{fw}: bad input: {name} raises {exc.__name__}", lambda: raises(exc, fn, word))


def lazy_tables(fw):
    """A device table's columns are made when first read (cudaccl/_table.py): every way
    of reading gives the arrays an eager table would hold, and reading them at once on
    the producer's stream, while the work is still queued, sees the finished numbers."""
    host = yacclab_random(300, 400, 0.5, 2, seed=17) * np.uint8(255)
    _, want = cudaccl.label(host, backend="cpu")

    def ways():
        dev = to_device(fw, host)
        readers = [
            ("indexing", lambda t: {k: t[k] for k in want}),
            ("get", lambda t: {k: t.get(k) for k in want}),
            ("items", lambda t: dict(t.items())),
            ("values", lambda t: dict(zip(t.keys(), t.values()))),
            ("dict()", dict),
            ("**", lambda t: (lambda **kw: kw)(**t)),
            ("copy", lambda t: t.copy()),
            ("| {}", lambda t: t | {}),
            ("{} |", lambda t: {} | t),
            ("update", lambda t: (lambda d: (d.update(t), d)[1])({})),
        ]
        for name, read in readers:
            _, table = cudaccl.label(dev)
            got = read(table)
            assert type(got) is dict and list(got) == list(want), f"{name}: {list(got)}"
            same_table(got, want)
            if name == "indexing":
                assert all(table[k] is got[k] for k in want), "a column was made twice"
                assert table.get("nope", 5) == 5 and "nope" not in table
    tap.check(f"{fw}: a device table read any way equals the eager CPU table", ways)

    def read_at_once():
        # The stream is kept busy, so the label copy and the column kernel are still
        # queued when the call returns; the host reads below must wait for them.
        src = to_device(fw, host)
        synchronize(fw)
        if fw == "cupy":
            spin = cupy.RawKernel(SPIN, "spin")
            stream = cupy.cuda.Stream(non_blocking=True)
            with stream:
                labels, table = cudaccl.label(src)
                spin((1,), (1,), (np.int64(50_000_000),))
                labels, table = cudaccl.label(src)
                cols = {k: table[k].get() for k in want}
                got_labels = labels.get()
        else:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                labels, table = cudaccl.label(src)
                torch.cuda._sleep(50_000_000)
                labels, table = cudaccl.label(src)
                cols = {k: table[k].cpu().numpy() for k in want}
                got_labels = labels.cpu().numpy()
        same_table(cols, want)
        assert np.array_equal(got_labels, cudaccl.label(host, backend="cpu")[0])
    tap.check(f"{fw}: results read at once on the producer's stream are complete",
              read_at_once)


def cuda_failures():
    img = np.zeros((64, 64), np.uint8)
    for spec, name in [("device-alloc:1", "cudaErrorMemoryAllocation"),
                       ("copy:1", "cudaErrorUnknown")]:
        def run(spec=spec, name=name):
            os.environ["CCL_FAULT_INJECT"] = spec  # read by each new engine
            try:
                lab = cudaccl.Labeler(backend="cuda")
                try:
                    lab(img)
                except cudaccl.CudaError as e:
                    assert e.name == name, f"{e.name} != {name}: {e}"
                else:
                    raise AssertionError("no CudaError")
            finally:
                os.environ["CCL_FAULT_INJECT"] = ""
            lab = cudaccl.Labeler(backend="cuda")  # disarms: the next engine works
            assert lab(img)[1]["label"].size == 0
        tap.check(f"an injected CUDA failure ({spec}) raises CudaError named {name}", run)


def real(fw, testdata):
    imgs, why = real_images(testdata) if testdata else ([], "no TESTDATA_DIR given")
    if not imgs:
        tap.skip(f"{fw}: real images", why)
        return
    for name, gray in imgs:
        def run(gray=gray):
            labels, table = cudaccl.label(to_device(fw, gray))
            want_labels, want_table = cudaccl.label(gray, backend="cpu")
            assert np.array_equal(to_host(fw, labels), want_labels)
            same_table(table, want_table)
        tap.check(f"{fw}: real image {name}: equals the CPU backend", run)


def main():
    testdata = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CCL_TESTDATA_DIR")
    for fw in frameworks:
        equal_to_cpu(fw)
        in_place(fw)
        producer_stream(fw)
        lazy_tables(fw)
        labeler(fw)
        errors(fw)
        real(fw, testdata)
    cuda_failures()
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
