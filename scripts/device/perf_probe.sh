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

start=$(date +%s)
ctest --test-dir $B -L gpu -j 12 --output-on-failure --timeout 400 >"$OUT/ctest.log" 2>&1
grep -E "tests passed|tests failed" "$OUT/ctest.log" | tee -a "$S"
grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Not Run)" "$OUT/ctest.log" | head -30 | tee -a "$S"
say "ctest took $(( $(date +%s) - start )) s"

$B/tools/bench/filterstudio-bench --no-sweep --quick --csv "$OUT/bench.csv" >"$OUT/bench.txt" 2>&1
say "bench exit $?"; sed -n '/^TARGETS/,$p' "$OUT/bench.txt" | tee -a "$S"
grep -E "pieces" "$OUT/bench.txt" | tee -a "$S"
if [ "${TUNE:-0}" = 1 ]; then
  timeout 240 $B/tools/bench/filterstudio-bench --tune --repeats 20 --tune-csv "$OUT/tune.csv" >/tmp/tune.txt 2>&1
  say "tune bench exit $?"; grep -E "^8K" /tmp/tune.txt | tee -a "$S"
fi

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
