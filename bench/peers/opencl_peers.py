#!/usr/bin/env python3
"""OpenCL peers: OpenCV's T-API (cv2.UMat) on the same GPU as the CUDA modes.

What a student gets by writing cv2.GaussianBlur, cv2.sepFilter2D or
cv2.filter2D on a cv2.UMat, no CUDA at all: OpenCV generates the OpenCL
kernels, the vendor driver compiles them. The benchmark's images (8K by
default): gray float32, gray 8-bit, BGR 8-bit and RGBA 8-bit, results in the
input's depth, border reflect-101; a Gaussian (sigma 0, as our presets) and
a dense random kernel in [-1, 1] of every size in --sizes, and for gray
float32 also Sobel x and the Sobel magnitude (two filter2D and
cv2.magnitude). Per case: two warm-up runs (the first compiles the OpenCL
program), then the median of REPEATS runs (5 where one takes over 20 ms),
each timed with time.perf_counter() around the call and cv2.ocl.finish()
(the queue is asynchronous, so the finish is part of the time, as a CUDA
event pair on the stream would be). Also the upload (numpy -> UMat) and
download (UMat -> numpy) of each image, as the opencl backend splits its
timing record.

Each case is checked against the same call on a numpy array (OpenCV's CPU
code) on a 1024x1024 corner of the image, and the device OpenCV chose is
printed; the script stops when that is not a GPU. (OpenCV can still run its
CPU code for a call its OpenCL code refuses, without saying so: a time far
above the rest is the sign.)

GPU machine: only PoCL is registered there, so this script first writes
/usr/local/nvidia/lib64/libnvidia-opencl.so.1 into
/etc/OpenCL/vendors/nvidia.icd (when that library exists and the file does
not), before OpenCV looks for OpenCL.

usage: opencl_peers.py [--width 7680 --height 4320] [--images gray,gray8,bgr8,rgba8] [--sizes 3,5,...,31]
                       [--repeats 20] [--allow-cpu] [--out opencl_peers.csv]
The CSV (image, filter, mask, peer, call, peer_ms, ...) is one that peers.py --compare reads.
"""
import argparse
import os
import statistics
import sys
import time

NVIDIA_OPENCL = "/usr/local/nvidia/lib64/libnvidia-opencl.so.1"
NVIDIA_ICD = "/etc/OpenCL/vendors/nvidia.icd"


def register_nvidia_icd():
    if os.path.exists(NVIDIA_OPENCL) and not os.path.exists(NVIDIA_ICD):
        try:
            os.makedirs(os.path.dirname(NVIDIA_ICD), exist_ok=True)
            with open(NVIDIA_ICD, "w") as f:
                f.write(NVIDIA_OPENCL + "\n")
            print(f"registered {NVIDIA_OPENCL} in {NVIDIA_ICD}")
        except OSError as e:
            print(f"could not write {NVIDIA_ICD}: {e}", file=sys.stderr)


