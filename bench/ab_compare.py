#!/usr/bin/env python3
"""Compares two sets of filterstudio-bench CSVs (an A/B of two trees).

Each case (image, filter, mask, mode) takes the median of its kernel times
over the rounds of each side; the table lists new/old per case, and the cases
slower than --limit are named. Exit 1 when any case is slower than the limit.
"""
import argparse
import csv
import statistics
import sys


def load(paths):
    times = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(line for line in f if not line.startswith("#")):
                key = (row["image"], row["filter"], int(row["mask"]), row["mode"])
                times.setdefault(key, []).append(float(row["kernel_ms"]))
    return {key: statistics.median(v) for key, v in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", nargs="+", required=True, help="CSVs of the tree measured against")
    parser.add_argument("--new", nargs="+", required=True, help="CSVs of the change")
    parser.add_argument("--limit", type=float, default=1.02, help="largest new/old ratio allowed (default 1.02)")
    args = parser.parse_args()
    old, new = load(args.old), load(args.new)
    common = sorted(set(old) & set(new))
    if not common:
        print("no case in both sets")
        return 1
    ratios = {key: new[key] / old[key] for key in common}
    slower = [key for key in common if ratios[key] > args.limit]
    geo = statistics.geometric_mean(ratios.values())
    print(f"{len(common)} cases, new/old geometric mean {geo:.4f}, "
          f"range {min(ratios.values()):.3f}..{max(ratios.values()):.3f}; "
          f"{len(slower)} slower than x{args.limit}")
    for key in sorted(common, key=lambda k: -ratios[k])[:8]:
        print(f"  {key[0]:>10} {key[1]:>16} {key[2]:3d} {key[3]:>5}: old {old[key]:.4f} new {new[key]:.4f} ms "
              f"x{ratios[key]:.3f}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
