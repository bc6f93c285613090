"""Shared by the cudaccl package's tests: importing it with a clear skip, the real-image
cache (tests/common/fetch-testdata.sh) and oracles built on NumPy."""
import os
import subprocess

import numpy as np

from tap import Tap


def import_cudaccl():
    """The package, or the whole script skipped with why it cannot be loaded."""
    try:
        import cudaccl
    except ImportError as e:
        Tap.skip_all(f"cudaccl cannot be imported: {e}")
    return cudaccl


def raises(exc, fn, *words):
    """fn() raises `exc` whose message holds every one of `words`; AssertionError if not."""
    try:
        fn()
    except exc as e:
        text = str(e)
        for w in words:
            assert w in text, f"message {text!r} lacks {w!r}"
        return
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"raised {type(e).__name__}: {e}, expected {exc.__name__}") from e
    raise AssertionError(f"no {exc.__name__} raised")


def read_pgm(path):
    return read_pnm(path, b"P5")


def read_pnm(path, magic=None):
    """An 8-bit binary PGM (P5: (H, W)) or PPM (P6: (H, W, 3)); `magic` insists on one."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    allowed = (magic,) if magic else (b"P5", b"P6")
    if fields[0] not in allowed:
        raise ValueError(f"{path}: not a {' or '.join(m.decode() for m in allowed)} file")
    if int(fields[3]) != 255:
        raise ValueError(f"{path}: not 8-bit")
    w, h = int(fields[1]), int(fields[2])
    channels = 3 if fields[0] == b"P6" else 1
    pixels = np.frombuffer(data, np.uint8, w * h * channels, pos)
    return pixels.reshape(h, w, 3) if channels == 3 else pixels.reshape(h, w)


def real_images(testdata, fetch_script=None, import_tool=None):
    """[(name, gray uint8 array)] of the cache, fetched first when it is empty and the
    script is given; (images, why) with why set when there are none."""
    gray = os.path.join(testdata, "gray")
    manifest = os.path.join(gray, "MANIFEST")
    if not os.path.isfile(manifest) and fetch_script:
        r = subprocess.run(["bash", fetch_script, testdata] + ([import_tool] if import_tool else []),
                           capture_output=True, text=True)
        if r.returncode != 0:
            return [], f"fetch-testdata.sh failed: {(r.stdout + r.stderr).strip()[-300:]}"
    if not os.path.isfile(manifest):
        return [], f"no real-image cache at {gray}"
    images = []
    with open(manifest) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                images.append((parts[0], read_pgm(os.path.join(gray, parts[1]))))
    return images, "" if images else "the manifest lists no image"


def real_color_images(testdata, fetch_script=None, import_tool=None):
    """[(name, RGB uint8 (H, W, 3) array)] of the cache's color part (rgb/, filled by
    tests/common/fetch-rgb.sh when empty and the script is given); (images, why)."""
    folder = os.path.join(testdata, "rgb")
    manifest = os.path.join(folder, "MANIFEST")
    if not os.path.isfile(manifest) and fetch_script and os.path.exists(fetch_script):
        r = subprocess.run(["bash", fetch_script, testdata] + ([import_tool] if import_tool else []),
                           capture_output=True, text=True)
        if r.returncode != 0:
            return [], f"fetch-rgb.sh failed: {(r.stdout + r.stderr).strip()[-300:]}"
    if not os.path.isfile(manifest):
        return [], f"no color image cache at {folder}"
    images = []
    with open(manifest) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                images.append((parts[0], read_pnm(os.path.join(folder, parts[1]), b"P6")))
    return images, "" if images else "the manifest lists no image"


def yacclab_random(height, width, density, granularity, seed):
    """The random-image recipe of tests/common/yacclab_random.cpp, bit for bit: MT19937
    seeded with `seed`, one raw 32-bit draw per g x g block in row-major block order, a
    block foreground when the draw is below round(density * 2^32). 0/1 uint8."""
    rows = -(-height // granularity)
    cols = -(-width // granularity)
    draws = np.random.RandomState(seed).randint(0, 1 << 32, size=rows * cols, dtype=np.uint32)
    # RandomState's 32-bit draws are MT19937's raw outputs, as std::mt19937's.
    blocks = (draws.astype(np.uint64) < np.uint64(round(density * 4294967296.0))).reshape(rows, cols)
    full = np.repeat(np.repeat(blocks, granularity, 0), granularity, 1)
    return full[:height, :width].astype(np.uint8)


def bt601_luma(rgb):
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((77 * r + 150 * g + 29 * b + 128) >> 8).astype(np.uint8)
