#!/usr/bin/env python3
"""Peers for filterstudio-bench on the same GPU in the same call.

cuDNN through torch.nn.functional.conv2d (float32, TF32 off so it computes
what we compute) and cupyx.scipy.ndimage (convolve, sobel, laplace,
gaussian_filter) on images of the same size, layout and depth as each of our
CSV's, with the same masks, CUDA-event medians of 20 runs after warm-up (5
where one run takes over 20 ms, as filterstudio-bench does over 200 ms). Reads
our CSV and prints our best mode's time / peer time side by side.

Each peer is called as its users would on that image:
- cuDNN: the HWC image viewed as NCHW with channels-last strides (no copy), a
  depthwise conv2d (groups = channels); 8-bit images are converted to float32
  first and rounded, clamped and converted back after, all inside the time.
- CuPy: the ndimage call on the HWC array (a mask of depth 1 for colour);
  8-bit images give 8-bit results (sobel and laplace through float32).
Without --border both pad with their own border (cuDNN zeros inside conv2d,
CuPy reflect), ours as our CSV says: the same reads, resolved differently at
the edges. With --border NAME both use that border, as their users would ask
for it: torch pads with F.pad first (what nn.Conv2d's padding_mode does),
CuPy passes its mode (replicate = nearest, reflect101 = mirror, wrap = wrap,
constant = constant 0). --size WxH times only our CSV's images of that size.

With --tf32, cuDNN runs with TF32 on and is named cudnn-tf32, the peer of
our tensor mode (filterstudio-bench --modes tensor); CuPy has no TF32 path
and is left out.

usage: peers.py OUR_CSV [--quick] [--tf32] [--size WxH] [--border NAME] [--out peers.csv]
       peers.py OUR_CSV --compare PEERS_CSV [PEERS_CSV ...] [--markdown] [--out peers.csv]
The second form measures nothing: it pairs the peer times of earlier CSVs with
OUR_CSV's times in one table, a column per peer, so peers measured while our
build ran (the GPU idle) sit beside our benchmark of the same call. It reads
this script's peers.csv (cuDNN, CuPy), npp-peers' CSV (NPP: f32 and u8 gray,
BGR u8, RGBA8; build it with CMake where the toolkit has NPP, target
npp-peers) and opencl_peers.py's CSV (OpenCV's OpenCL, the same four
layouts), and pairs every image our CSV has (filterstudio-bench --images gray,gray8,bgr8,rgba8
for all of NPP's).
"""
import argparse
import csv
import time


REPEATS = 20
SLOW_MS, SLOW_REPEATS = 20.0, 5  # calls slower than this (dense 31 and 63 on colour) get fewer repeats
HOLD_CYCLES = 200_000  # about 100 us at the H100's 1.98 GHz


def median_ms(fn):
    import cupy as cp
    import torch

    fn()
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()
    warm = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()
    repeats = SLOW_REPEATS if (time.perf_counter() - warm) * 1e3 > SLOW_MS else REPEATS
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        # As filterstudio-bench: the stream is held while the host launches, so the
        # events time the device alone (cupy and torch share the default stream).
        torch.cuda._sleep(HOLD_CYCLES)
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


