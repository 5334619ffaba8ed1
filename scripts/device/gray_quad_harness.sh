#!/usr/bin/env bash
# bench/probes/gray_quad_harness.cu on the GPU machine, twice: the landed
# gray quad kernel against a standalone copy of its loop (docs/performance.md,
# "An open lead on those gray masks"). About a minute. Logs go to $OUT.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Igpu/src -Igpu/include -Icore/include -Xptxas -v \
  bench/probes/gray_quad_harness.cu -o /tmp/gray-quad-harness >"$OUT/ptxas.txt" 2>&1 ||
  { tail "$OUT/ptxas.txt" | tee -a "$S"; exit 1; }
for run in 1 2; do /tmp/gray-quad-harness | tee -a "$S"; done
