#!/usr/bin/env python3
"""Frames per second of N GStreamer streams running at once, counted over one fixed
wall-clock window after a warm-up; and the copy bandwidths of the GPU (for the bound
that bench/multistream.sh sets the aggregate against). Needs only python3 and
gst-launch-1.0 (no GStreamer Python bindings), and for `bandwidth` the CUDA driver
(libcuda.so.1, through ctypes).

    stream_fps.py run --mode pipelines|processes --streams N [--warmup S] [--window S]
                      [--interval MS] -- 'SOURCE ! ... ! cudaccl ...'
    stream_fps.py bandwidth [--device I] [--mib M]

run: every stream is the given chain followed by an fpsdisplaysink (video-sink
fakesink, sync=false, text-overlay=false); `pipelines` puts the N chains into one
gst-launch-1.0 process (one pipeline of N independent branches: one CUDA context),
`processes` runs N gst-launch-1.0 processes. gst-launch-1.0 -v prints each sink's
last-message every --interval ms from its streaming thread: "rendered: R, ...,
average: A", where A = R / (seconds since that stream's first buffer); so R / A is the
stream's own clock at that report, good to the printed digits. Once every stream has
reported (all running), the warm-up passes, then the window [w0, w1] on this
process's monotonic clock. A stream's rate is (R_b - R_a) / (T_b - T_a) between its
last reports received at or before w0 and w1: all its frames in between were counted
while every stream ran. A stream without a report inside the window stalled and
counts 0 fps. Then the processes are stopped (SIGINT, SIGKILL after 10 s).
Prints, for the caller to parse:
    stream I fps F frames R seconds T
    cpu cores C      (CPU seconds of the gst-launch-1.0 processes over the window, per s)
    result fps F0 F1 ... (one per stream)   [or: error TEXT, exit status 1]

bandwidth: host-to-device copy rate from pinned and from pageable host memory and
device-to-device rate (read + write bytes), best of 5 copies of M MiB each:
    bandwidth h2d_pinned_gbps P h2d_pageable_gbps Q d2d_gbps D device NAME
(GB = 1e9 bytes).
"""
import argparse
import ctypes
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

REPORT = re.compile(r"GstFPSDisplaySink:(s\d+): last-message = rendered: (\d+), "
                    r"dropped: \d+, current: [0-9.]+, average: ([0-9.]+)")


def sink(i, interval_ms):
    return (f"fpsdisplaysink name=s{i} video-sink=fakesink text-overlay=false sync=false "
            f"fps-update-interval={interval_ms}")


class Stream:
    def __init__(self):
        self.reports = []  # (arrival monotonic s, rendered, stream-clock s)


def reader(proc, streams, errors, lock):
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        now = time.monotonic()
        m = REPORT.search(line)
        if m:
            rendered, average = int(m.group(2)), float(m.group(3))
            if average <= 0:
                continue
            with lock:
                s = streams.get(m.group(1))
                if s is not None:
                    s.reports.append((now, rendered, rendered / average))
        elif re.search(r"ERROR|WARNING|erroneous|could not|No such element", line):
            with lock:
                errors.append(line.strip())


