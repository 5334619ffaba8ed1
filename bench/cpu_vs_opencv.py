#!/usr/bin/env python3
"""cpu/parallel against OpenCV's own calls (cpu/opencv-native) with filterstudio-cli bench.

Each case is one `filterstudio-cli bench` call timing both modes on the same
seeded random image, the two modes taking turns run by run, so both see the
same machine state. Prints a markdown table of the medians and
parallel / OpenCV per case (above 1: parallel is slower), with the date, CPU
model, core count and the command. Python standard library only.

  bench/cpu_vs_opencv.py                      the eight standard cases
  bench/cpu_vs_opencv.py --wide               u8 1/3/4 ch and f32 1 ch; Gaussian, box and dense
                                              3..31, Sobel, Laplacian; 512x512 and 8K; Gaussians
                                              5..15 with explicit sigmas on BGR u8 and RGBA8
                                              photographs of 2, 8 and 24 megapixels; 3x3 and 5x5
                                              dense kernels on a 4-megapixel f32 image
  bench/cpu_vs_opencv.py --wide --match 512^2  only the cases whose label contains 512^2
  bench/cpu_vs_opencv.py --cli build-x/tools/cli/filterstudio-cli --repeats 10 --warmup 2
  bench/cpu_vs_opencv.py --wide --photo IMAGE  the photograph cases from IMAGE (default
                                              tests/data/fruits.jpg), mirror-tiled to each size

Photographs are made once per run in a temporary folder: the CLI converts
the photograph to PPM, and this script mirror-tiles it to each size and
writes it as PNG (RGBA8: an opaque alpha channel added), so every size has
the photograph's edges and textures and no seams.
"""
import argparse
import csv
import datetime
import glob
import os
import platform
import shlex
import struct
import subprocess
import sys
import tempfile
import zlib

PARALLEL = "parallel"
OPENCV = "opencv-native"

EIGHT_K = (7680, 4320)
UHD = (3840, 2160)

# (label, width, height, channels, depth, kernel)
STANDARD_CASES = [
    ("8K RGBA8 Gaussian 3x3", *EIGHT_K, 4, "u8", "gaussian:3:0"),
    ("3840x2160 BGR u8 Sobel x", *UHD, 3, "u8", "sobel-x"),
    ("3840x2160 BGR u8 Gaussian 15", *UHD, 3, "u8", "gaussian:15:0"),
    ("2048^2 gray u8 Gaussian 7", 2048, 2048, 1, "u8", "gaussian:7:0"),
    ("2048^2 gray u8 box 3", 2048, 2048, 1, "u8", "box:3"),
    ("8K f32 Sobel x", *EIGHT_K, 1, "f32", "sobel-x"),
    ("8K f32 Gaussian 31", *EIGHT_K, 1, "f32", "gaussian:31:0"),
    ("8K f32 box 15", *EIGHT_K, 1, "f32", "box:15"),
]


# Photographs (width, height, name): about 2, 8 and 24 megapixels.
PHOTO_SIZES = ((1920, 1080, "2MP"), (3840, 2160, "8MP"), (6000, 4000, "24MP"))
# Gaussians with explicit sigmas: weights that are not n / 2^k, as users pick them.
PHOTO_GAUSSIANS = ((5, 1.3), (7, 1.7), (9, 2.2), (11, 2.7), (13, 3.1), (15, 3.6))
# Small dense kernels on a 4-megapixel f32 image (2-D kernels: filter2D on OpenCV's side).
DENSE_F32 = (("Laplacian 4", "laplacian-4"), ("Laplacian 8", "laplacian-8"), ("sharpen 3", "sharpen"),
             ("emboss 3", "emboss"), ("dense (LoG) 3", "log:3:0.50"), ("dense (LoG) 5", "log:5:0.83"))


