#!/usr/bin/env bash
# bench/probes/gray_quad_harness.cu on the GPU machine, twice: the landed
# gray quad kernel against a standalone copy of its loop (docs/performance.md,
# "The quads' frame, out of the quad path"). About a minute. NCU=1 then profiles
# one launch of each of its kernels with Nsight Compute (ncu.txt, about a
# minute more). Logs go to $OUT.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
say "== $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Igpu/src -Igpu/include -Icore/include -Xptxas -v \
  bench/probes/gray_quad_harness.cu -o /tmp/gray-quad-harness >"$OUT/ptxas.txt" 2>&1 ||
  { tail "$OUT/ptxas.txt" | tee -a "$S"; exit 1; }
for run in 1 2; do /tmp/gray-quad-harness | tee -a "$S"; done
if [ "${NCU:-0}" = 1 ]; then
  # HARNESS_REPS=1: each kernel's 3 warm-ups and 1 timed launch, every one profiled.
  HARNESS_REPS=1 timeout 300 ncu --clock-control none -k regex:'probeQuad|denseQuadKernel|bisectQuad' \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SchedulerStats /tmp/gray-quad-harness >"$OUT/ncu.txt" 2>&1
  say "ncu exit $?"
fi