def cpu_seconds(procs):
    """User + system CPU seconds of the processes so far (all their threads)."""
    total = 0.0
    for p in procs:
        try:
            with open(f"/proc/{p.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


def stop(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    deadline = time.monotonic() + 10
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run(args):
    n, chain = args.streams, " ".join(args.chain)
    if not chain:
        print("error no chain given", flush=True)
        return 1
    launch = ["gst-launch-1.0", "-v"]
    if args.mode == "pipelines":
        desc = []
        for i in range(n):
            desc += shlex.split(chain) + ["!"] + shlex.split(sink(i, args.interval))
        cmds = [launch + desc]
    else:
        # Every process's sink is s0; each process has a reader of its own.
        cmds = [launch + shlex.split(chain) + ["!"] + shlex.split(sink(0, args.interval))
                for _ in range(n)]
    lock = threading.Lock()
    errors = []
    procs, all_streams = [], []
    for cmd in cmds:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        names = [f"s{i}" for i in range(n)] if args.mode == "pipelines" else ["s0"]
        streams = {name: Stream() for name in names}
        all_streams += list(streams.values())
        t = threading.Thread(target=reader, args=(p, streams, errors, lock), daemon=True)
        t.start()
        procs.append(p)
    try:
        # Start-up: until every stream has reported once (its frames flow).
        deadline = time.monotonic() + args.startup_timeout
        while True:
            with lock:
                started = sum(1 for s in all_streams if s.reports)
            if started == n:
                break
            dead = [p for p in procs if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = "a gst-launch-1.0 exited" if dead else f"not all running after {args.startup_timeout} s"
                time.sleep(0.3)
                with lock:
                    msg = "; ".join(errors[:3])
                print(f"error {started} of {n} streams started ({why}){': ' + msg if msg else ''}",
                      flush=True)
                return 1
            time.sleep(0.05)
        w0 = time.monotonic() + args.warmup
        w1 = w0 + args.window
        cpu0 = None
        while time.monotonic() < w1:
            if cpu0 is None and time.monotonic() >= w0:
                cpu0, c0 = cpu_seconds(procs), time.monotonic()
            if any(p.poll() is not None for p in procs):
                with lock:
                    msg = "; ".join(errors[:3])
                print(f"error a gst-launch-1.0 exited inside the window{': ' + msg if msg else ''}",
                      flush=True)
                return 1
            time.sleep(0.05)
        with lock:
            snapshot = [list(s.reports) for s in all_streams]
        cores = (cpu_seconds(procs) - cpu0) / (time.monotonic() - c0) if cpu0 is not None else 0.0
    finally:
        stop(procs)
    fps = []
    for i, reports in enumerate(snapshot):
        a = [r for r in reports if r[0] <= w0]
        b = [r for r in reports if r[0] <= w1]
        ra, rb = a[-1], b[-1]
        if rb is ra or rb[2] <= ra[2]:
            f, frames, seconds = 0.0, 0, 0.0  # no report in the window: stalled
        else:
            frames, seconds = rb[1] - ra[1], rb[2] - ra[2]
            f = frames / seconds
        fps.append(f)
        print(f"stream {i} fps {f:.3f} frames {frames} seconds {seconds:.4f}", flush=True)
    print(f"cpu cores {cores:.2f}", flush=True)
    print("result fps " + " ".join(f"{f:.3f}" for f in fps), flush=True)
    return 0


def bandwidth(args):
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        print(f"error no CUDA driver ({e})", flush=True)
        return 1

    def check(rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed (CUresult {rc})")

    u64 = ctypes.c_uint64
    size = args.mib << 20
    check(cu.cuInit(0), "cuInit")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    check(cu.cuDeviceGet(ctypes.byref(dev), args.device), "cuDeviceGet")
    name = ctypes.create_string_buffer(256)
    cu.cuDeviceGetName(name, 256, dev)
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    d1, d2, pinned = u64(), u64(), ctypes.c_void_p()
    check(cu.cuMemAlloc_v2(ctypes.byref(d1), ctypes.c_size_t(size)), "cuMemAlloc")
    check(cu.cuMemAlloc_v2(ctypes.byref(d2), ctypes.c_size_t(size)), "cuMemAlloc")
    check(cu.cuMemAllocHost_v2(ctypes.byref(pinned), ctypes.c_size_t(size)), "cuMemAllocHost")
    ctypes.memset(pinned, 1, size)
    pageable = (ctypes.c_char * size)()
    ctypes.memset(pageable, 1, size)

    def best(copy):
        times = []
        for _ in range(5):
            check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
            t0 = time.perf_counter()
            copy()
            check(cu.cuCtxSynchronize(), "cuCtxSynchronize")
            times.append(time.perf_counter() - t0)
        return min(times)

    sz = ctypes.c_size_t(size)
    pinned_s = best(lambda: check(cu.cuMemcpyHtoD_v2(d1, pinned, sz), "cuMemcpyHtoD"))
    pageable_s = best(lambda: check(cu.cuMemcpyHtoD_v2(d1, ctypes.cast(pageable, ctypes.c_void_p), sz),
                                    "cuMemcpyHtoD"))
    d2d_s = best(lambda: check(cu.cuMemcpyDtoD_v2(d2, d1, sz), "cuMemcpyDtoD"))
    cu.cuMemFree_v2(d1)
    cu.cuMemFree_v2(d2)
    cu.cuMemFreeHost(pinned)
    cu.cuDevicePrimaryCtxRelease_v2(dev)
    print(f"bandwidth h2d_pinned_gbps {size / pinned_s / 1e9:.2f} "
          f"h2d_pageable_gbps {size / pageable_s / 1e9:.2f} "
          f"d2d_gbps {2 * size / d2d_s / 1e9:.1f} device {name.value.decode().replace(' ', '_')}",
          flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--mode", choices=("pipelines", "processes"), required=True)
    r.add_argument("--streams", type=int, required=True)
    r.add_argument("--warmup", type=float, default=2.0, help="seconds after all streams run")
    r.add_argument("--window", type=float, default=5.0, help="seconds counted")
    r.add_argument("--interval", type=int, default=250, help="ms between a sink's reports")
    r.add_argument("--startup-timeout", type=float, default=60.0)
    r.add_argument("chain", nargs=argparse.REMAINDER)
    b = sub.add_parser("bandwidth")
    b.add_argument("--device", type=int, default=0)
    b.add_argument("--mib", type=int, default=256)
    args = ap.parse_args()
    if args.cmd == "run":
        if args.chain and args.chain[0] == "--":
            args.chain = args.chain[1:]
        return run(args)
    try:
        return bandwidth(args)
    except RuntimeError as e:
        print(f"error {e}", flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
