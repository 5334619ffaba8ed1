#!/usr/bin/env python3
"""Summarises filterstudio-bench --pipelined-csv: how far the kernel time the
engine reports for a host image (uploaded in overlapped pieces) is from the
resident kernel time of the same filter, per frame size and over all cases.

usage: pipelined_summary.py PIPELINED_CSV [--limit 1.15]
"""
import argparse
import csv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--limit", type=float, default=1.15, help="pipelined / resident kernel time allowed")
    args = ap.parse_args()
    rows = list(csv.DictReader(line for line in open(args.csv) if not line.startswith("#")))
    if not rows:
        raise SystemExit(f"{args.csv}: no rows")
    sizes = {}
    for r in rows:
        sizes.setdefault(r["image"].split("-")[0], []).append(r)
    for size, rs in sizes.items():
        ratios = [float(r["ratio"]) for r in rs]
        total_over_serial = [float(r["total_ms"]) / float(r["serial_sum_ms"]) for r in rs]
        print(f"{size}: {len(rs)} cases, pipelined/resident kernel max {max(ratios):.2f}, "
              f"within {args.limit} in {sum(x <= args.limit for x in ratios)}; "
              f"pieces {min(int(r['pieces']) for r in rs)}..{max(int(r['pieces']) for r in rs)}; "
              f"total/serial sum {min(total_over_serial):.2f}..{max(total_over_serial):.2f}")
    worst = sorted(rows, key=lambda r: -float(r["ratio"]))[:8]
    print("largest ratios: " + "; ".join(f"{r['image']} {r['filter']} {r['mask']} {float(r['ratio']):.2f} "
                                         f"({r['pieces']} pieces, {float(r['resident_kernel_ms']):.4f} ms resident)"
                                         for r in worst))
    within = sum(float(r["ratio"]) <= args.limit for r in rows)
    print(f"all: pipelined kernel within {args.limit}x the resident one in {within} of {len(rows)} cases")


if __name__ == "__main__":
    main()
