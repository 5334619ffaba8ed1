#!/usr/bin/env bash
# On the GPU machine (device tool `run`, carry .deps): configure Qt-less and
# OpenCV-less with ninja, build, run the GPU tests, compute-sanitizer on a
# short case of every mode, then the benchmark and its peers. Logs go to $OUT
# (8 files at most come back): summary.txt, ptxas.txt, ctest.log,
# sanitizer.log, bench.txt, bench.csv, peers.txt, peers.csv.
#
#   scripts/device/run_on_device.sh [all|tests|bench|targets] [extra filterstudio-bench args...]
# targets: tests, memcheck + racecheck only, the benchmark without peers (one short call).
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/out-device}
BUILD=${BUILD:-build-device}
WHAT=${1:-all}
shift || true
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
SUMMARY=$OUT/summary.txt
say() { echo "$*" | tee -a "$SUMMARY"; }

: >"$SUMMARY"
say "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$SUMMARY"
nvcc --version | tail -1 | tee -a "$SUMMARY"

say "== configure + build"
start=$(date +%s)
cmake -G Ninja -S . -B "$BUILD" -DFS_WITH_QT=OFF -DFS_WITH_OPENCV=OFF -DFS_GTEST_SOURCE_DIR="$PWD/.deps/googletest" \
  -DFS_CUDA_PTXAS_VERBOSE=ON -DFS_CUDA_LINEINFO=ON -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log" | tee -a "$SUMMARY"; exit 1; }
ninja -C "$BUILD" -j"$(nproc)" fs_gpu_tests filterstudio-bench >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head -40 | tee -a "$SUMMARY"; exit 1; }
# Registers, stack and spills of every kernel (ptxas -v), one line each.
awk '/Compiling entry function/ {match($0, /_Z[^'"'"']*/); fn=substr($0, RSTART, RLENGTH)} /Function properties/ {getline; sp=$0} /Used [0-9]+ registers/ {print fn " | " $0 " | " sp}' \
  "$OUT/build.log" | sed 's/ptxas info *: //g' | (command -v c++filt >/dev/null && c++filt || cat) >"$OUT/ptxas.txt"
rm -f "$OUT/configure.log" "$OUT/build.log"
say "built in $(( $(date +%s) - start )) s; kernels with spills: $(grep -c 'bytes spill stores' "$OUT/ptxas.txt" | tr -d ' ') listed, $(grep -vc ' 0 bytes spill stores' "$OUT/ptxas.txt") with nonzero spills"

if [ "$WHAT" = all ] || [ "$WHAT" = tests ] || [ "$WHAT" = targets ]; then
  say "== ctest (gpu)"
  start=$(date +%s)
  ctest --test-dir "$BUILD" -L gpu -j 12 --output-on-failure --timeout 600 >"$OUT/ctest.log" 2>&1
  grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest.log" | tee -a "$SUMMARY"
  grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess)" "$OUT/ctest.log" | head -40 | tee -a "$SUMMARY"
  grep -m1 "FS_TEST_SEED" "$OUT/ctest.log" | tee -a "$SUMMARY"
  say "ctest took $(( $(date +%s) - start )) s"

  say "== compute-sanitizer"
  : >"$OUT/sanitizer.log"
  T="$BUILD/tests/gpu/fs_gpu_tests"
  tools="memcheck racecheck initcheck synccheck"
  [ "$WHAT" = targets ] && tools="memcheck racecheck"
  for tool in $tools; do
    filter='CudaBackend.ShortCaseEveryMode:CudaBackend.SeparableStrips*'
    [ $tool = memcheck ] && filter='CudaBackend.ShortCaseEveryMode:CudaBackend.SeparableStrips*:CudaBackend.Rgba8*:CudaBackend.StripsUnder*:CudaBackend.BadRequests*:Cuda/ModeMatrix.*wrap_u8_c3'
    start=$(date +%s)
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 "$T" --gtest_filter="$filter" >>"$OUT/sanitizer.log" 2>&1
    rc=$?
    say "$tool: exit $rc ($( [ $rc = 0 ] && echo clean || echo PROBLEM)), $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer.log" | tail -1), $(grep -E '^\[  (PASSED|FAILED)' "$OUT/sanitizer.log" | tail -1), $(( $(date +%s) - start )) s"
  done
fi

if [ "$WHAT" = all ] || [ "$WHAT" = bench ] || [ "$WHAT" = targets ]; then
  say "== benchmark"
  start=$(date +%s)
  "$BUILD/tools/bench/filterstudio-bench" --csv "$OUT/bench.csv" "$@" >"$OUT/bench.txt" 2>&1
  say "bench exit $?, $(( $(date +%s) - start )) s"
  sed -n '/^TARGETS/,$p' "$OUT/bench.txt" | tee -a "$SUMMARY"
  [ "$WHAT" = targets ] && exit 0
  say "== peers"
  timeout 300 python3 bench/peers/peers.py "$OUT/bench.csv" --quick --out "$OUT/peers.csv" >"$OUT/peers.txt" 2>&1
  say "peers exit $?"
  grep -E "^8K-gray" "$OUT/peers.txt" | tee -a "$SUMMARY"
fi