IMAGES = {"gray": (1, "f32"), "gray8": (1, "u8"), "bgr8": (3, "u8"), "rgba8": (4, "u8")}  # as filterstudio-bench


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", type=int, default=7680)
    ap.add_argument("--height", type=int, default=4320)
    ap.add_argument("--images", default="gray,gray8,bgr8,rgba8")
    ap.add_argument("--sizes", default="3,5,7,15,31", help="odd Gaussian and dense sizes, e.g. 3,5,7,...,31")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--allow-cpu", action="store_true", help="measure even when OpenCV's device is not a GPU")
    ap.add_argument("--out", default="", help="also write the table as CSV")
    args = ap.parse_args()
    images = args.images.split(",")
    unknown = [i for i in images if i not in IMAGES]
    if unknown:
        sys.exit(f"--images knows {', '.join(IMAGES)}, not {', '.join(unknown)}")
    sizes = [int(v) for v in args.sizes.split(",")]

    register_nvidia_icd()  # before cv2 first asks the OpenCL loader for platforms
    if args.allow_cpu:
        os.environ.setdefault("OPENCV_OPENCL_DEVICE", "::")  # OpenCV skips CPU devices otherwise
    import cv2
    import numpy as np

    cv2.ocl.setUseOpenCL(True)
    if not cv2.ocl.haveOpenCL() or not cv2.ocl.useOpenCL():
        sys.exit("OpenCV found no usable OpenCL device (haveOpenCL=%s)" % cv2.ocl.haveOpenCL())
    get_default = getattr(cv2.ocl, "Device_getDefault", None) or cv2.ocl.Device.getDefault  # 4.x / 5.x bindings
    dev = get_default()
    gpu_bit = getattr(cv2.ocl, "Device_TYPE_GPU", 4)  # CL_DEVICE_TYPE_GPU
    is_gpu = (dev.type() & gpu_bit) != 0
    print(f"OpenCV {cv2.__version__}, OpenCL device: {dev.name()} ({dev.vendorName()}, {dev.version()}, "
          f"driver {dev.driverVersion()}, {'GPU' if is_gpu else 'not a GPU'})")
    if not is_gpu and not args.allow_cpu:
        sys.exit("the default OpenCL device is not a GPU; pass --allow-cpu to measure it anyway")

    w, h = args.width, args.height
    rng = np.random.default_rng(1)
    border = cv2.BORDER_REFLECT_101

    def median_ms(fn):
        fn()
        cv2.ocl.finish()
        warm = time.perf_counter()
        fn()
        cv2.ocl.finish()
        repeats = 5 if (time.perf_counter() - warm) * 1e3 > 20 else args.repeats  # dense 31 on colour
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            cv2.ocl.finish()
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times), min(times)

    sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    sobel_y = np.ascontiguousarray(sobel_x.T)

    def sobel_magnitude(a):
        gx = cv2.filter2D(a, cv2.CV_32F, sobel_x, borderType=border)
        gy = cv2.filter2D(a, cv2.CV_32F, sobel_y, borderType=border)
        return cv2.magnitude(gx, gy)

    rows = []  # image, filter, mask, call, median, min, max |gpu - cpu|
    comments = []
    print(f"{'image':9s} {'case':18s} {'call':26s} {'median ms':>10s} {'min ms':>9s} {'Mpix/s':>9s} {'max|gpu-cpu|':>13s}")
    for name in images:
        channels, depth = IMAGES[name]
        label = f"8K-{name}" if (w, h) == (7680, 4320) else f"{w}x{h}-{name}"
        shape = (h, w) if channels == 1 else (h, w, channels)
        if depth == "f32":
            host = (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)
        else:
            host = rng.integers(0, 256, size=shape, dtype=np.uint8)
        corner = np.ascontiguousarray(host[:1024, :1024])
        src = cv2.UMat(host)
        cv2.ocl.finish()
        up_med, up_min = median_ms(lambda: cv2.UMat(host))
        down_med, down_min = median_ms(lambda: src.get())
        mb = host.nbytes / 1e6
        comments.append(f"# {label} upload cv2.UMat(numpy) median {up_med:.5f} ms ({mb / up_med:.1f} GB/s), "
                        f"download UMat.get() median {down_med:.5f} ms ({mb / down_med:.1f} GB/s)")
        print(comments[-1][2:])

        # filter, mask, call, fn(source) -> result; the same call runs on a numpy corner for the check.
        cases = []
        if name == "gray":
            cases.append(("sobel-x", 3, "filter2D", lambda a: cv2.filter2D(a, cv2.CV_32F, sobel_x, borderType=border)))
            cases.append(("sobel-magnitude", 3, "2x filter2D + magnitude", sobel_magnitude))
        for k in sizes:
            dense = (rng.random((k, k), dtype=np.float32) * 2 - 1).astype(np.float32)
            cases.append(("gaussian", k, "GaussianBlur",
                          lambda a, k=k: cv2.GaussianBlur(a, (k, k), 0, borderType=border)))
            # GaussianBlur runs its OpenCL kernel for some sizes and types only (else
            # the CPU's, through mapped buffers); sepFilter2D on the same weights is
            # what a user then calls. The table takes the faster.
            g = cv2.getGaussianKernel(k, 0, ktype=cv2.CV_32F)
            cases.append(("gaussian", k, "sepFilter2D",
                          lambda a, g=g: cv2.sepFilter2D(a, -1, g, g, borderType=border)))
            cases.append(("dense", k, "filter2D", lambda a, d=dense: cv2.filter2D(a, -1, d, borderType=border)))
        for filt, mask, call, fn in cases:
            med, best = median_ms(lambda: fn(src))
            got = fn(cv2.UMat(corner)).get()
            expected = fn(corner)
            err = float(np.max(np.abs(got.astype(np.float32) - expected.astype(np.float32))))
            print(f"{label:9s} {filt + f' {mask}x{mask}':18s} {call:26s} {med:10.3f} {best:9.3f} "
                  f"{w * h / med / 1e3:9.0f} {err:13.2e}", flush=True)
            rows.append((label, filt, mask, call, med, best, err))
        del src

    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# device: {dev.name()}; OpenCV {cv2.__version__}; {w}x{h}; repeats {args.repeats}\n")
            for line in comments:
                f.write(line + "\n")
            f.write("image,filter,mask,peer,call,peer_ms,min_ms,max_abs_diff_vs_cpu\n")
            for r in rows:
                f.write(f"{r[0]},{r[1]},{r[2]},opencl,{r[3]},{r[4]:.5f},{r[5]:.5f},{r[6]:.3g}\n")


if __name__ == "__main__":
    main()