def wide_cases():
    cases = []
    for width, height, size_name in ((512, 512, "512^2"), (*EIGHT_K, "8K")):
        for channels, depth in ((1, "u8"), (3, "u8"), (4, "u8"), (1, "f32")):
            image = f"{size_name} {channels}ch {depth}"
            kernels = []
            for n in (3, 5, 7, 15, 31):
                kernels += [(f"Gaussian {n}", f"gaussian:{n}:0"), (f"box {n}", f"box:{n}"),
                            # Laplacian of Gaussian: not separable, so both sides run a dense 2-D kernel.
                            (f"dense (LoG) {n}", f"log:{n}:{max(0.5, n / 6):.2f}")]
            kernels += [("Sobel x", "sobel-x"), ("Laplacian", "laplacian-4")]
            cases += [(f"{image} {label}", width, height, channels, depth, kernel) for label, kernel in kernels]
    for width, height, size_name in PHOTO_SIZES:
        for channels, layout in ((3, "BGR u8"), (4, "RGBA8")):
            for size, sigma in PHOTO_GAUSSIANS:
                cases.append((f"photo {size_name} {layout} Gaussian {size} sigma {sigma}", width, height, channels,
                              "photo", f"gaussian:{size}:{sigma}"))
    for label, kernel in DENSE_F32:
        cases.append((f"2048^2 1ch f32 {label}", 2048, 2048, 1, "f32", kernel))
    return cases


def read_ppm(path):
    """(width, height, RGB bytes) of a binary 8-bit PPM."""
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:  # magic, width, height, maximum; '#' comments skipped
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b"#":
            at = data.index(b"\n", at) + 1
            continue
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    if fields[0] != b"P6" or fields[3] != b"255":
        sys.exit(f"{path}: not an 8-bit binary PPM")
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[at + 1:at + 1 + width * height * 3]


