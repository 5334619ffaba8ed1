#!/usr/bin/env bash
# One device call for launch configurations: Qt-less/OpenCV-less build, the
# launch matrix and every other GPU test, memcheck/racecheck on a slice of the
# launch matrix, and the autotuner's 8K table (filterstudio-bench --tune).
# Carry .deps. Logs go to $OUT: summary.txt first.
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/out-device}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
export CPATH=$PWD/.deps/include PATH=/usr/local/cuda/bin:$PATH
mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }  # test data paths are compiled in
say "== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
B=build-launch
start=$(date +%s)
cmake -G Ninja -S . -B $B -DFS_WITH_QT=OFF -DFS_WITH_OPENCV=OFF -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
  -DCMAKE_BUILD_TYPE=Release -DFS_CUDA_PTXAS_VERBOSE=ON >"$OUT/build.log" 2>&1 && ninja -C $B >>"$OUT/build.log" 2>&1 \
  || { grep -E "error|FAILED|CMake Error" "$OUT/build.log" | head -30 | tee -a "$S"; exit 1; }
grep -E "spill stores|Used [0-9]+ registers" "$OUT/build.log" | grep -B1 -E "[1-9][0-9]* bytes spill stores" | head -20 >"$OUT/spills.txt"
rm -f "$OUT/build.log"
say "built in $(( $(date +%s) - start )) s; kernels spilling: $(grep -c 'spill stores' "$OUT/spills.txt")"

start=$(date +%s)
ctest --test-dir $B -L gpu -j 12 --output-on-failure --timeout 400 >"$OUT/ctest.log" 2>&1
grep -E "tests passed|tests failed" "$OUT/ctest.log" | tee -a "$S"
grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Not Run)" "$OUT/ctest.log" | head -30 | tee -a "$S"
say "ctest took $(( $(date +%s) - start )) s"
ctest --test-dir $B -L core -j 8 >/dev/null 2>&1; say "core tests exit $?"

slice='*shared_f32_c3*:*registers_u8_c4*:*separable_u16_c1*:*global_u8_c1*:*LaunchRefusals*:*LaunchReport*'
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 99 $B/tests/gpu/fs_gpu_launch_tests --gtest_filter="$slice" >"$OUT/sanitizer.log" 2>&1
say "memcheck launch slice: exit $? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 $B/tests/gpu/fs_gpu_launch_tests --gtest_filter='*shared_u8_c1*:*separable_f32_c1*' >>"$OUT/sanitizer.log" 2>&1
say "racecheck shared/separable slice: exit $? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)"

timeout 200 $B/tools/bench/filterstudio-bench --tune --repeats 20 --tune-csv "$OUT/tune.csv" >"$OUT/tune.txt" 2>&1
say "tune bench exit $?"; grep -E "^8K" "$OUT/tune.txt" | tee -a "$S"
if [ "${BENCH:-0}" = 1 ]; then
  timeout 200 $B/tools/bench/filterstudio-bench --no-sweep --quick --csv "$OUT/bench.csv" >"$OUT/bench.txt" 2>&1
  say "bench exit $?"; sed -n '/^TARGETS/,$p' "$OUT/bench.txt" | tee -a "$S"
fi
