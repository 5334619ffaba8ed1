#!/usr/bin/env bash
# One device call for launch configurations: Qt-less/OpenCV-less build, the
# launch matrix and every other GPU test, memcheck/racecheck on a slice of the
# launch matrix, and the autotuner's 8K table (filterstudio-bench --tune).
# Carry .deps. Logs go to $OUT: summary.txt first.
cd "$(dirname "$0")/../.."
source scripts/device/common.sh
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
B=build-launch
start=$(date +%s)
configure_and_build $B
spills=$(count_spills)
rm -f "$OUT/build.log"
say "built in $(( $(date +%s) - start )) s; kernels spilling: $spills"

gpu_ctest $B
ctest --test-dir $B -L core -j 8 >/dev/null 2>&1; say "core tests exit $?"

slice='*shared_f32_c3*:*registers_u8_c4*:*separable_u16_c1*:*global_u8_c1*:*LaunchRefusals*:*LaunchReport*'
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/gpu/fs_gpu_launch_tests --gtest_filter="$slice" >"$OUT/sanitizer.log" 2>&1
say "memcheck launch slice: exit $? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/gpu/fs_gpu_launch_tests --gtest_filter='*shared_u8_c1*:*separable_f32_c1*' >>"$OUT/sanitizer.log" 2>&1
say "racecheck shared/separable slice: exit $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"

if [ "${BENCH:-0}" = 1 ]; then
  TUNE=1 bench_targets $B
else
  timeout 200 $B/tools/bench/filterstudio-bench --tune --repeats 20 --tune-csv "$OUT/tune.csv" >"$OUT/tune.txt" 2>&1
  say "tune bench exit $?"; grep -E "^8K" "$OUT/tune.txt" | tee -a "$S"
fi