def mirror_tiled(width, height, pixels, channels, out_width, out_height):
    """Rows of the image mirror-tiled (reflected at every edge) to out_width x out_height."""
    rows = [pixels[y * width * channels:(y + 1) * width * channels] for y in range(height)]
    wide = []
    for row in rows:
        flipped = bytearray(len(row))
        for c in range(channels):
            flipped[c::channels] = row[c::channels][::-1]
        period = bytes(row) + bytes(flipped)
        repeat = period * (out_width * channels // len(period) + 1)
        wide.append(repeat[:out_width * channels])
    period_rows = wide + wide[::-1]
    return [period_rows[y % len(period_rows)] for y in range(out_height)]


def write_png(path, width, height, channels, rows):
    """An 8-bit RGB (3 channels) or RGBA (4) PNG of the given rows."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    colour_type = {3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + row for row in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 1)))
        f.write(chunk(b"IEND", b""))


def make_photographs(cli, photo, cases, workdir):
    """{(width, height, channels): PNG path} for the photograph cases."""
    shapes = sorted({(w, h, c) for _label, w, h, c, depth, _kernel in cases if depth == "photo"})
    if not shapes:
        return {}
    identity = os.path.join(workdir, "identity.json")
    with open(identity, "w", encoding="utf-8") as f:
        f.write('{"format": "filterstudio-kernel", "version": 1, "name": "identity", "combine": "single", '
                '"kernels": [{"width": 1, "height": 1, "weights": [[1]]}]}')
    ppm = os.path.join(workdir, "photo.ppm")
    done = subprocess.run([cli, "apply", "-i", photo, "-o", ppm, "-k", identity, "--backend", "cpu",
                           "--mode", "reference"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{photo}: the CLI could not convert it to PPM: {(done.stderr or done.stdout).strip()}")
    width, height, rgb = read_ppm(ppm)
    paths = {}
    for out_width, out_height, channels in shapes:
        pixels = rgb
        if channels == 4:
            rgba = bytearray(width * height * 4)
            for c in range(3):
                rgba[c::4] = rgb[c::3]
            rgba[3::4] = b"\xff" * (width * height)
            pixels = bytes(rgba)
        rows = mirror_tiled(width, height, pixels, channels, out_width, out_height)
        path = os.path.join(workdir, f"photo-{out_width}x{out_height}x{channels}.png")
        write_png(path, out_width, out_height, channels, rows)
        paths[(out_width, out_height, channels)] = path
    return paths


def find_cli(given):
    chosen = given or os.environ.get("FILTERSTUDIO_CLI")
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            sys.exit(f"{chosen}: not an executable filterstudio-cli")
        return chosen
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    built = glob.glob(os.path.join(root, "build*", "tools", "cli", "filterstudio-cli"))
    if not built:
        sys.exit("filterstudio-cli not found: build it (cmake --build BUILD --target filterstudio-cli) "
                 "or pass --cli PATH")
    return max(built, key=os.path.getmtime)  # the most recently built


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run_case(cli, case, args, workdir, index, photos):
    label, width, height, channels, depth, kernel = case
    csv_path = os.path.join(workdir, f"case{index}.csv")
    image = photos[(width, height, channels)] if depth == "photo" else f"random:{width}x{height}:{channels}:{depth}"
    command = [cli, "bench", "-i", image, "-k", kernel,
               "--backend", "cpu", "--mode", f"{PARALLEL},{OPENCV}", "--repeats", str(args.repeats),
               "--warmup", str(args.warmup), "--seed", str(args.seed), "--csv", csv_path]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return None, f"exit {done.returncode}: {lines[-1] if lines else 'no message'}"
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = {row["mode"]: row for row in csv.DictReader(f)}
    return rows, None


def spread(row):
    """The median with the range of the timed runs, which shows how noisy the machine was."""
    return f"{float(row['median_ms']):.3f} ({float(row['min_ms']):.3f}-{float(row['max_ms']):.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", help="filterstudio-cli to run (default: $FILTERSTUDIO_CLI, else the newest build*/)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per mode and case (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="warm-up runs per mode and case (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random images (default 1)")
    parser.add_argument("--wide", action="store_true", help="the wider matrix instead of the eight standard cases")
    parser.add_argument("--match", default="", help="only the cases whose label contains this text (e.g. 512^2)")
    parser.add_argument("--photo", help="the photograph of the photo cases (default: tests/data/fruits.jpg)")
    args = parser.parse_args()
    if args.repeats < 1 or args.warmup < 0:
        parser.error("--repeats must be at least 1 and --warmup at least 0")

    cli = find_cli(args.cli)
    cases = [c for c in (wide_cases() if args.wide else STANDARD_CASES) if args.match in c[0]]
    if not cases:
        parser.error(f"no case label contains '{args.match}'")
    started = datetime.datetime.now(datetime.timezone.utc)
    results = []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    photo = args.photo or os.path.join(root, "tests", "data", "fruits.jpg")
    with tempfile.TemporaryDirectory(prefix="fs-cpu-vs-opencv-") as workdir:
        photos = make_photographs(cli, photo, cases, workdir)
        for index, case in enumerate(cases):
            print(f"[{index + 1}/{len(cases)}] {case[0]} ...", file=sys.stderr, flush=True)
            results.append((case, *run_case(cli, case, args, workdir, index, photos)))

    device = next((rows[PARALLEL]["device"] for _, rows, _ in results if rows), cpu_model())
    print(f"## cpu/{PARALLEL} vs OpenCV (cpu/{OPENCV})\n")
    print(f"- date: {started:%Y-%m-%d %H:%M} UTC")
    print(f"- CPU: {device}, {os.cpu_count()} logical cores")
    print(f"- command: {' '.join(shlex.quote(a) for a in sys.argv)}; filterstudio-cli: {cli}")
    print(f"- per case: one `filterstudio-cli bench` call, {args.warmup} warm-up and {args.repeats} timed runs per "
          f"mode, the modes taking turns run by run; medians of the time the backend reports as kernel time "
          f"(the `timed` column of bench); random images, seed {args.seed}; photo cases: "
          f"{os.path.relpath(photo, root) if photo.startswith(root) else photo} mirror-tiled to each size")
    print(f"- parallel / OpenCV above 1: cpu/{PARALLEL} is slower than OpenCV's own call\n")
    print("| case | kernel | parallel ms (min-max) | OpenCV ms (min-max) | parallel / OpenCV |")
    print("|---|---|---:|---:|---:|")
    failed = 0
    for (label, *_rest, kernel), rows, error in results:
        if error:
            failed += 1
            print(f"| {label} | `{kernel}` | failed | | {error} |")
            continue
        parallel = float(rows[PARALLEL]["median_ms"])
        opencv = float(rows[OPENCV]["median_ms"])
        ratio = f"{parallel / opencv:.2f}" if opencv > 0 else "-"
        print(f"| {label} | `{kernel}` | {spread(rows[PARALLEL])} | {spread(rows[OPENCV])} | {ratio} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
