#!/usr/bin/env python3
"""Peers for filterstudio-bench on the same GPU in the same call.

cuDNN through torch.nn.functional.conv2d (float32, TF32 off so it computes
what we compute) and cupyx.scipy.ndimage (convolve, sobel, laplace,
gaussian_filter) on the same gray float32 images and masks, CUDA-event
medians of 20 runs after warm-up. Reads our CSV and prints our best mode's
time / peer time side by side.

usage: peers.py OUR_CSV [--quick] [--out peers.csv]
       peers.py OUR_CSV --compare PEERS_CSV [--out peers.csv]
The second form measures nothing: it pairs the peer times of an earlier
peers.csv with OUR_CSV's times, so peers measured while our build ran (the GPU
idle) sit beside our benchmark of the same call.
"""
import argparse
import csv


REPEATS = 20


def median_ms(fn):
    import cupy as cp
    import torch

    fn()
    fn()
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(REPEATS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def gaussian_sigma(size):  # cv::getGaussianKernel's sigma for sigma = 0
    return 0.3 * ((size - 1) * 0.5 - 1) + 0.8


def print_pair(r):
    image, filt, mask, mode, ms, peer, pm = r
    print(f"{image:11s} {filt:16s} {mask:2d}x{mask:<2d} ours {mode:9s} {ms:9.4f} ms | {peer:5s} {pm:9.4f} ms"
          f" | ours/peer {ms / pm:6.3f}  (peer is {pm / ms:6.1f}x slower)", flush=True)


def compare(ours, peers_csv):
    results = []
    for row in csv.DictReader(open(peers_csv)):
        key = (row["image"], row["filter"], int(row["mask"]))
        if key not in ours:
            continue
        ms, mode = ours[key][:2]
        results.append((*key, mode, ms, row["peer"], float(row["peer_ms"])))
        print_pair(results[-1])
    if not results:
        raise SystemExit(f"{peers_csv}: no filter in common with our CSV")
    return results


def measure(ours, quick):
    import cupy as cp
    import cupyx.scipy.ndimage as ndi
    import torch
    import torch.nn.functional as F

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its fastest algorithm
    # The images our CSV has, in its order.
    images = []
    for (image, _, _), (_, _, w, h) in ours.items():
        if (image, w, h) not in images:
            images.append((image, w, h))
    if quick:
        images = [i for i in images if i[0] in ("8K-gray", "2800-gray", "22400-gray")]

    results = []
    rng = cp.random.default_rng(1)
    for image, w, h in images:
        x = rng.random((h, w), dtype=cp.float32) * 2 - 1
        xt = torch.as_tensor(x, device="cuda").view(1, 1, h, w)
        keys = sorted(k for k in ours if k[0] == image)
        for _, filt, mask in keys:
            pad = mask // 2
            peers = {}
            if filt == "sobel-magnitude":
                wx = torch.tensor([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=torch.float32, device="cuda")
                wt = torch.stack([wx, wx.t()]).view(2, 1, 3, 3)
                peers["cudnn"] = median_ms(lambda: torch.linalg.vector_norm(F.conv2d(xt, wt, padding=1), dim=1))
                peers["cupy"] = median_ms(lambda: cp.hypot(ndi.sobel(x, axis=1), ndi.sobel(x, axis=0)))
            elif filt == "laplacian":
                wt = torch.tensor([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=torch.float32, device="cuda").view(1, 1, 3, 3)
                peers["cudnn"] = median_ms(lambda: F.conv2d(xt, wt, padding=1))
                peers["cupy"] = median_ms(lambda: ndi.laplace(x))
            elif filt == "gaussian":
                s = gaussian_sigma(mask)
                g = torch.exp(-(torch.arange(mask, device="cuda", dtype=torch.float32) - pad) ** 2 / (2 * s * s))
                g = g / g.sum()
                wt = torch.outer(g, g).view(1, 1, mask, mask)
                peers["cudnn"] = median_ms(lambda: F.conv2d(xt, wt, padding=pad))
                peers["cupy"] = median_ms(lambda: ndi.gaussian_filter(x, s, truncate=pad / s))
            elif filt == "dense":
                k = rng.random((mask, mask), dtype=cp.float32) * 2 - 1
                wt = torch.as_tensor(k, device="cuda").view(1, 1, mask, mask)
                peers["cudnn"] = median_ms(lambda: F.conv2d(xt, wt, padding=pad))
                if mask <= 15 or not quick:
                    peers["cupy"] = median_ms(lambda: ndi.convolve(x, k))
            ms, mode = ours[(image, filt, mask)][:2]
            for peer, pm in peers.items():
                results.append((image, filt, mask, mode, ms, peer, pm))
                print_pair(results[-1])
        del x, xt
        torch.cuda.empty_cache()
        cp.get_default_memory_pool().free_all_blocks()

    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="peers.csv")
    ap.add_argument("--compare", metavar="PEERS_CSV", help="pair these peer times with OUR_CSV; measure nothing")
    args = ap.parse_args()
    ours = {}
    for row in csv.DictReader(line for line in open(args.ours) if not line.startswith("#")):
        if row["channels"] != "1" or row["depth"] != "f32":
            continue
        key = (row["image"], row["filter"], int(row["mask"]))
        ms = float(row["kernel_ms"])
        if key not in ours or ms < ours[key][0]:
            ours[key] = (ms, row["mode"], int(row["width"]), int(row["height"]))

    if args.compare:
        results = compare(ours, args.compare)
    else:
        results = measure(ours, args.quick)
    with open(args.out, "w") as f:
        f.write("image,filter,mask,our_mode,our_ms,peer,peer_ms,ours_over_peer\n")
        for r in results:
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.5f},{r[5]},{r[6]:.5f},{r[4] / r[6]:.4f}\n")


if __name__ == "__main__":
    main()
