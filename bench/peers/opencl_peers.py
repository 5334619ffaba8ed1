#!/usr/bin/env python3
"""OpenCL peers: OpenCV's T-API (cv2.UMat) on the same GPU as the CUDA modes.

What a student gets by writing cv2.filter2D / cv2.sepFilter2D on a cv2.UMat,
no CUDA at all: OpenCV generates the OpenCL kernels, the vendor driver
compiles them. Gray float32 image (8K by default), border reflect-101, the
result kept in float32. Per case: two warm-up runs (the first compiles the
OpenCL program), then the median of REPEATS runs, each timed with
time.perf_counter() around the call and cv2.ocl.finish() (the queue is
asynchronous, so the finish is part of the time, as a CUDA event pair on the
stream would be). Also the upload (numpy -> UMat) and download (UMat ->
numpy) of the image, as the opencl backend splits its timing record.

Each result is checked against the same call on a numpy array (OpenCV's CPU
code) and the device OpenCV chose is printed; the script stops when that is
not a GPU. (OpenCV can still run its CPU code for a call its OpenCL code
refuses, without saying so: a time far above the rest is the sign.)

GPU machine: only PoCL is registered there, so this script first writes
/usr/local/nvidia/lib64/libnvidia-opencl.so.1 into
/etc/OpenCL/vendors/nvidia.icd (when that library exists and the file does
not), before OpenCV looks for OpenCL.

usage: opencl_peers.py [--width 7680 --height 4320] [--repeats 20] [--allow-cpu] [--out opencl_peers.csv]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", type=int, default=7680)
    ap.add_argument("--height", type=int, default=4320)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--allow-cpu", action="store_true", help="measure even when OpenCV's device is not a GPU")
    ap.add_argument("--out", default="", help="also write the table as CSV")
    args = ap.parse_args()

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
    host = (rng.random((h, w), dtype=np.float32) * 2 - 1).astype(np.float32)
    border = cv2.BORDER_REFLECT_101

    def median_ms(fn):
        fn()
        fn()
        cv2.ocl.finish()
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn()
            cv2.ocl.finish()
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times), min(times)

    src = cv2.UMat(host)
    cv2.ocl.finish()
    dst = cv2.UMat(h, w, cv2.CV_32F)
    dst2 = cv2.UMat(h, w, cv2.CV_32F)
    mag = cv2.UMat(h, w, cv2.CV_32F)

    sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)
    sobel_y = np.ascontiguousarray(sobel_x.T)
    g15 = cv2.getGaussianKernel(15, 0, ktype=cv2.CV_32F)
    g31 = cv2.getGaussianKernel(31, 0, ktype=cv2.CV_32F)
    dense15 = (rng.random((15, 15), dtype=np.float32) * 2 - 1).astype(np.float32)

    def sobel_magnitude(a, out, tmp, res):
        gx = cv2.filter2D(a, cv2.CV_32F, sobel_x, out, borderType=border)
        gy = cv2.filter2D(a, cv2.CV_32F, sobel_y, tmp, borderType=border)
        return cv2.magnitude(gx, gy, res)

    # name, call on (source, output) -> result; the same call runs on numpy for the check.
    cases = [
        ("sobel-x 3x3", "filter2D", lambda a, o: cv2.filter2D(a, cv2.CV_32F, sobel_x, o, borderType=border)),
        ("sobel-magnitude 3x3", "2x filter2D + magnitude",
         lambda a, o: sobel_magnitude(a, o, dst2 if isinstance(a, cv2.UMat) else None,
                                      mag if isinstance(a, cv2.UMat) else None)),
        ("gaussian 15x15", "sepFilter2D", lambda a, o: cv2.sepFilter2D(a, cv2.CV_32F, g15, g15, o, borderType=border)),
        ("gaussian 31x31", "sepFilter2D", lambda a, o: cv2.sepFilter2D(a, cv2.CV_32F, g31, g31, o, borderType=border)),
        ("gaussian 31x31", "filter2D (dense)",
         lambda a, o: cv2.filter2D(a, cv2.CV_32F, (g31 @ g31.T).astype(np.float32), o, borderType=border)),
        ("dense 15x15", "filter2D", lambda a, o: cv2.filter2D(a, cv2.CV_32F, dense15, o, borderType=border)),
    ]

    rows = []
    up_med, up_min = median_ms(lambda: cv2.UMat(host))
    down_med, down_min = median_ms(lambda: src.get())
    mb = host.nbytes / 1e6
    print(f"\n{w}x{h} f32 gray, {args.repeats} repeats, medians (min)")
    print(f"{'case':22s} {'call':26s} {'median ms':>10s} {'min ms':>9s} {'Mpix/s':>9s} {'max|gpu-cpu|':>13s}")
    print(f"{'upload':22s} {'cv2.UMat(numpy)':26s} {up_med:10.3f} {up_min:9.3f} {'':>9s} {mb / up_med:9.1f} GB/s")
    print(f"{'download':22s} {'UMat.get()':26s} {down_med:10.3f} {down_min:9.3f} {'':>9s} {mb / down_med:9.1f} GB/s")
    rows.append(("upload", "cv2.UMat(numpy)", up_med, up_min, float("nan")))
    rows.append(("download", "UMat.get()", down_med, down_min, float("nan")))
    for name, call, fn in cases:
        med, best = median_ms(lambda: fn(src, dst))
        got = fn(src, dst).get()
        expected = fn(host, None)
        err = float(np.max(np.abs(got - expected)))
        print(f"{name:22s} {call:26s} {med:10.3f} {best:9.3f} {w * h / med / 1e3:9.0f} {err:13.2e}", flush=True)
        rows.append((name, call, med, best, err))

    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# device: {dev.name()}; OpenCV {cv2.__version__}; {w}x{h} f32 gray; repeats {args.repeats}\n")
            f.write("case,call,median_ms,min_ms,max_abs_diff_vs_cpu\n")
            for r in rows:
                f.write(f"{r[0]},{r[1]},{r[2]:.5f},{r[3]:.5f},{r[4]:.3g}\n")


if __name__ == "__main__":
    main()