def read_peer_csv(path):
    """(image, filter, mask) -> {peer: ms}: the fastest time of each peer per case."""
    times = {}
    lines = [line for line in open(path) if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    for row in rows:
        key, peer, ms = (row["image"], row["filter"], int(row["mask"])), row["peer"], row["peer_ms"]
        if not ms:
            continue  # the peer refused this case (its error column says why)
        best = times.setdefault(key, {})
        best[peer] = min(best.get(peer, float("inf")), float(ms))
    return times


def compare(ours, peer_csvs, markdown=False):
    peers_of = {}
    for path in peer_csvs:
        for key, times in read_peer_csv(path).items():
            for peer, ms in times.items():
                slot = peers_of.setdefault(key, {})
                slot[peer] = min(slot.get(peer, float("inf")), ms)
    names = sorted({p for times in peers_of.values() for p in times})
    results = []
    if markdown:
        print("| image | filter | floor | ours (mode) | × floor | " + " | ".join(names) + " | ours ÷ fastest peer |")
        print("| --- " * (6 + len(names)) + "|")
    else:
        print("ms on the device; floor: our benchmark's (the larger of memory and FP32 FMAs, kw + kh a pixel for rank-1 kernels)")
        print(f"{'image':11s} {'filter':16s} {'mask':5s} {'floor':>9s} {'ours':>19s} {'/floor':>6s}"
              + "".join(f" {n:>9s}" for n in names) + "  ours/fastest peer")
    for key in (k for k in ours if k in peers_of):  # our CSV's order: layout, then mask
        ms, mode = ours[key][:2]
        floor = ours[key][6]
        times = peers_of[key]
        cells = "".join(f" {times[n]:9.4f}" if n in times else f" {'-':>9s}" for n in names)
        fastest = min(times.values())
        if markdown:
            peer_cells = " | ".join(f"{times[n]:.3f}" if n in times else "" for n in names)
            print(f"| {key[0]} | {key[1]} {key[2]}×{key[2]} | {floor:.3f} | {ms:.3f} ({mode}) | {ms / floor:.2f} | "
                  f"{peer_cells} | {ms / fastest:.2f} |")
        else:
            print(f"{key[0]:11s} {key[1]:16s} {key[2]:2d}x{key[2]:<2d} {floor:9.4f} {mode:9s} {ms:9.4f} "
                  f"{ms / floor:6.2f}{cells}  {ms / fastest:6.3f}", flush=True)
        for peer in names:
            if peer in times:
                results.append((*key, mode, ms, peer, times[peer]))
    if not results:
        raise SystemExit(f"{', '.join(peer_csvs)}: no case in common with our CSV")
    print(("\n" if markdown else "") + tally(ours, peers_of))
    return results


def tally(ours, peers_of, target=1.5):
    """How many cases ours leads every peer in, how many are within `target` x their floor, and how many
    carry every peer that timed their filter on their image at some size (peers lack some filters)."""
    keys = [k for k in ours if k in peers_of]
    ahead = sum(1 for k in keys if ours[k][0] <= min(peers_of[k].values()))
    within = sum(1 for k in keys if ours[k][0] <= target * ours[k][6])
    has = {}
    for (image, filt, _), times in peers_of.items():
        has.setdefault((image, filt), set()).update(times)
    complete = sum(1 for k in keys if has[k[:2]] <= peers_of[k].keys())
    return (f"ours is ahead of every peer in {ahead} of {len(keys)} cases; "
            f"within {target}x the floor in {within} of {len(keys)}; "
            f"every peer of the filter in {complete} of {len(keys)}")


# Our border names -> (F.pad mode, CuPy ndimage mode); None: the library has no such border.
BORDERS = {
    "replicate": ("replicate", "nearest"),
    "reflect101": ("reflect", "mirror"),
    "wrap": ("circular", "wrap"),
    "constant": ("constant", "constant"),
}


def measure(ours, quick, keep, tf32=False, border=None):
    import cupy as cp
    import cupyx.scipy.ndimage as ndi
    import torch
    import torch.nn.functional as F

    torch.backends.cudnn.allow_tf32 = tf32
    cudnn = "cudnn-tf32" if tf32 else "cudnn"

    def cupy_ms(call):  # CuPy has no TF32 path: not timed beside cudnn-tf32
        return None if tf32 else median_ms(call)
    torch.backends.cudnn.benchmark = True  # let cuDNN pick its fastest algorithm
    # The images our CSV has, in its order.
    images = []
    for (image, _, _), (_, _, w, h, channels, depth, _) in ours.items():
        if (image, w, h, channels, depth) not in images:
            images.append((image, w, h, channels, depth))
    if quick:
        images = [i for i in images if i[0] in ("8K-gray", "2800-gray", "22400-gray")]

    results = []
    rng = cp.random.default_rng(1)
    for image, w, h, channels, depth in images:
        shape = (h, w) if channels == 1 else (h, w, channels)
        eight_bit = depth == "u8"
        if eight_bit:
            x = rng.integers(0, 256, size=shape, dtype=cp.uint8)
        else:
            x = rng.random(shape, dtype=cp.float32) * 2 - 1
        # NCHW view of the HWC image: channels-last strides, no copy.
        xt = torch.as_tensor(x, device="cuda").view(1, h, w, channels).permute(0, 3, 1, 2)

        def torch_conv(weights, pad, combine=None):
            """Depthwise conv2d of every channel with each of `weights` (k x k tensors)."""
            # groups = channels: channel c's outputs are weights' entries in order
            wt = torch.stack([wk for _ in range(channels) for wk in weights]).view(len(weights) * channels, 1,
                                                                                   *weights[0].shape)

            def run():
                xf = xt.float() if eight_bit else xt
                if border:
                    y = F.conv2d(F.pad(xf, (pad, pad, pad, pad), mode=BORDERS[border][0]), wt, groups=channels)
                else:
                    y = F.conv2d(xf, wt, padding=pad, groups=channels)
                if combine:
                    y = combine(y)
                return y.round_().clamp_(0, 255).to(torch.uint8) if eight_bit else y
            return run

        def cupy_window(k):  # a k x k mask, depth 1 on the channel axis
            return k if channels == 1 else k[:, :, None]

        out_type = cp.float32 if eight_bit else None
        edge = {"mode": BORDERS[border][1]} if border else {}

        def cupy_result(y):
            return cp.clip(cp.rint(y), 0, 255).astype(cp.uint8) if eight_bit else y

        keys = sorted(k for k in ours if k[0] == image)
        for _, filt, mask in keys:
            pad = mask // 2
            peers = {}
            if filt == "sobel-magnitude" and mask == 3:
                wx = torch.tensor([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=torch.float32, device="cuda")
                pairs = lambda y: torch.linalg.vector_norm(y.reshape(1, channels, 2, h, w), dim=2)  # noqa: E731
                peers[cudnn] = median_ms(torch_conv([wx, wx.t()], 1, pairs))
                peers["cupy"] = cupy_ms(lambda: cupy_result(
                    cp.hypot(ndi.sobel(x, axis=1, output=out_type, **edge), ndi.sobel(x, axis=0, output=out_type, **edge))))
            elif filt == "laplacian":
                wl = torch.tensor([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=torch.float32, device="cuda")
                peers[cudnn] = median_ms(torch_conv([wl], 1))
                lap = cp.asarray([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=cp.float32)
                peers["cupy"] = cupy_ms(lambda: cupy_result(ndi.convolve(x, cupy_window(lap), output=out_type, **edge)))
            elif filt == "gaussian":
                s = gaussian_sigma(mask)
                g = torch.exp(-(torch.arange(mask, device="cuda", dtype=torch.float32) - pad) ** 2 / (2 * s * s))
                g = g / g.sum()
                peers[cudnn] = median_ms(torch_conv([torch.outer(g, g)], pad))
                sigma = s if channels == 1 else (s, s, 0)
                peers["cupy"] = cupy_ms(lambda: ndi.gaussian_filter(x, sigma, truncate=pad / s, **edge))
            elif filt == "dense":
                k = rng.random((mask, mask), dtype=cp.float32) * 2 - 1
                peers[cudnn] = median_ms(torch_conv([torch.as_tensor(k, device="cuda")], pad))
                if mask <= 15 or not quick:
                    peers["cupy"] = cupy_ms(lambda: ndi.convolve(x, cupy_window(k), **edge))
            ms, mode = ours[(image, filt, mask)][:2]
            for peer, pm in ((p, v) for p, v in peers.items() if v is not None):
                results.append((image, filt, mask, mode, ms, peer, pm))
                print_pair(results[-1])
                keep(results[-1])
        del x, xt
        torch.cuda.empty_cache()
        cp.get_default_memory_pool().free_all_blocks()

    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tf32", action="store_true", help="cuDNN with TF32 on (cudnn-tf32), no CuPy")
    ap.add_argument("--out", default="peers.csv")
    ap.add_argument("--compare", metavar="PEERS_CSV", nargs="+",
                    help="pair these peer CSVs' times with OUR_CSV in one table; measure nothing")
    ap.add_argument("--markdown", action="store_true", help="with --compare: the table in Markdown")
    ap.add_argument("--size", metavar="WxH", help="only our CSV's images of this size")
    ap.add_argument("--border", choices=sorted(BORDERS), help="both peers pad with this border (default: their own)")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x")) if args.size else None
    ours = {}
    for row in csv.DictReader(line for line in open(args.ours) if not line.startswith("#")):
        if row["depth"] not in ("f32", "u8"):
            continue  # the peers' images: f32 and 8-bit
        if size and (int(row["width"]), int(row["height"])) != size:
            continue
        key = (row["image"], row["filter"], int(row["mask"]))
        ms = float(row["kernel_ms"])
        if key not in ours or ms < ours[key][0]:
            # auto's row names the mode it ran
            ours[key] = (ms, row.get("ran_mode") or row["mode"], int(row["width"]), int(row["height"]),
                         int(row["channels"]), row["depth"], float(row["floor_ms"]))

    with open(args.out, "w") as f:
        f.write("image,filter,mask,our_mode,our_ms,peer,peer_ms,ours_over_peer\n")

        def keep(r):  # row by row, so a run cut short keeps what it measured
            f.write(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.5f},{r[5]},{r[6]:.5f},{r[4] / r[6]:.4f}\n")
            f.flush()
        if args.compare:
            for r in compare(ours, args.compare, args.markdown):
                keep(r)
        else:
            measure(ours, args.quick, keep, args.tf32, args.border)


if __name__ == "__main__":
    main()
