#!/usr/bin/env python3
"""Pairs the benchmark tables of variants_on_gpu.sh: for each image, filter,
mask and mode, the median kernel time over rounds with the default kernel
and with the run-time radius, and their ratio (run-time / default)."""
import glob
import os
import re
import statistics
import sys


def parse(path):
    """{(image, filter, mask, mode): ms} from one filterstudio-bench output."""
    times = {}
    image = None
    modes = []
    for line in open(path):
        head = re.match(r"^(8K-\S+) \d+x\d+ ", line)
        if head:
            image = head.group(1)
            continue
        cols = line.split()
        if cols[:2] == ["filter", "mask"]:
            modes = cols[2:-2]  # the last two are floor and best/fl
            continue
        if image and len(cols) == len(modes) + 4 and cols[1].isdigit():
            for mode, value in zip(modes, cols[2:-2]):
                if value != "-":
                    times[(image, cols[0], int(cols[1]), mode)] = float(value)
    return times


def main(folder):
    runs = {"compiled": [], "runtime": []}
    for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
        radius = "runtime" if "-runtime-" in os.path.basename(path) else "compiled"
        runs[radius].append(parse(path))
    keys = sorted({k for run in runs["compiled"] for k in run}, key=lambda k: (k[0], k[3], k[2], k[1]))
    print(f"{'image':<11} {'mode':<10} {'filter':<16} {'mask':>4} {'default':>9} {'run-time':>9} {'ratio':>6}")
    for key in keys:
        a = [r[key] for r in runs["compiled"] if key in r]
        b = [r[key] for r in runs["runtime"] if key in r]
        if not a:
            continue
        med_a = statistics.median(a)
        if not b:
            print(f"{key[0]:<11} {key[3]:<10} {key[1]:<16} {key[2]:>4} {med_a:9.4f} {'refused':>9}")
            continue
        med_b = statistics.median(b)
        print(f"{key[0]:<11} {key[3]:<10} {key[1]:<16} {key[2]:>4} {med_a:9.4f} {med_b:9.4f} {med_b / med_a:6.2f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out-device/variants")
