#!/usr/bin/env bash
# One device call to measure kernel changes: a Qt-less/OpenCV-less build of
# the GPU tests and the benchmark only, every GPU test, the 8K targets and
# the autotuner's table, Nsight Compute on the kernels named in $NCU_KERNELS
# (a regex on demangled names). Carry .deps. Logs go to $OUT.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
B=build-probe
start=$(date +%s)
configure_and_build $B fs_gpu_tests fs_gpu_launch_tests fs_gpu_batch_tests filterstudio-bench
spills=$(count_spills)
say "built in $(( $(date +%s) - start )) s; kernels spilling: $spills"
rm -f "$OUT/build.log"

gpu_ctest $B
bench_targets $B

# ncu names template arguments "(int)15": write regexes like
# 'stripKernel<float, \(int\)15>', several separated by ';'. Each profiles 2
# launches after the first 3 and stops the benchmark (--kill).
IFS=';' read -r -a kernels <<<"${NCU_KERNELS:-}"
for k in "${kernels[@]}"; do
  [ -n "$k" ] || continue
  timeout 200 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-skip 3 --launch-count 2 \
    --kill yes --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats \
    $B/tools/bench/filterstudio-bench --no-sweep --quick --csv /tmp/ncu-bench.csv >>"$OUT/ncu.txt" 2>&1
  say "ncu '$k' exit $?"
done
